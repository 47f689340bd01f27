"""verify says how far its proofs are (stderr): one line per proof run, naming the entry, the
releases it covers and the outcome; nothing for proofs kept from an earlier run. Real wheels on
the loopback index."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.lib.index_server import IndexServer
from tests.lib.wheels import Wheels

DIST = "radpatch-toy"
CODE = "def size(items):\n    n = len(items)\n    return n\n"
ENTRY = f"""\
summary: Cap the toy's size
description: Proven on three releases, two of them with identical files.
distribution: {DIST}
supported: ">=1.0,<2"
modules:
  core: rptoy.core
rewrites:
  - id: cap
    replace: {{scope: size, find: n = len(items), with: "n = min(len(items), 4)"}}
"""
WHEELS: Wheels = {
    "1.0": {"rptoy/__init__.py": "", "rptoy/core.py": CODE},
    "1.1": {"rptoy/__init__.py": "", "rptoy/core.py": CODE},  # the same files: proven with 1.0
    "1.2": {"rptoy/__init__.py": "", "rptoy/core.py": "def size(items):\n    return len(items)\n"},
}


def test_each_proof_is_reported_as_it_ends_and_kept_ones_are_not(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, WHEELS)
    reg = write_registry("cap", ENTRY)
    r = radpatch("--registry", str(reg), "verify", "cap")
    assert r.code == 1, r.err  # 1.2 does not match
    assert "radpatch: proving cap on 2 release file set(s) of radpatch-toy" in r.err
    lines = {re.sub(r"\(\d+ s\)", "", ln).strip().split("] ", 1)[1] for ln in r.err.splitlines() if "] cap on " in ln}
    # (1.2 is proven again against the releases the entry is written for: does it hold the change?)
    assert sorted(lines) == [
        "cap on radpatch-toy 1.0, 1.1: ok",
        "cap on radpatch-toy 1.2: fails match",
    ]
    again = radpatch("--registry", str(reg), "verify", "cap")
    assert "proving cap" not in again.err and "] cap on " not in again.err  # every proof kept: nothing to wait for

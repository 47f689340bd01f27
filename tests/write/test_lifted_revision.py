"""`revert LOW` lifts an entry stacked above it on the same file (HIGH, which does not require it):
HIGH comes off and goes on again without LOW, from its entry as the registry has it now. When that
entry was edited since HIGH was applied, the code that goes back on is the new revision's, and the
output says so (att53 #3: it said only "taken off and put on again", and the file held the new code).
Generated over which of the two is edited and to what; the oracle is Python running the module."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy import TOY_FILES

ENTRY = """\
    summary: {name}
    description: d
    distribution: toypkg
    supported: ">=1.0,<2"
    modules:
      util: toypkg.util
    rewrites:
      - {op}
    """
FILES = {**TOY_FILES, "toypkg/util.py": "def scale(x):\n    return x * 2\n\n\ndef shift(x):\n    return x + 1\n"}
LOW = "replace: {{scope: scale, find: x * 2, with: x * {k}}}"
HIGH = "replace: {{scope: shift, find: x + 1, with: x + {k}0}}"
CASES = sample(
    list(itertools.product([1, 7], [1, 7, 9]))
)  # LOW's factor, HIGH's addend's tens (1: the entry unchanged)


@pytest.mark.parametrize(("low_k", "high_k"), CASES, ids=[f"low{a}-high{b}" for a, b in CASES])
def test_a_lifted_entry_goes_back_on_in_its_current_revision_and_says_so(
    site: Site, write_registry: Callable[..., Path], radpatch: Any, low_k: int, high_k: int
) -> None:
    site.install("toypkg", "1.0", FILES)
    write_registry("low", ENTRY.format(name="low", op=LOW.format(k=3)))
    reg = write_registry("high", ENTRY.format(name="high", op=HIGH.format(k=1)))
    assert radpatch("--registry", str(reg), "apply", "low", "high").code == 0
    if low_k != 1:  # an edit of the entry reverted changes nothing of what goes back on
        write_registry("low", ENTRY.format(name="low", op=LOW.format(k=low_k)))
    if high_k != 1:
        write_registry("high", ENTRY.format(name="high", op=HIGH.format(k=high_k)))

    r = radpatch("--registry", str(reg), "revert", "low")

    assert r.code == 0, r.err
    said = "high: taken off and put on again without low (stacked above it)"
    assert said in r.out, r.out
    assert ("current revision" in r.out) is (high_k != 1), r.out
    # the oracle: Python running the module: HIGH as its entry is now, and LOW's factor gone
    code = f"import sys; sys.path.insert(0, {str(site.root)!r}); import toypkg.util as u; print(u.scale(1), u.shift(1))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["2", str(1 + high_k * 10)], (out.stdout, (site.root / "toypkg/util.py").read_text())
    (st,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "high").out)
    assert st["state"] == "applied" and st["registry_digest"] == st["applied_registry_digest"], st

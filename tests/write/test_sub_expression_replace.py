"""A replacement that is a sub-expression of `find` (`int(timeout)` -> `timeout`, a common fix):
the `with` match inside the unpatched `find` is part of what the patch replaces, not evidence that
the file is patched; the pristine file applies, and a comment edit does not make it read patched."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.site import Site

CASES = {
    "unwrap call": ("int(timeout)", "timeout"),
    "drop operand": ("timeout + 0", "timeout"),
    "unwrap attribute call": ("float(timeout).real", "float(timeout)"),
    "drop subscript": ("[timeout][0]", "[timeout]"),
}


def entry(find: str, with_: str) -> str:
    return f"""\
        summary: s
        description: d
        distribution: rpsub
        supported: ">=1.0,<2"
        modules:
          m: rpsub.m
        rewrites:
          - replace: {{scope: wait, find: "{find}", with: "{with_}"}}
        """


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
@pytest.mark.parametrize("edited", [False, True], ids=["pristine", "comment added"])
def test_the_unpatched_file_reads_not_applied_and_applies(
    site: Site, write_registry: Callable[..., Path], radpatch: Any, case: str, edited: bool
) -> None:
    find, with_ = CASES[case]
    source = f"def wait(timeout):\n    return {find}\n"
    site.install("rpsub", "1.0", {"rpsub/__init__.py": "", "rpsub/m.py": source})
    reg = write_registry("p", entry(find, with_))
    m = site.root / "rpsub" / "m.py"
    if edited:
        m.write_text("# a comment\n" + source)
    (st,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "p").out)
    assert st["state"] == "not-applied", st
    out = radpatch("--registry", str(reg), "apply", "p")
    assert out.code == 0, out.err
    assert f"return {with_}\n" in m.read_text() and find not in m.read_text()
    assert radpatch("--registry", str(reg), "status", "--check", "p").code == 0
    assert radpatch("--registry", str(reg), "revert", "p").code == 0
    assert m.read_text().endswith(source)

"""Entries that each `add_import` the same new import (att23c N6): imports commute, so any of them
applies on top of the others, in one run or several, and any comes off leaving the others' code
working: the added line stays while an applied entry holds it. Checked by generated walks of
apply/revert of three entries on a real wheel against a reference built by hand (the line with
how many hold it, and each applied entry's own change), after every step."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import seeds
from tests.lib.overlaps import HEAD, toy_with_entries
from tests.lib.site import Site

SRC = """\
import os


def helper(xs):
    y = max(xs)
    return y


def cached(n):
    return n * 2


def total(xs):
    return sum(xs) + len(os.sep)
"""
IMPORT = "  - add_import: {import: import functools}\n"
ENTRIES = {
    "deco": "  - add_decorator: {function: cached, decorator: functools.cache}\n" + IMPORT,
    "ins": IMPORT + '  - insert_before: {scope: helper, find: return y, code: "y = functools.reduce(max, [y, 0])"}\n',
    "rep": IMPORT
    + '  - replace: {scope: total, find: "sum(xs)", with: "functools.reduce(lambda a, b: a + b, xs, 0)"}\n',
}


def expected(applied: set[str]) -> str:
    """The reference: the wheel's file with one marked import line held by each applied entry, and
    each applied entry's own change."""
    text = SRC
    if applied:
        held = f" (by {len(applied)} rewrites)" if len(applied) > 1 else ""
        text = text.replace("import os\n", f"import os\nimport functools  # radpatch: added import{held}\n")
    if "deco" in applied:
        text = text.replace("def cached", "@functools.cache\ndef cached")
    if "ins" in applied:
        text = text.replace("    return y", "    y = functools.reduce(max, [y, 0])\n    return y")
    if "rep" in applied:
        text = text.replace("sum(xs)", "functools.reduce(lambda a, b: a + b, xs, 0)")
    return text


def _works(text: str) -> None:
    """The module runs, and each function gives the wheel's answers (each change keeps them)."""
    space: dict[str, Any] = {}
    exec(compile(text, "core.py", "exec"), space)
    assert space["helper"]([3, 5]) == 5 and space["cached"](4) == 8 and space["total"]([1, 2]) == 3 + len("/")


def _setup(site: Site, write_registry: Any, tmp_path: Path) -> tuple[Path, Path]:
    return toy_with_entries(site, write_registry, tmp_path, SRC, ENTRIES)


@pytest.mark.parametrize("seed", seeds(12))
def test_entries_sharing_an_added_import_apply_and_revert_in_any_order(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, seed: int
) -> None:
    reg, core = _setup(site, write_registry, tmp_path)
    rng = random.Random(seed)
    applied: set[str] = set()
    for _ in range(7):
        names = rng.sample(sorted(ENTRIES), rng.choice((1, 1, 2)))
        verb = "revert" if names[0] in applied else "apply"
        r = radpatch("--registry", str(reg), verb, *names)
        assert r.code == 0, (verb, names, r.out + r.err)
        applied = applied - set(names) if verb == "revert" else applied | set(names)
        text = core.read_text()
        assert text == expected(applied), (verb, names)
        _works(text)
        assert radpatch("--registry", str(reg), "status", "--check").code == 0
    if applied:
        assert radpatch("--registry", str(reg), "revert", *sorted(applied)).code == 0
    assert core.read_text() == SRC


def test_an_entry_requiring_another_with_the_same_import_applies_on_it(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path
) -> None:
    reg, core = _setup(site, write_registry, tmp_path)
    head = HEAD.format(supported=">=1.0,<2")
    reg = write_registry("needs", "requires: [deco]\n" + head + ENTRIES["ins"].replace("max, [y, 0]", "min, [y, 9]"))
    r = radpatch("--registry", str(reg), "apply", "needs")  # its requirement goes on first, in the same run
    assert r.code == 0, r.out + r.err
    text = core.read_text()
    assert "import functools  # radpatch: added import (by 2 rewrites)\n" in text
    r = radpatch("--registry", str(reg), "revert", "needs")
    assert r.code == 0, r.out + r.err
    assert core.read_text() == expected({"deco"})

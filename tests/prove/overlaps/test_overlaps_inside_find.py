"""An insertion anchored inside another entry's several-statement `find` (issue 23 item 4, gx23):
generated pairs (find lengths x anchor positions x operation kinds) checked against the engine
itself: two rewrites overlap exactly when "A then B" and "B then A" write different files, or one
order fails and the other does not."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.prove.overlaps import gaps, pairs
from radpatch.registry.model import Operation, Patch
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.ops.common import code_errors
from radpatch.rewrite.source import Source
from tests.lib.generated import seeds
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

STATEMENTS = ("a = spec + 1", "b = a * 2", "c = b - 3", "d = c + a", "e = d * b")
CORE = "def plan(spec):\n" + "".join(f"    {s}\n" for s in STATEMENTS) + "    return e\n"
OPS = ("replace", "delete", "insert_before", "insert_after")


def _entry(name: str, op: str, first: int, length: int) -> str:
    find = "\\n".join(STATEMENTS[first : first + length])
    extra = {"replace": f', with: "z{name} = 0"', "delete": ""}.get(op, f', code: "y{name} = 0"')
    return f'  - id: {name}\n    {op}: {{scope: plan, find: "{find}"{extra}}}\n'


def _entries(reg: Path, prefix: str, lengths: tuple[int, ...], ops: tuple[str, ...]) -> list[Patch]:
    out = []
    for op in ops:
        for length in lengths:
            for first in range(len(STATEMENTS) - length + 1):
                name = f"{prefix}{op[:3]}{op[-3:]}{first}{length}"
                out.append(write(reg, name, _entry(name, op, first, length)))
    return out


def _code(text: str | None) -> str | None:
    return None if text is None else ast.dump(ast.parse(text))


def _names_both(err: str) -> bool:
    return "whole and inner overlap" in err or "inner and whole overlap" in err


FAILS = (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError)  # what gaps.in_order reads as "fails"


@functools.cache
def _first(op: Operation) -> Source | None:
    """`op` on CORE, as gaps.in_order runs its first operation (a Source is immutable, so each
    operation's result is computed once and given to every operation that follows it)."""
    try:
        with code_errors():
            return op.forward(Source.parse(CORE))
    except FAILS:
        return None


def _in_order(first: Operation, then: Operation) -> str | None:
    """gaps.in_order(first, then, CORE), its first step shared between pairs."""
    mid = _first(first)
    try:
        with code_errors():
            return None if mid is None else then.forward(mid).text
    except FAILS:
        return None


def _engine_says(a: Patch, b: Patch) -> bool | None:
    """The reference, on the real engine: do "A then B" and "B then A" write different code (or
    one fail and the other not: True), the same code (False), or both fail (None)? Compared as
    code: a `delete` leaves a comment, which an insertion next to it may go before or after."""
    one = _code(_in_order(a.rewrites[0].op, b.rewrites[0].op))
    two = _code(_in_order(b.rewrites[0].op, a.rewrites[0].op))
    return None if one is None and two is None else one != two


def test_generated_pairs_overlap_exactly_when_their_order_matters(tmp_path: Path) -> None:
    several = _entries(tmp_path / "a", "a", (1, 2, 3), OPS)
    anchors = _entries(tmp_path / "b", "b", (1, 2), OPS)
    wrong = []
    checked = 0
    # a generated family (tests/lib/generated.py): the fast tier's sampled runs check the pairs of
    # one `a` in RADPATCH_TEST_SAMPLE against every anchor, a different share on each of 3.10-3.13
    # (together every pair; every pair on one interpreter when there are fewer)
    kept = seeds(len(several))
    for i, a in enumerate(several):
        if i not in kept:
            continue
        b = anchors[i % len(anchors)]  # the shared first step gives gaps.in_order's own answer
        assert _in_order(a.rewrites[0].op, b.rewrites[0].op) == gaps.in_order(a.rewrites[0].op, b.rewrites[0].op, CORE)
        for b in anchors:
            expected = _engine_says(a, b)
            if expected is None:
                continue
            checked += 1
            found = bool(pairs.find([a, b], [Version("1.0")]))
            if found != expected:
                wrong.append(f"{a.name} / {b.name}: expected {expected}")
    assert checked > 500 * len(kept) // len(several)  # over 500 pairs when every `a` runs
    assert wrong == [], f"{len(wrong)} of {checked}:\n" + "\n".join(wrong[:40])


# `a = ...\nb = ...` replaced, and an insertion whose `find` starts at `b`; or an insertion after
# that span, and one before its second statement (between the two)
@pytest.mark.parametrize(
    ("op", "between", "first", "length"), [("replace", "insert_after", 1, 2), ("insert_after", "insert_before", 1, 1)]
)
def test_apply_refuses_an_insertion_inside_a_find_naming_both_in_either_order(
    site: Site, radpatch: Any, write_registry: Any, op: str, between: str, first: int, length: int
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("whole", head + _entry("whole", op, 0, 2).replace("id: whole", "id: span"))
    reg = write_registry("inner", head + _entry("inner", between, first, length))
    before = (site.root / "toypkg/core.py").read_bytes()
    r = radpatch("--registry", str(reg), "list")
    assert "overlap: inner (inner) and whole (span) both " in r.out, r.out
    for names in (("whole", "inner"), ("inner", "whole")):
        r = radpatch("--registry", str(reg), "apply", *names)
        assert r.code == 1, r.out + r.err
        assert _names_both(r.err) and "requires: [" in r.err, r.err
        assert "Traceback" not in r.err
        assert (site.root / "toypkg/core.py").read_bytes() == before


def test_apply_refuses_an_insertion_inside_an_applied_entrys_find(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    # the entry whose `find` holds the anchor is applied first; the second is refused naming it,
    # not by a match failure of the engine
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("whole", head + _entry("whole", "insert_after", 0, 3))
    reg = write_registry("inner", head + _entry("inner", "insert_before", 1, 1))
    assert radpatch("--registry", str(reg), "apply", "whole").code == 0
    r = radpatch("--registry", str(reg), "apply", "inner")
    assert r.code == 1, r.out + r.err
    assert _names_both(r.err) and "requires: [whole]" in r.err, r.err

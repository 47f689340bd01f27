"""`occurrence:` on identical lines (two `p.add(x=["a"])` in a row): each rewrite changes its own
installed match, in any order, and the undo gives the file back byte for byte.

The installed match is followed through the edits of the rewrites before it one rewrite at a time:
a diff of the whole file matched an unchanged twin against the edited one's place and refused the
later occurrence as "changed by the rewrites before it".

Generated: twins (2, 3) x what lies between them (nothing, a blank line, another statement) x
the operation (add_element on the call's list, replace of the statement) x every order of every
subset of two or more occurrences; the result is computed from the installed lines, not typed in."""

from __future__ import annotations

import itertools

import pytest

from radpatch.registry.model import Operation
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.generated import sample
from tests.lib.rewrites import check

TWIN = 'p.add(x=["a"])'
BETWEEN = {"none": [], "blank": [""], "other": ["q = 1"]}


def _cases() -> list[tuple[int, str, str, tuple[int, ...]]]:
    out = []
    for twins, between, kind in itertools.product((2, 3), BETWEEN, ("add_element", "replace")):
        for k in range(2, twins + 1):
            for chosen in itertools.combinations(range(1, twins + 1), k):
                out.extend((twins, between, kind, order) for order in itertools.permutations(chosen))
    return out


def _module(twins: int, between: str, line: dict[int, str]) -> str:
    body: list[str] = []
    for n in range(1, twins + 1):
        body.append(line.get(n, TWIN))
        if n < twins:
            body.extend(BETWEEN[between])
    return "def build(p):\n" + "".join(f"    {s}\n" if s else "\n" for s in body)


def _op(kind: str, n: int) -> Operation:
    if kind == "add_element":
        return SetElement("build", None, f'"e{n}"', call="p.add", keyword="x", occurrence=n)
    return Replace("build", TWIN, f'p.add(x=["a"], n={n})', occurrence=n)


def _changed(kind: str, n: int) -> str:
    return f'p.add(x=["a", "e{n}"])' if kind == "add_element" else f'p.add(x=["a"], n={n})'


@pytest.mark.parametrize(("twins", "between", "kind", "order"), sample(_cases()), ids=str)
def test_each_occurrence_of_identical_lines_changes_its_own_line_in_any_order(
    twins: int, between: str, kind: str, order: tuple[int, ...]
) -> None:
    before = _module(twins, between, {})
    after = _module(twins, between, {n: _changed(kind, n) for n in order})
    check(before, tuple(_op(kind, n) for n in order), after)

"""Issue 20 (elem40 #4): a keyword argument moved within a call (`h(a, k0=1, k1=2)` -> `h(a, k1=2,
k0=1)`, the same value at another place) imported as a `replace` of the whole call, which breaks on
any upstream edit of the call's other arguments. Now it is two `set_keyword` steps: the keyword
taken away (`from:`, placed by `before:`/`after:` where it was), then added back (`to:`) `after:`
(or `before:`) its new neighbour, so every other byte of the call stays and the result is what
GNU patch gives.

Generated: calls with or without a positional argument and `**kw`, on one line or one argument per
line, with or without another call to the callee in the scope x every move of one of three
keywords to another place. As data (two set_keyword steps; where another call lacks the keyword,
the add-back would be counted among both and apply refuses two rewrites of one counted match, so
the wider replace), through the engine (the diff's bytes, undone to the installed ones), and a
batch through `radpatch import`, apply, `status --check` and revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_cases_imported_as_gnu_patch
from tests.lib.importing import call_of_h as call
from tests.lib.rewrites import check, set_keyword_ops

KEYWORDS = ("k0=1", "k1=f(2)", "k2=[3]")
SHAPES = {"plain": ((), ()), "positional": (("a",), ()), "kwargs": (("a",), ("**kw",))}
OTHERS = ("", "    z = h(b, k0=5)\n")
MOVES = [(i, j) for i, j in itertools.product(range(3), range(3)) if i != j]


def module(args: tuple[str, ...], layout: str, other: str) -> str:
    return (
        "def h(*args, **kwargs):\n    return args, kwargs\n\n\n"
        "def f(a, b, kw):\n    first = 0\n"
        f"{other}    y = {call(args, layout)}\n    return y\n"
    )


def case(shape: str, layout: str, other: str, move: tuple[int, int]) -> tuple[str, str]:
    head, tail = SHAPES[shape]
    moved = list(KEYWORDS)
    moved.insert(move[1], moved.pop(move[0]))
    return module((*head, *KEYWORDS, *tail), layout, other), module((*head, *moved, *tail), layout, other)


CASES = sample(list(itertools.product(SHAPES, ("line", "lines"), OTHERS, MOVES)))


@pytest.mark.parametrize(("shape", "layout", "other", "move"), CASES)
def test_a_keyword_moved_is_taken_away_and_added_back(
    shape: str, layout: str, other: str, move: tuple[int, int]
) -> None:
    before, after = case(shape, layout, other, move)
    got = rewrites(before, after)
    # a swap of neighbours is either one moved: the names whose move gives the patched order
    order = [k for k in KEYWORDS]
    order.insert(move[1], order.pop(move[0]))
    moves = [k for k in KEYWORDS if [x for x in KEYWORDS if x != k] == [x for x in order if x != k]]
    assert [s.op for s in got.steps] == ["set_keyword", "set_keyword"], got
    took, added = (dict(s.keys) for s in got.steps)
    # the other call lacks the keyword too: both steps pick the call by its number among the calls
    # to `h` (kw45; it was the wider replace)
    lacking = bool(other) and "k0=1" not in moves
    assert (took.get("call_occurrence"), added.get("call_occurrence")) == ((2, 2) if lacking else (None, None)), got
    assert took["keyword"] == added["keyword"] and "to" not in took and "from" not in added, got
    assert f"{took['keyword']}={took['from']}" in moves and added["to"] == took["from"], got
    for s in got.steps:  # the call's other arguments are not in the entry
        assert "h(" not in " ".join(str(v) for _, v in s.keys), s
    check(before, set_keyword_ops(got.steps), after)


@pytest.mark.wheel
def test_moved_keywords_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_cases_imported_as_gnu_patch(tmp_path, CASES[::3], case)

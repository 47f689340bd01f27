"""att63 F10: a patched statement joined with its neighbour by `;` (or put in a one-line suite) by a
layout-only edit: the inverse of a statement `replace` said "the rewrite's result is not there", which was
untrue; it now says where the result is and that radpatch undoes whole lines. Generated: where the result
sits (before or after a `;` neighbour, in a one-line suite) x the statement."""

from __future__ import annotations

import itertools

import pytest

from radpatch.rewrite.matching import NotFound
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.source import Source
from tests.lib.generated import sample

PLACES = {
    "before a `;` neighbour": "def f(spec):\n    {s}; return size\n",
    "after a `;` neighbour": "def f(spec):\n    size = 0; {s}\n    return size\n",
    "in a one-line suite": "def f(spec):\n    size = 0\n    if spec: {s}\n    return size\n",
}
# statements, not expressions (an expression `replace` matches inside a line: its inverse finds it there)
STATEMENTS = {
    "an assignment": ("size = len(spec)", "size = len(spec) + 1"),
    "an augmented assignment": ("size += 1", "size += 2"),
    "a del": ("del spec[0]", "del spec[1]"),
}
CASES = sample(list(itertools.product(PLACES, STATEMENTS)))


@pytest.mark.parametrize(("place", "statement"), CASES)
def test_a_result_inside_a_line_is_named_where_it_is(place: str, statement: str) -> None:
    find, with_ = STATEMENTS[statement]
    op = Replace(scope="f", find=find, with_=with_)
    text = PLACES[place].format(s=with_)
    with pytest.raises(NotFound) as caught:
        op.inverse(Source.parse(text))
    said = caught.value.message
    line = 1 + next(i for i, t in enumerate(text.splitlines()) if with_ in t)
    assert f"it is at line {line}, but not on a line of its own" in said and "undoes whole lines" in said, said
    assert "not there" not in said, said


def test_a_result_truly_gone_still_says_so() -> None:
    op = Replace(scope="f", find="size = len(spec)", with_="size = len(spec) + 1")
    with pytest.raises(NotFound) as caught:
        op.inverse(Source.parse("def f(spec):\n    size = 2\n    return size\n"))
    assert "the rewrite's result is not there" in caught.value.message

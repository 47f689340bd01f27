"""A keyword taken from a call and given back with a new value by the next rewrite (two set_keyword
steps, kw38, issue 20) where another call to the callee passes no such keyword: the take-away was
refused (the inverse cannot tell the calls apart), its hint gave a `within:`, and the add-back,
without one, was then refused as ambiguous too. The pair is a value changed in place: the refusal
now says so, and gives the one set_keyword (`from:` the old value, `to:` the new) that says it.

Generated: how many calls x which call the pair is at x what the others pass (nothing, another
keyword) x alike statements or not x the new value. Followed as the hint says, the one rewrite
applies, gives the call with the new value where the old one was, and undoes (check)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import check, refuse

CASES = sample(
    [
        (calls, hit, others, alike, new)
        for calls, others, alike, new in itertools.product((2, 3), ("", "j=2"), (False, True), ("5", "k"))
        for hit in range(calls)
    ]
)


def module(calls: int, hit: int, others: str, alike: bool) -> str:
    rows = []
    for k in range(calls):
        args = ", ".join(x for x in ("1", "y=0", "k=2" if k == hit else others) if x)
        rows.append(f"    g({args})\n" if alike else f"    r{k} = g({args})\n")
    return "def f(g, k):\n" + "".join(rows) + "    return None\n"


@pytest.mark.parametrize(("calls", "hit", "others", "alike", "new"), CASES)
def test_a_keyword_taken_and_given_back_is_said_as_one_change(
    calls: int, hit: int, others: str, alike: bool, new: str
) -> None:
    source = module(calls, hit, others, alike)
    pair = (SetKeyword("f", "g", "k", "2", None), SetKeyword("f", "g", "k", None, new))
    refused = refuse(source, *pair)
    said = f"{refused.message} | {refused.hint}"
    assert "if a later rewrite gives this call `k=` back with a new value" in said, said
    assert "one set_keyword with `from: 2` and `to:` that value" in said, said
    check(source, SetKeyword("f", "g", "k", "2", new), source.replace("y=0, k=2", f"y=0, k={new}"))

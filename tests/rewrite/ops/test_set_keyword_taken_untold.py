"""set_keyword without `to:` (a keyword taken away) where another call to the callee passes no such
keyword (kw37 F1, attack36): the patched call is like that one, so the inverse cannot tell which to
give the keyword back to. It was refused by the reverse proof with a hint about `find`/`with`, which
set_keyword has not, and `occurrence:` did not help. Now, without `occurrence:`, apply refuses
up front, names both lines and gives the `within:` that tells the call apart (the statement it is
in), or says to `replace` the statement where no `within:` can; with `occurrence:` the reverse
refusal says the same. Written as the hint says, the rewrite applies and undoes.

Generated: how many calls x which passes the keyword x what the others pass (nothing, another
value, the keyword through nothing but other arguments) x whether the statements are alike x with
or without `occurrence:`."""

from __future__ import annotations

import itertools
import re

import pytest

from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import check, refuse

OTHERS = ("none", "other-value", "other-keyword")


def module(calls: int, hit: int, others: str, alike: bool) -> str:
    rows = []
    for k in range(calls):
        arg = "k=2" if k == hit else {"none": "", "other-value": "k=3", "other-keyword": "j=2"}[others]
        args = ", ".join(x for x in ("1", arg) if x)
        rows.append(f"    g({args})\n" if alike else f"    r{k} = g({args})\n")
    return "def f(g):\n" + "".join(rows) + "    return None\n"


CASES = sample(
    [
        (calls, hit, others, alike, occ)
        for calls, others, alike, occ in itertools.product((2, 3), OTHERS, (False, True), (False, True))
        for hit in range(calls)
    ]
)


@pytest.mark.parametrize(("calls", "hit", "others", "alike", "occ"), CASES)
def test_a_keyword_taken_away_is_told_apart_or_refused_saying_how(
    calls: int, hit: int, others: str, alike: bool, occ: bool
) -> None:
    source = module(calls, hit, others, alike)
    after = source.replace("g(1, k=2)", "g(1)")
    op = SetKeyword("f", "g", "k", "2", None, occurrence=1 if occ else None)
    if others == "other-value":  # every other call passes `k`: the patched call is the only one without it
        check(source, op, after)
        return
    refused = refuse(source, op)
    said = f"{refused.message} {refused.hint}"
    line = hit + 2
    assert "could not tell which to give it back to" in said or "does not tell them apart" in said, said
    if not occ:
        lines = [str(k + 2) for k in range(calls) if k != hit]
        assert f"at line {line} leaves it like the call(s) at line {', '.join(lines)}" in said, said
    statement = "g(1, k=2)" if alike else f"r{hit} = g(1, k=2)"
    tells = not (alike and others == "none")  # `g(1)` given `k=2` back is the statement `g(1, k=2)` too
    if not occ:
        if not tells:  # written as the refusal says: the call's number among the calls to `g` (kw45)
            assert f"write `call_occurrence: {hit + 1}`" in said, said
            check(source, SetKeyword("f", "g", "k", "2", None, call_occurrence=hit + 1), after)
            return
        within = re.search(r"write `within: (.*?)` \(the statement", said)
        assert within is not None and within.group(1) == statement, said
    if not tells:
        return
    # written as the refusal says: `within:` the statement the call is in, as it reads now
    told = SetKeyword("f", "g", "k", "2", None, within=statement, occurrence=op.occurrence)
    check(source, told, after)

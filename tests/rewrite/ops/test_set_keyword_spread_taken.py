"""set_keyword taking away or changing a keyword a call passes only inside `**{...}` or
`**dict(...)` (kw38, issue 20): the refusal said the call passes no such keyword, and its hint to
leave `from:` out led to adding the keyword twice. It now says the keyword is passed inside the
`**` item at line N, and gives the `replace` of the call to write.

Generated: how the `**` item spells the keyword x what else the call passes x one line or one
argument per line x take away or change. The hint is followed as written: its `find:` with the
call as it should read applies, and undoes to the file's bytes (check)."""

from __future__ import annotations

import itertools
import re

import pytest

from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import check, refuse

SPREADS = ('**{"x": 1}', "**{'x': 1}", '**{**base, "x": 1}', "**dict(x=1)", '**{"z": 0, "x": 1}', "**dict(z=0, x=1)")
OTHERS = ((), ("a",), ("a", "b=2"), ("*xs",))
CASES = sample(list(itertools.product(SPREADS, OTHERS, (False, True), ("take", "change"))))


def module(args: list[str], tall: bool) -> str:
    if tall:
        return "def f(g, a, xs, base):\n    return g(\n" + "".join(f"        {a},\n" for a in args) + "    )\n"
    return f"def f(g, a, xs, base):\n    return g({', '.join(args)})\n"


def changed(spread: str, how: str) -> str:
    """The `**` item as the rewrite means it to read: without x, or with x=2."""
    if how == "change":
        return spread.replace(": 1", ": 2").replace("x=1", "x=2")
    out = re.sub(r',? ?"x": 1|,? ?\'x\': 1|,? ?x=1', "", spread)
    return out


@pytest.mark.parametrize(("spread", "others", "tall", "how"), CASES)
def test_a_keyword_inside_a_dict_spread_is_refused_with_the_replace_to_write(
    spread: str, others: tuple[str, ...], tall: bool, how: str
) -> None:
    before = module([*others, spread], tall)
    op = SetKeyword("f", "g", "x", "1", "2" if how == "change" else None)
    err = refuse(before, op)
    said = f"{err.message} | {err.hint}"
    first = 3 + len(others) if tall else 2  # the line of the `**` item
    assert f"pass `x` only through `**` (line {first}: inside `{spread}`)" in said, said
    assert "`replace` the call instead" in said, said
    after = module([*others, changed(spread, how)], tall)
    if tall:
        assert "`find:` the call as it reads" in said, said
        find = before.split("return ", 1)[1].rstrip("\n")
    else:
        find = re.search(r"`find: (.*?)`, `with:`", said).group(1)  # type: ignore[union-attr]
    check(before, Replace("f", find, after.split("return ", 1)[1].rstrip("\n")), after)

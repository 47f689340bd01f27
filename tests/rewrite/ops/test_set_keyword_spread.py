"""set_keyword adding a keyword the call already passes through a `**` dict display (kw37 F4,
attack36): `f(**{"x": 1})` got `x=5` added, a call that raises TypeError (got multiple values for
keyword argument 'x') at run time, and apply said "applied". A call passing the keyword through
`**{...}` or `**dict(...)` is no call to add it to; the refusal names the line and the `**` item.

Generated: how the `**` argument spells the keyword (a dict display with either quote, a
concatenated string, after another `**` item, `dict(...)`) x what else the call passes x whether
the spread names the keyword or another one (then the keyword is added, as before)."""

from __future__ import annotations

import ast
import itertools

import pytest

from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import check, refusal

SPREADS = ('**{"K": 1}', "**{'K': 1}", "**{'K' '': 1}", '**{**base, "K": 1}', "**dict(K=1)", '**{"z": 0, "K": 1}')
OTHERS = ((), ("a",), ("a", "b=2"), ("*xs",))
CASES = sample(list(itertools.product(SPREADS, OTHERS, ("x", "y"))))


def module(spread: str, others: tuple[str, ...], name: str) -> str:
    args = ", ".join([*others, spread.replace("K", name)])
    return f"def f(g, a, xs, base):\n    return g({args})\n"


@pytest.mark.parametrize(("spread", "others", "name"), CASES)
def test_a_keyword_passed_through_a_dict_display_is_not_added_again(
    spread: str, others: tuple[str, ...], name: str
) -> None:
    source = module(spread, others, name)
    op = SetKeyword("f", "g", "x", None, "5")
    if name == "x":
        said = refusal(source, op)
        assert "every call to `g` passes `x` already" in said, said
        assert "line 2: `x` through `**`" in said, said
        return
    # the spread names another keyword: `x=5` is added where set_keyword puts one (after `b=2`, else
    # before the `**`), the module is what `ast` says, and undoing it gives the bytes back (check)
    written = source.replace("b=2", "b=2, x=5") if "b=2" in others else source.replace("**", "x=5, **", 1)
    expected = ast.parse(source)
    call = expected.body[0].body[0].value  # type: ignore[attr-defined]
    named = [i for i, k in enumerate(call.keywords) if k.arg is not None]
    call.keywords.insert(named[-1] + 1 if named else 0, ast.keyword("x", ast.Constant(5)))
    assert ast.dump(ast.parse(written)) == ast.dump(expected)
    check(source, op, written)

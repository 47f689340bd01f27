"""A `set_keyword` with `header:` (a keyword of a call in a definition's decorators or defaults) is
checked for overlaps as the code it changes: inside the decorator list `replace_decorator` rewrites,
beside the body `replace_body` rewrites. Oracle: both orders run on the module text; two rewrites
must meet (touching.meet) exactly when the orders disagree or one fails to match."""

from __future__ import annotations

import itertools

import pytest

from radpatch.errors import RefusedError
from radpatch.prove.overlaps.touching import meet
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.decorators import ReplaceDecorator
from radpatch.rewrite.ops.replace_body import ReplaceBody
from radpatch.rewrite.ops.set_default import SetDefault
from radpatch.rewrite.ops.set_keyword import SetKeyword
from radpatch.rewrite.source import Source

MODULE = """\
import functools


@functools.lru_cache(maxsize=8)
def f(x=dict(a=1)):
    return x
"""
KEYWORDS = {
    "decorator": SetKeyword("f", "functools.lru_cache", "maxsize", from_="8", to="16", header="decorators"),
    "default": SetKeyword("f", "dict", "a", from_="1", to="2", header="defaults"),
}
OTHERS = {
    "replace_decorator": ReplaceDecorator("f", "functools.lru_cache(maxsize=8)", "functools.lru_cache(maxsize=32)"),
    "replace_body": ReplaceBody("f", "return x", "return [x]"),
    "set_default": SetDefault("f", "x", "dict(a=1)", "dict(a=3)"),
}


def _run(first: Operation, then: Operation) -> str | None:
    try:
        return then.forward(first.forward(Source.parse(MODULE))).text
    except RefusedError:
        return None


@pytest.mark.parametrize(("keyword", "other"), list(itertools.product(KEYWORDS, OTHERS)))
def test_a_header_keyword_meets_exactly_what_it_does_not_commute_with(keyword: str, other: str) -> None:
    a, b = KEYWORDS[keyword], OTHERS[other]
    one, two = _run(a, b), _run(b, a)
    commute = one is not None and one == two
    met = [meet(x, y) for x in a.touches() for y in b.touches()]
    assert any(m is not None for m in met) != commute, (keyword, other, one, two, met)

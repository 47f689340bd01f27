"""replace of an expression whose `find` and `with` differ in parentheses or precedence: the
patched code means `with` in the place of `find` (parentheses added where the place needs them,
kept where `with` writes them, dropped where only `find` needed them), and the inverse finds
what it wrote and gives back the file's bytes. Generated: expressions of every precedence level
in places of every binding strength."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.rewrite.ops.replace import Replace
from tests.lib.generated import examples, turn_seed
from tests.lib.rewrites import check

PLACES = (  # `{}` is where the expression sits
    "return {}",
    "return x * {}",
    "return {} * x",
    "return -{}",
    "return {} ** 2",
    "return 2 ** {}",
    "return not {}",
    "return {}[0]",
    "return {}.real",
    "return f({})",
    "return [{}, 1]",
    "return x if {} else y",
    "return {} if x else y",
    "return x - {}",
    "return x and {}",
    "return {} < x",
    "y = {}",
    "return await_({})",
)

EXPRESSIONS = (
    "a",
    "a + b",
    "a * b",
    "a * (b + c)",
    "(a + b) * 2",
    "a - (b - c)",
    "a ** b",
    "-a",
    "a or b",
    "a and b",
    "not a",
    "a if b else c",
    "lambda: a",
    "a < b",
    "f(a)",
    "a[0]",
    "a.real",
    "(a, b)",
)


def _in(place: str, expr: str) -> str:
    """`expr` in `place`, with only the parentheses the place needs (as a person would write it)."""
    want = ast.dump(ast.parse(place.format(f"({expr})")))
    bare = [expr[1:-1]] if expr.startswith("(") and expr.endswith(")") else []
    for candidate in [*bare, expr]:
        try:
            if ast.dump(ast.parse(place.format(candidate))) == want:
                return place.format(candidate)
        except SyntaxError:
            continue
    return place.format(f"({expr})")


def _function(line: str) -> str:
    return f"def g(a, b, c, x, y, f, await_):\n    {line}\n"


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # `(lambda: a)[0]` compiles, with a warning
# a sampled run (tests/lib/generated.py) searches 1/RADPATCH_TEST_SAMPLE of the examples, its own
# share on each of 3.10-3.13 (turn_seed); unsampled (pytest by hand, one interpreter), all 300
@settings(max_examples=examples(300), deadline=None, derandomize=True)
@turn_seed()
@given(st.sampled_from(PLACES), st.sampled_from(EXPRESSIONS), st.sampled_from(EXPRESSIONS))
def test_a_replaced_expression_means_with_in_its_place_and_reverts(place: str, find: str, with_: str) -> None:
    if ast.dump(ast.parse(find)) == ast.dump(ast.parse(with_)):
        return
    before = _function(_in(place, find))
    after = _function(_in(place, with_))
    check(before, Replace("g", find, with_), after)


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
@given(st.sampled_from(PLACES), st.sampled_from(EXPRESSIONS), st.sampled_from(EXPRESSIONS))
def test_parentheses_the_file_writes_without_need_are_kept(place: str, find: str, with_: str) -> None:
    tuples = [e for e in (find, with_) if isinstance(ast.parse(e, mode="eval").body, ast.Tuple)]
    if ast.dump(ast.parse(find)) == ast.dump(ast.parse(with_)) or place.startswith("return f(") or tuples:
        return  # (a tuple's parentheses are its own)
    before = _function(place.format(f"({find})"))
    after = _function(place.format(f"({with_})"))
    if any(_in(place, e) == place.format(f"({e})") for e in (find, with_)):
        return  # the place needs them for one side: they are that side's (dropped or added with it)
    check(before, Replace("g", find, with_), after)


def test_the_issue_cases() -> None:
    check(_function("return a * b"), Replace("g", "a * b", "a * (b + c)"), _function("return a * (b + c)"))
    check(_function("return a + b"), Replace("g", "a + b", "(a + b) * 2"), _function("return (a + b) * 2"))
    check(_function("return x * a"), Replace("g", "a", "b + c"), _function("return x * (b + c)"))
    check(_function("return x * (b + c)"), Replace("g", "b + c", "a"), _function("return x * a"))

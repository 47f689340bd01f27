"""A line holding several `;`-separated statements: an operation that finds one of them changes
that one or is refused, never its neighbour (`set_constant MAX_TOKENS` on `MIN_TOKENS = 16;
MAX_TOKENS = 16` once changed MIN_TOKENS). Generated: lines of 2 to 4 statements, the target at
each place, every statement-finding operation."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.rewrite.ops.bodies import WrapBody
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.rewrites import check, refuse

NAMES = ("MIN_TOKENS", "MAX_TOKENS", "LIMIT", "RETRIES")


@st.composite
def lines(draw: st.DrawFn) -> tuple[list[str], list[int], int]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True))
    values = draw(st.lists(st.sampled_from((16, 16, 3)), min_size=len(names), max_size=len(names)))
    return names, values, draw(st.integers(0, len(names) - 1))


def _line(names: list[str], values: list[int], spaced: bool) -> str:
    return (";  " if spaced else "; ").join(f"{n} = {v}" for n, v in zip(names, values))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(lines(), st.booleans(), st.sampled_from(("", "import os\n", '"""Doc."""\n')))
def test_set_constant_changes_the_statement_it_names_on_its_line(
    case: tuple[list[str], list[int], int], spaced: bool, head: str
) -> None:
    names, values, k = case
    before = f"{head}{_line(names, values, spaced)}\nX = 1\n"
    after_values = [*values[:k], 99, *values[k + 1 :]]
    check(before, SetConstant(names[k], "99", str(values[k])), f"{head}{_line(names, after_values, spaced)}\nX = 1\n")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(lines())
def test_a_new_constant_reading_a_name_of_a_shared_line_goes_below_the_whole_line(
    case: tuple[list[str], list[int], int],
) -> None:
    names, values, k = case
    line = _line(names, values, False)
    check(
        f"import os\n{line}\n\n\ndef f():\n    pass\n",
        SetConstant("NEW", f"{names[k]} + 1"),
        f"import os\n{line}\nNEW = {names[k]} + 1\n\n\ndef f():\n    pass\n",
    )


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    lines(),
    st.sampled_from(("f", "<module>")),
    st.sampled_from(("replace", "delete", "insert_after", "insert_before")),
)
def test_statement_operations_refuse_one_statement_of_a_shared_line(
    case: tuple[list[str], list[int], int], scope: str, kind: str
) -> None:
    names, values, k = case
    line = _line(names, values, False)
    before = f"def f():\n    {line}\n    return 0\n" if scope == "f" else f"{line}\n"
    find = f"{names[k]} = {values[k]}"
    op = {
        "replace": Replace(scope, find, f"{names[k]} = 0"),
        "delete": Delete(scope, find),
        "insert_after": InsertStatements(scope, find, "pass", "after"),
        "insert_before": InsertStatements(scope, find, "pass", "before"),
    }[kind]
    exc = refuse(before, op)
    assert "not on a line of its own" in exc.message and "`;`" in exc.message, exc.message
    assert "whole statement" in exc.hint


@settings(max_examples=30, deadline=None, derandomize=True)
@given(lines(), st.sampled_from(("replace", "delete")))
def test_the_whole_shared_line_as_find_is_changed(case: tuple[list[str], list[int], int], kind: str) -> None:
    names, values, _ = case
    line = _line(names, values, False)
    before = f"def f():\n    {line}\n    return 0\n"
    if kind == "replace":
        check(before, Replace("f", line, "X = 0"), "def f():\n    X = 0\n    return 0\n")
    else:
        check(before, Delete("f", line), f"def f():\n    # radpatch: deleted: {line}\n    return 0\n")


@given(st.sampled_from(("x = 1; __body__", "if x: __body__", "with x: __body__", "__body__; y = 2")))
@settings(max_examples=10, deadline=None, derandomize=True)
def test_wrap_body_with_the_body_on_a_shared_line_is_refused(template: str) -> None:
    exc = refuse("def f(x):\n    return x\n", WrapBody("f", template))
    assert "shares line 1 of the template" in exc.message and "line of its own" in exc.message
    ast.parse(template)  # the template itself is valid Python: only its `__body__` placement is refused

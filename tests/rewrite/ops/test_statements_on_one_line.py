"""A line holding several `;`-separated statements: an operation that finds one of them changes
that one or is refused, never its neighbour (`set_constant MAX_TOKENS` on `MIN_TOKENS = 16;
MAX_TOKENS = 16` once changed MIN_TOKENS). Generated: lines of 2 to 4 statements, the target at
each place, every statement-finding operation."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from radpatch.rewrite.ops.wrap_body import WrapBody
from tests.lib.generated import examples, turn_seed
from tests.lib.rewrites import check, refuse

NAMES = ("MIN_TOKENS", "MAX_TOKENS", "LIMIT", "RETRIES")


@st.composite
def lines(draw: st.DrawFn) -> tuple[list[str], list[int], int]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True))
    values = draw(st.lists(st.sampled_from((16, 16, 3)), min_size=len(names), max_size=len(names)))
    return names, values, draw(st.integers(0, len(names) - 1))


def _line(names: list[str], values: list[int], spaced: bool) -> str:
    return (";  " if spaced else "; ").join(f"{n} = {v}" for n, v in zip(names, values))


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
@given(lines(), st.booleans(), st.sampled_from(("", "import os\n", '"""Doc."""\n')))
def test_set_constant_changes_the_statement_it_names_on_its_line(
    case: tuple[list[str], list[int], int], spaced: bool, head: str
) -> None:
    names, values, k = case
    before = f"{head}{_line(names, values, spaced)}\nX = 1\n"
    after_values = [*values[:k], 99, *values[k + 1 :]]
    check(before, SetConstant(names[k], "99", str(values[k])), f"{head}{_line(names, after_values, spaced)}\nX = 1\n")


@settings(max_examples=examples(40), deadline=None, derandomize=True)
@turn_seed()
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


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
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
    assert "whole line" in exc.hint and f"`{line}`" in exc.hint, exc.hint


@settings(max_examples=examples(30), deadline=None, derandomize=True)
@turn_seed()
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
@settings(max_examples=examples(10), deadline=None, derandomize=True)
@turn_seed()
def test_wrap_body_with_the_body_on_a_shared_line_is_refused(template: str) -> None:
    exc = refuse("def f(x):\n    return x\n", WrapBody("f", template))
    assert "shares line 1 of the template" in exc.message and "line of its own" in exc.message
    ast.parse(template)  # the template itself is valid Python: only its `__body__` placement is refused


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[list[str]], int, int]:
    """Lines of 1 to 3 `;`-separated statements (at least one line holds several), and a run of 2 or
    more consecutive statements (start, length) that starts or ends inside a line."""
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).filter(lambda s: max(s) > 1 and sum(s) > 2))
    rows, n = [], 0
    for size in sizes:
        rows.append([f"V{n + j} = {n + j}" for j in range(size)])
        n += size
    firsts = {sum(sizes[:i]) for i in range(len(sizes))}
    lasts = {sum(sizes[: i + 1]) - 1 for i in range(len(sizes))}
    spans = [(s, k) for s in range(n) for k in range(2, n - s + 1) if not (s in firsts and s + k - 1 in lasts)]
    start, length = draw(st.sampled_from(spans))
    return rows, start, length


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
@given(runs(), st.sampled_from(("f", "<module>")), st.sampled_from(("replace", "delete", "insert_after")))
def test_a_run_of_statements_starting_or_ending_inside_a_line_is_refused_naming_the_line(
    case: tuple[list[list[str]], int, int], scope: str, kind: str
) -> None:
    """Issue 21: `find: "a = 1\\nb = 2"` on `x = 0; a = 1; b = 2` was refused as 'nothing similar'.
    The refusal names the line and the whole lines to find instead; finding them works, byte for byte."""
    rows, start, length = case
    texts = ["; ".join(r) for r in rows]
    flat = [(i, s) for i, r in enumerate(rows) for s in r]
    find = "\n".join(s for _, s in flat[start : start + length])
    first, last = flat[start][0], flat[start + length - 1][0]
    indent, top = ("    ", 2) if scope == "f" else ("", 1)
    body = "".join(f"{indent}{t}\n" for t in texts)
    before = f"def f():\n{body}    return 0\n" if scope == "f" else body
    op = {
        "replace": Replace(scope, find, "X = 0"),
        "delete": Delete(scope, find),
        "insert_after": InsertStatements(scope, find, "pass", "after"),
    }[kind]
    exc = refuse(before, op)
    assert f"it is at line {top + first}, but not on lines of its own" in exc.message, exc.message
    assert "`;`" in exc.message and "\n" not in exc.message, exc.message
    wanted = f"`{texts[first]}`" if first == last else f"lines {top + first}-{top + last}"
    assert wanted in exc.hint, exc.hint
    whole = "\n".join(texts[first : last + 1])
    rest = [*texts[:first], "X = 0", *texts[last + 1 :]]
    after_body = "".join(f"{indent}{t}\n" for t in rest)
    after = f"def f():\n{after_body}    return 0\n" if scope == "f" else after_body
    check(before, Replace(scope, whole, "X = 0"), after)

"""insert_after and insert_before (radpatch/rewrite/ops/insert_statements.py): code placed beside the
statement `find` names.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import pytest

from radpatch.rewrite.ops.insert_statements import InsertStatements
from tests.lib.rewrites import check, refusal
from tests.lib.sources import CLASS, LOOP, TWO, loop_with


def test_insert_into_a_nested_class_body() -> None:
    check(
        CLASS,
        InsertStatements("Outer.Config", "timeout = 10", "backoff = 2.0", "after"),
        """\
        class Outer:
            class Config:
                retries = 3
                timeout = 10
                backoff = 2.0

            def method(self):
                x = 1
                return x
        """,
    )


INSERT_IN_THE_LOOP = {  # the op -> LOOP's statement `line` made `lines`
    "after a statement nested in for and if": (
        InsertStatements("f", "total += x", "print(x)", "after"),
        "total += x  # add",
        "total += x  # add\nprint(x)",
    ),
    "before a statement nested in else": (
        InsertStatements("f", "total -= x", "x = -x\nx = abs(x)", "before"),
        "total -= x",
        "x = -x\nx = abs(x)\ntotal -= x",
    ),
    "after a top-level statement of the function": (
        InsertStatements("f", "total = 0", "seen = []", "after"),
        "total = 0",
        "total = 0\nseen = []",
    ),
    "before return": (
        InsertStatements("f", "return total", "print(total)", "before"),
        "return total",
        "print(total)\nreturn total",
    ),
}


@pytest.mark.parametrize("case", list(INSERT_IN_THE_LOOP))
def test_insert_in_the_loop(case: str) -> None:
    op, line, lines = INSERT_IN_THE_LOOP[case]
    check(LOOP, op, loop_with(line, lines))


def test_insert_after_a_compound_statement_found_by_its_whole_code() -> None:
    before = """\
        def pick(max_num_layers, min_num_layers):
            group_size = min_num_layers
            if max_num_layers < min_num_layers * 1.5:
                group_size = max_num_layers
            return group_size
        """
    find = "if max_num_layers < min_num_layers * 1.5:\n    group_size = max_num_layers\n"
    check(
        before,
        InsertStatements("pick", find, "group_size = min(group_size, 8)", "after"),
        """\
        def pick(max_num_layers, min_num_layers):
            group_size = min_num_layers
            if max_num_layers < min_num_layers * 1.5:
                group_size = max_num_layers
            group_size = min(group_size, 8)
            return group_size
        """,
    )


def test_insert_in_a_nested_function_scope() -> None:
    check(
        """\
        def outer(n):
            def inner(k):
                return k
            return inner(n)
        """,
        InsertStatements("outer.inner", "return k", "k += 1", "before"),
        """\
        def outer(n):
            def inner(k):
                k += 1
                return k
            return inner(n)
        """,
    )


def test_insert_in_a_method_scope() -> None:
    check(
        """\
        class C:
            def m(self, k):
                return k
        """,
        InsertStatements("C.m", "return k", "k += 1", "before"),
        """\
        class C:
            def m(self, k):
                k += 1
                return k
        """,
    )


def test_insert_missing_anchor_names_scope_and_closest_candidate() -> None:
    message = refusal(LOOP, InsertStatements("f", "total *= x", "pass", "after"))
    assert "statement `find` not found in f" in message
    assert "closest candidate (line 5" in message and "total += x" in message


def test_insert_missing_scope_names_the_closest_function() -> None:
    message = refusal(LOOP, InsertStatements("g_f", "total = 0", "pass", "after"))
    assert "scope 'g_f'" in message


def test_insert_ambiguous_anchor() -> None:
    source = "def f(a):\n    a += 1\n    if a:\n        a += 1\n    return a\n"
    message = refusal(source, InsertStatements("f", "a += 1", "pass", "after"))
    assert "matches 2 times in f (ambiguous): lines 2, 4" in message


def test_insert_after_a_find_of_two_statements_goes_after_the_last() -> None:
    check(
        TWO,
        InsertStatements("f", "a = 1\nb = 2", "c = 3", "after"),
        "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return a + b\n",
    )


def test_insert_before_a_find_typed_with_a_semicolon() -> None:
    check(
        TWO,
        InsertStatements("f", "a = 1; b = 2", "c = 3", "before"),
        "def f(x):\n    c = 3\n    a = 1\n    b = 2\n    return a + b\n",
    )


def test_insert_before_a_module_statement_after_a_def_keeps_the_blank_lines_above_the_new_code() -> None:
    # the study's reasoning-parser registration: the new line is not glued to the def's body
    check(
        """\
        TABLE = {}


        def register():
            return TABLE


        # register them
        register()
        """,
        InsertStatements("<module>", "register()", 'TABLE["x"] = 1', "before"),
        """\
        TABLE = {}


        def register():
            return TABLE


        TABLE["x"] = 1
        # register them
        register()
        """,
    )
    # not after a def: unchanged, the blank lines stay with the statement `find` names
    check("X = 1\n\nY = 2\n", InsertStatements("<module>", "Y = 2", "Z = 3", "before"), "X = 1\nZ = 3\n\nY = 2\n")

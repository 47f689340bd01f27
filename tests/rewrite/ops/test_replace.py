"""replace (radpatch/rewrite/ops/replace.py): a statement or an expression replaced where `find`
matches it.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import pytest

from radpatch.rewrite.ops.replace import Replace
from tests.lib.rewrites import check, refusal
from tests.lib.sources import CLASS, LOOP, TWO, loop_with


def test_replace_in_a_class_body_and_in_a_method() -> None:
    check(
        CLASS,
        (Replace("Outer.Config", "retries = 3", "retries = 5"), Replace("Outer.method", "x = 1", "x = 2\ny = x")),
        """\
        class Outer:
            class Config:
                retries = 5
                timeout = 10

            def method(self):
                x = 2
                y = x
                return x
        """,
    )


REPLACE_IN_THE_LOOP = {  # the op -> LOOP's statement `line` made `lines`
    "a statement": (Replace("f", "total -= x", "total -= 2 * x"), "total -= x", "total -= 2 * x"),
    "a statement by two": (
        Replace("f", "return total", "total = round(total)\nreturn total"),
        "return total",
        "total = round(total)\nreturn total",
    ),
}


@pytest.mark.parametrize("case", list(REPLACE_IN_THE_LOOP))
def test_replace_in_the_loop(case: str) -> None:
    op, line, lines = REPLACE_IN_THE_LOOP[case]
    check(LOOP, op, loop_with(line, lines))


def test_replace_an_expression_adds_an_argument_to_a_call() -> None:
    check(
        """\
        def get_groups(filtered_spec, vllm_config):
            groups = _uniform_page_size(filtered_spec)
            return groups
        """,
        Replace("get_groups", "_uniform_page_size(filtered_spec)", "_uniform_page_size(filtered_spec, vllm_config)"),
        """\
        def get_groups(filtered_spec, vllm_config):
            groups = _uniform_page_size(filtered_spec, vllm_config)
            return groups
        """,
    )


def test_replace_an_expression_keeps_its_parentheses() -> None:
    check(
        "def f(a):\n    return (g(a))\n",
        Replace("f", "g(a)", "g(a, 1)"),
        "def f(a):\n    return (g(a, 1))\n",
    )


def test_replace_at_module_scope_inside_an_if() -> None:
    check(
        "x = compute(1)\nif DEBUG:\n    x = compute(2)\n",
        Replace("<module>", "compute(2)", "compute(2, debug=True)"),
        "x = compute(1)\nif DEBUG:\n    x = compute(2, debug=True)\n",
    )


def test_replace_ambiguous_expression() -> None:
    source = "def f(a):\n    b = g(a)\n    return g(a)\n"
    assert "matches 2 times in f" in refusal(source, Replace("f", "g(a)", "h(a)"))


def test_replace_missing_expression_shows_the_closest_call() -> None:
    message = refusal("def f(a):\n    return g(a, 1)\n", Replace("f", "g(a, 2)", "h(a)"))
    assert "expression `find` not found in f" in message and "g(a, 1)" in message


def test_replace_with_a_find_typed_with_a_semicolon_replaces_both_upstream_lines() -> None:
    check(
        TWO,
        Replace("f", "a = 1; b = 2", "a = 2\nb = 1"),
        "def f(x):\n    a = 2\n    b = 1\n    return a + b\n",
        exact=False,
    )


def test_replace_by_a_with_typed_with_a_semicolon_undoes() -> None:
    check(TWO, Replace("f", "a = 1\nb = 2", "a = 2; b = 1"), "def f(x):\n    a = 2; b = 1\n    return a + b\n")


def test_a_scope_through_a_definition_spelled_in_another_unicode_form_is_found() -> None:
    """att60 F03: `class Ｃ` binds `C` (Python reads names NFKC-normalised), and so does `scope: C.file`."""
    check(
        "class Ｃ:\n    def ﬁle(self):\n        return 1\n",
        Replace(scope="C.file", find="return 1", with_="return 2"),
        "class Ｃ:\n    def ﬁle(self):\n        return 2\n",
    )

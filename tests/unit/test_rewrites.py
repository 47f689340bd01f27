"""Each rewrite operation on literal sources: dedented `before` and `after`, whole modules compared.

Rewrites run through plan.plan, as the engine runs them: the result must compile, add no undefined
name and reverse to the original bytes; every case also runs the inverse (runner.backward) itself.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError
from radpatch.prove import plan, steps
from radpatch.registry.model import (
    Operation,
    Patch,
    Rewrite,
)
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace


def dedent(code: str) -> str:
    return textwrap.dedent(code)


def patch_of(*ops: Operation) -> Patch:
    rws = tuple(Rewrite(f"r{i}", "mod", None, op, f"test.yaml:{i + 1}") for i, op in enumerate(ops))
    return Patch(
        name="t",
        summary="t",
        description="t",
        distribution="toypkg",
        supported=SpecifierSet(""),
        obsolete=None,
        knobs=(),
        targets=(),
        rewrites=rws,
        source=Path("t.yaml"),
        digest="0",
    )


def check(before: str, op: Operation, after: str) -> None:
    """The patched module equals `after`, whole; undoing it gives `before` back byte for byte."""
    patch = patch_of(op)
    original = dedent(before).encode()
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
    assert change.after.decode() == dedent(after)
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == original


def refuse(before: str, op: Operation) -> str:
    patch = patch_of(op)
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), dedent(before).encode())
    return info.value.message


# --- insert_definitions ------------------------------------------------------------------------

PAYLOAD = dedent('''\
    """A payload is an ordinary module: its docstring and imports are not inserted."""

    import os


    def _rp_helper(x):
        return x + 1


    # a comment between definitions
    def _rp_glue(y):
        """Docstring kept."""
        return _rp_helper(y)
    ''').encode()

MODULE = """\
    import os


    def first():
        return 1


    # The anchor's own comment stays with it.
    def target(a):
        return a


    def last():
        return 3
    """


def defs(anchor: str, where: str) -> InsertDefinitions:
    return InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper", "_rp_glue"), anchor, where)  # type: ignore[arg-type]


def test_insert_definitions_before_a_named_def() -> None:
    check(
        MODULE,
        defs("target", "before"),
        '''\
        import os


        def first():
            return 1


        def _rp_helper(x):
            return x + 1


        def _rp_glue(y):
            """Docstring kept."""
            return _rp_helper(y)


        # The anchor's own comment stays with it.
        def target(a):
            return a


        def last():
            return 3
        ''',
    )


def test_insert_definitions_after_a_named_def() -> None:
    check(
        MODULE,
        defs("target", "after"),
        '''\
        import os


        def first():
            return 1


        # The anchor's own comment stays with it.
        def target(a):
            return a


        def _rp_helper(x):
            return x + 1


        def _rp_glue(y):
            """Docstring kept."""
            return _rp_helper(y)


        def last():
            return 3
        ''',
    )


def test_insert_definitions_after_the_last_def() -> None:
    check(
        MODULE,
        defs("last", "after"),
        '''\
        import os


        def first():
            return 1


        # The anchor's own comment stays with it.
        def target(a):
            return a


        def last():
            return 3


        def _rp_helper(x):
            return x + 1


        def _rp_glue(y):
            """Docstring kept."""
            return _rp_helper(y)
        ''',
    )


def test_insert_definitions_only_the_named_subset() -> None:
    op = InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "first", "before")
    check(
        "import os\n\n\ndef first():\n    return 1\n",
        op,
        "import os\n\n\ndef _rp_helper(x):\n    return x + 1\n\n\ndef first():\n    return 1\n",
    )


def test_insert_definitions_missing_anchor_names_the_closest() -> None:
    message = refuse(MODULE, defs("targte", "before"))
    assert "'targte' not found in the module" in message
    assert "closest: target" in message


def test_insert_definitions_refuses_to_shadow_an_existing_def() -> None:
    message = refuse(dedent(MODULE) + "\n\ndef _rp_glue():\n    pass\n", defs("target", "after"))
    assert "already binds '_rp_glue' (line 17)" in message


def test_insert_definitions_anchor_must_be_top_level() -> None:
    source = "class C:\n    def target(self):\n        pass\n"
    assert "'target' not found" in refuse(source, defs("target", "after"))


# --- add_parameter -----------------------------------------------------------------------------


def param(function: str = "f", name: str = "cfg", default: str = "None") -> AddParameter:
    return AddParameter(function, name, default)


def test_add_parameter_single_line_signature() -> None:
    check(
        """\
        def f(a: int) -> X:
            return a
        """,
        param(),
        """\
        def f(a: int, cfg=None) -> X:
            return a
        """,
    )


def test_add_parameter_ruff_style_multi_line_with_trailing_comma() -> None:
    check(
        """\
        def f(
            a: int,
            b: str = "x",
        ) -> X:
            return a
        """,
        param(),
        """\
        def f(
            a: int,
            b: str = "x",
            cfg=None,
        ) -> X:
            return a
        """,
    )


def test_add_parameter_multi_line_without_trailing_comma() -> None:
    check(
        """\
        def f(
            a: int,
            b: str
        ) -> X:
            return a
        """,
        param(),
        """\
        def f(
            a: int,
            b: str,
            cfg=None
        ) -> X:
            return a
        """,
    )


def test_add_parameter_keeps_a_comment_on_the_parameter_it_belongs_to() -> None:
    check(
        """\
        def f(
            a: int,  # the a
            b: str,  # the b
        ) -> X:
            return a
        """,
        param(),
        """\
        def f(
            a: int,  # the a
            b: str,  # the b
            cfg=None,
        ) -> X:
            return a
        """,
    )


def test_add_parameter_no_params() -> None:
    check("def f() -> X:\n    return 1\n", param(), "def f(cfg=None) -> X:\n    return 1\n")


def test_add_parameter_refuses_a_function_with_star_args() -> None:
    # `def f(a, cfg=None, *args)` would make an existing call f(1, 2) bind cfg=2
    message = refuse("def f(a, *args, k=1, **kw):\n    return a\n", param())
    assert "takes *args" in message and "change how existing calls bind" in message


def test_add_parameter_before_bare_star() -> None:
    check("def f(a, *, k):\n    return a\n", param(), "def f(a, cfg=None, *, k):\n    return a\n")


def test_add_parameter_only_kw_only() -> None:
    check("def f(*, k=1):\n    return k\n", param(), "def f(cfg=None, *, k=1):\n    return k\n")


def test_add_parameter_multi_line_only_kw_only() -> None:
    check(
        """\
        def f(
            *,
            k=1,
        ):
            return k
        """,
        param(),
        """\
        def f(
            cfg=None,
            *,
            k=1,
        ):
            return k
        """,
    )


def test_add_parameter_after_positional_only() -> None:
    check("def f(a, /):\n    return a\n", param(), "def f(a, /, cfg=None):\n    return a\n")


def test_add_parameter_to_a_method() -> None:
    check(
        """\
        class Planner:
            def plan(self, spec):
                return spec
        """,
        param("Planner.plan"),
        """\
        class Planner:
            def plan(self, spec, cfg=None):
                return spec
        """,
    )


def test_add_parameter_refuses_an_existing_name() -> None:
    assert "already has a parameter 'a'" in refuse("def f(a):\n    pass\n", param(name="a"))
    assert "already has a parameter 'rest'" in refuse("def f(*rest):\n    pass\n", param(name="rest"))


def test_add_parameter_missing_function_names_the_closest() -> None:
    message = refuse("def plan_groups(a):\n    pass\n", param("plan_group"))
    assert "'plan_group'" in message and "closest: plan_groups" in message


def test_add_parameter_ambiguous_function() -> None:
    source = "def f(a):\n    pass\n\n\ndef f(b):\n    pass\n"
    assert "defines 'f' 2 times (ambiguous: lines 1, 5)" in refuse(source, param())


# --- insert_after / insert_before --------------------------------------------------------------

LOOP = """\
    def f(items, flag):
        total = 0
        for x in items:
            if flag:
                total += x  # add
            else:
                total -= x
        return total
    """


def test_insert_after_a_statement_nested_in_for_and_if() -> None:
    check(
        LOOP,
        InsertStatements("f", "total += x", "print(x)", "after"),
        """\
        def f(items, flag):
            total = 0
            for x in items:
                if flag:
                    total += x  # add
                    print(x)
                else:
                    total -= x
            return total
        """,
    )


def test_insert_before_a_statement_nested_in_else() -> None:
    check(
        LOOP,
        InsertStatements("f", "total -= x", "x = -x\nx = abs(x)", "before"),
        """\
        def f(items, flag):
            total = 0
            for x in items:
                if flag:
                    total += x  # add
                else:
                    x = -x
                    x = abs(x)
                    total -= x
            return total
        """,
    )


def test_insert_after_a_top_level_statement_of_the_function() -> None:
    check(
        LOOP,
        InsertStatements("f", "total = 0", "seen = []", "after"),
        """\
        def f(items, flag):
            total = 0
            seen = []
            for x in items:
                if flag:
                    total += x  # add
                else:
                    total -= x
            return total
        """,
    )


def test_insert_before_return() -> None:
    check(
        LOOP,
        InsertStatements("f", "return total", "print(total)", "before"),
        """\
        def f(items, flag):
            total = 0
            for x in items:
                if flag:
                    total += x  # add
                else:
                    total -= x
            print(total)
            return total
        """,
    )


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


def refuse_all(before: str, *ops: Operation) -> str:
    patch = patch_of(*ops)
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), dedent(before).encode())
    return info.value.message


def test_a_later_rewrites_miss_is_reported_on_the_files_own_lines_with_its_closest_candidate() -> None:
    # r0 adds three lines above the code r1 looks for: r1's refusal counts the file's lines
    message = refuse_all(
        LOOP,
        InsertStatements("f", "total = 0", "a = 1\nb = 2\nc = 3", "before"),
        InsertStatements("f", "total *= x", "pass", "after"),
    )
    assert "rewrite 'r1'" in message and "statement `find` not found in f" in message
    assert "closest candidate (line 5, " in message and "total += x" in message
    assert "not searched" not in message


def test_a_rewrite_that_matches_the_file_but_not_what_earlier_rewrites_made_of_it_says_so() -> None:
    # r0 changes the statement r1 anchors on: r1 matches the file, not r0's result
    message = refuse_all(
        LOOP,
        InsertStatements("f", "total = 0", "a = 1\nb = 2", "before"),
        Replace("f", "total -= x", "total -= 2 * x"),
        InsertStatements("f", "total -= x", "pass", "after"),
    )
    assert (
        "rewrite 'r2'" in message and "after the rewrites before it; line numbers count the lines they added" in message
    )
    assert "closest candidate (line 7, " in message and "total += x" in message  # line 5, two lines added
    assert "not searched" not in message


@pytest.mark.parametrize(
    "line",
    [
        "return [x * 2 for x in y]",
        "return {'k': (x * 2)}",
        "return f(a, b=x * 2)",
        "return y[x * 2]",
        "return lambda: x * 2",
        "return a if c else x * 2",
        "return f'{x * 2}'",
        "return (  # a comment\n        x * 2\n    )",
        "with g(x * 2) as h:\n        return h",
        "try:\n        pass\n    except E:\n        return x * 2",
        "match y:\n        case [z]:\n            return x * 2",
    ],
)
def test_an_expression_is_found_wherever_it_sits_in_the_scope(line: str) -> None:
    before = f"def f(x, y, a, c):\n    {line}\n"
    check(before, Replace("f", "x * 2", "x * 3"), before.replace("x * 2", "x * 3"))


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("def f(x):\n    if x: return 1\n    return 0\n", 2),
        ("def f(x):\n    z = 0; return 1\n", 2),
        ("def f(x):\n    return 1; z = 0\n", 2),
        ("def f(x):\n    for y in x:\n        while y: return 1\n    return 0\n", 3),
    ],
)
def test_a_statement_that_shares_its_line_is_refused_with_where_it_is(source: str, line: int) -> None:
    for op in (Replace("f", "return 1", "return 2"), InsertStatements("f", "return 1", "pass", "before")):
        patch = patch_of(op)
        with pytest.raises(RefusedError) as info:
            plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), dedent(source).encode())
        assert "statement `find` not found in f" in info.value.message
        assert f"it is at line {line}, but not on a line of its own" in info.value.message
        assert info.value.hint.startswith(
            "statements match as whole lines: make `find` the whole statement it is part of"
        )


def test_a_string_find_matches_the_same_string_written_out_in_pieces() -> None:
    patch = patch_of(Replace("f", '"hello world"', '"hi"'))
    before = b'def f():\n    return ("hello " "world")\n'
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before)
    assert change.after == b'def f():\n    return ("hi")\n'
    assert steps.ast_equal(
        runner.backward(patch, patch.rewrites, change.after, "mod.py"), before
    )  # revert writes the kept bytes


def test_a_string_candidate_is_shown_as_the_string_it_is() -> None:
    message = refuse('def f():\n    return "hello wrld"\n', Replace("f", '"hello world"', '"hi"'))
    assert "closest candidate (line 2, " in message and "'hello wrld'" in message and '"""' not in message


def test_a_field_of_an_f_string_in_a_concatenation_is_rewritten() -> None:
    check(
        'def greet(name):\n    return f"Hello {name}" "!"\n',
        Replace("greet", "name", "name.title()"),
        'def greet(name):\n    return f"Hello {name.title()}" "!"\n',
    )


NESTED_FIRST = "def f(c):\n    if c:\n        total = 0\n    total = 0\n    return total\n"


@pytest.mark.parametrize(("nth", "line"), [(1, 3), (2, 4)])
def test_occurrence_counts_statements_in_source_order(nth: int, line: int) -> None:
    lines = NESTED_FIRST.splitlines(keepends=True)
    indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    patch = patch_of(InsertStatements("f", "total = 0", "print(total)", "after", occurrence=nth))
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), NESTED_FIRST.encode()).after.decode()
    assert after == "".join([*lines[:line], f"{indent}print(total)\n", *lines[line:]])
    patch = patch_of(Replace("f", "total = 0", "total = 1", occurrence=nth))
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), NESTED_FIRST.encode()).after.decode()
    assert after.splitlines()[line - 1].strip() == "total = 1" and after.count("total = 1") == 1
    patch = patch_of(Delete("f", "total = 0", occurrence=nth))
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), NESTED_FIRST.encode()).after.decode()
    assert "radpatch: deleted" in after.splitlines()[line - 1]
    assert [n for n, text in enumerate(after.splitlines(), 1) if text.strip() == "total = 0"] == [
        7 - line
    ]  # the other one


def test_an_ambiguous_statement_lists_its_lines_in_source_order() -> None:
    assert "lines 3, 4" in refuse(NESTED_FIRST, Replace("f", "total = 0", "total = 1"))


def test_find_does_not_reach_into_a_nested_def() -> None:
    source = "def outer(n):\n    def inner(k):\n        return k\n    return inner(n)\n"
    message = refuse(source, InsertStatements("outer", "return k", "k += 1", "before"))
    assert "not found in outer" in message


def test_insert_missing_anchor_names_scope_and_closest_candidate() -> None:
    message = refuse(LOOP, InsertStatements("f", "total *= x", "pass", "after"))
    assert "statement `find` not found in f" in message
    assert "closest candidate (line 5" in message and "total += x" in message


def test_insert_missing_scope_names_the_closest_function() -> None:
    message = refuse(LOOP, InsertStatements("g_f", "total = 0", "pass", "after"))
    assert "scope 'g_f'" in message


def test_insert_ambiguous_anchor() -> None:
    source = "def f(a):\n    a += 1\n    if a:\n        a += 1\n    return a\n"
    message = refuse(source, InsertStatements("f", "a += 1", "pass", "after"))
    assert "matches 2 times in f (ambiguous): lines 2, 4" in message


# --- replace -----------------------------------------------------------------------------------


def test_replace_a_statement() -> None:
    check(
        LOOP,
        Replace("f", "total -= x", "total -= 2 * x"),
        """\
        def f(items, flag):
            total = 0
            for x in items:
                if flag:
                    total += x  # add
                else:
                    total -= 2 * x
            return total
        """,
    )


def test_replace_a_statement_by_two() -> None:
    check(
        LOOP,
        Replace("f", "return total", "total = round(total)\nreturn total"),
        """\
        def f(items, flag):
            total = 0
            for x in items:
                if flag:
                    total += x  # add
                else:
                    total -= x
            total = round(total)
            return total
        """,
    )


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
    assert "matches 2 times in f" in refuse(source, Replace("f", "g(a)", "h(a)"))


def test_replace_missing_expression_shows_the_closest_call() -> None:
    message = refuse("def f(a):\n    return g(a, 1)\n", Replace("f", "g(a, 2)", "h(a)"))
    assert "expression `find` not found in f" in message and "g(a, 1)" in message


# --- formatting-insensitive matching -----------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("def f(\n    a: int,\n) -> X:\n    return a\n", "def f(\n    a: int,\n    cfg=None,\n) -> X:\n    return a\n"),
        ("def f(a: int) -> X:  # note\n    return a\n", "def f(a: int, cfg=None) -> X:  # note\n    return a\n"),
    ],
    ids=["multi-line", "trailing-comment"],
)
def test_same_add_parameter_matches_any_layout(before: str, after: str) -> None:
    check(before, param(), after)


FIND_CALL = "x = g(a, b)"


@pytest.mark.parametrize(
    "statement",
    [
        "    x = g(a, b)\n",
        "    x = g(\n        a,\n        b,\n    )\n",
        "    x = g(a,  # first\n          b)  # second\n",
        "    x = (g((a), b))\n",
        "    x = \\\n        g(a, b)\n",
    ],
    ids=["plain", "exploded", "comments", "parenthesised", "backslash"],
)
def test_find_ignores_line_breaks_comments_and_parentheses(statement: str) -> None:
    before = "def f(a, b):\n" + statement + "    return x\n"
    after = "def f(a, b):\n" + statement + "    x += 1\n    return x\n"
    check(before, InsertStatements("f", FIND_CALL, "x += 1", "after"), after)


def test_expression_replace_matches_a_call_laid_out_differently() -> None:
    # `find` matches the exploded, commented call; the engine must then be able to undo its edit
    before = """\
        def f(spec, cfg):
            out = helper(
                spec,  # the spec
            )
            return out
        """
    after = plan_after(before, Replace("f", "helper(spec)", "helper(spec, cfg)"))
    assert ast.dump(ast.parse(after)) == ast.dump(
        ast.parse("def f(spec, cfg):\n    out = helper(spec, cfg)\n    return out\n")
    )


def test_statement_replace_matches_a_line_with_a_trailing_comment() -> None:
    # `find` matches `total += x  # add` whatever the comment; the engine must then be able to undo
    after = plan_after(LOOP, Replace("f", "total += x", "total = total + x"))
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(dedent(LOOP).replace("total += x", "total = total + x")))


@pytest.mark.parametrize(
    "statement",
    [
        "    x = (g(a))\n",
        "    x = g(\n        a,\n    )\n",
        "    x = g(a,  # the a\n          )\n",
    ],
    ids=["parenthesised", "exploded", "commented"],
)
def test_statement_replace_matches_a_statement_laid_out_differently(statement: str) -> None:
    before = "def f(a, g):\n" + statement + "    return x\n"
    after = plan_after(before, Replace("f", "x = g(a)", "x = g(a, 1)"))
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse("def f(a, g):\n    x = g(a, 1)\n    return x\n"))


def test_compound_statement_replace_with_a_comment_on_its_header() -> None:
    before = "def f(a):\n    if a > 1:  # big\n        a = 1\n    return a\n"
    after = plan_after(before, Replace("f", "if a > 1:\n    a = 1", "if a > 2:\n    a = 2"))
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse("def f(a):\n    if a > 2:\n        a = 2\n    return a\n"))


def plan_after(before: str, op: Replace) -> str:
    """Plan (and so prove) `op` on `before`; return the patched text after checking the undo."""
    patch = patch_of(op)
    original = dedent(before).encode()
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == original
    return change.after.decode()


def test_find_does_not_match_different_code() -> None:
    # parentheses that change the tree are not formatting
    source = "def f(a, b, c):\n    x = (a + b) * c\n    return x\n"
    message = refuse(source, InsertStatements("f", "x = a + b * c", "pass", "after"))
    assert "not found in f" in message


# --- files as they are installed ---------------------------------------------------------------


def plan_bytes(before: bytes, op: Operation) -> bytes:
    patch = patch_of(op)
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before)
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == before
    return change.after


@pytest.mark.parametrize(
    "op",
    [
        InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "f", "before"),
        InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "f", "after"),
        AddParameter("f", "cfg", "None"),
        InsertStatements("f", "x = 1", "y = 2", "after"),
        Replace("f", "x = 1", "x = 2"),
    ],
    ids=["defs-before", "defs-after", "add-parameter", "insert-after", "replace"],
)
def test_crlf_files_keep_crlf_line_endings(op: Operation) -> None:
    before = b"import os\r\n\r\n\r\ndef f(a):\r\n    x = 1\r\n    return a\r\n\r\n\r\nZ = 1\r\n"
    after = plan_bytes(before, op)
    assert after != before
    assert after.count(b"\n") == after.count(b"\r\n"), after


def test_insert_definitions_after_the_last_def_of_a_file_without_final_newline() -> None:
    before = b"import os\n\n\ndef f(a):\n    return a"
    after = plan_bytes(before, InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "f", "after"))
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(before + b"\n\n\ndef _rp_helper(x):\n    return x + 1\n"))


def test_a_latin_1_file_stays_latin_1() -> None:
    before = "# -*- coding: latin-1 -*-\nNAME = 'café'\n\n\ndef f(a):\n    return a\n".encode("latin-1")
    after = plan_bytes(before, AddParameter("f", "cfg", "None"))
    assert after == before.replace(b"def f(a):", b"def f(a, cfg=None):")


@pytest.mark.parametrize("module_newline", ["\n", "\r\n"])
def test_a_crlf_or_latin1_payload_takes_the_target_files_line_endings(module_newline: str) -> None:
    crlf = PAYLOAD.replace(b"\n", b"\r\n")
    latin1 = b"# -*- coding: latin-1 -*-\n" + PAYLOAD.replace(b"Docstring kept.", b"Docstring kept \xe9.")
    for payload in (crlf, latin1):
        op = InsertDefinitions(Path("payload.py"), payload, ("_rp_helper", "_rp_glue"), "target", "after")
        patch = patch_of(op)
        original = dedent(MODULE).replace("\n", module_newline).encode()
        change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
        lines = change.after.split(b"\n")[:-1]
        assert all(line.endswith(b"\r") == (module_newline == "\r\n") for line in lines)
        assert b"\r\r" not in change.after

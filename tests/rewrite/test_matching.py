"""Finding what a rewrite names (radpatch/rewrite/matching.py): `find` in any layout, `within`,
`occurrence`, ambiguity and misses reported with lines and the closest candidate, and the pruned
walks matching relies on.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan, reverse_check
from radpatch.registry.model import Operation
from radpatch.rewrite import matching, runner, scopes
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from radpatch.rewrite.tree import blocks, nodes_of, walk
from tests.lib.rewrites import check, patch_of, refusal, refuse
from tests.lib.sources import LOOP

VLLM_LIKE = """\
    def handshake(sock, timeout):
        # Receive initialization message.
        logger.debug("Waiting for init message from front-end.")
        if not sock.poll(timeout=timeout * 60_000):
            raise RuntimeError(
                "Did not receive response from front-end "
                f"process within {timeout} "
                f"minutes"
            )  # trailing comment
        return sock.recv()
    """


@pytest.mark.parametrize(
    "find",
    [
        # one line, other quotes, no comment
        "if not sock.poll(timeout=timeout * 60_000): raise RuntimeError('Did not receive response from front-end '"
        " f'process within {timeout} ' f'minutes')",
        # extra parentheses, a comment, broken differently
        """\
    if not (sock.poll(timeout=(timeout * 60_000))):  # the poll
        raise RuntimeError("Did not receive response from front-end "
                           f"process within {timeout} " f"minutes")
    """,
    ],
)
def test_reformatted_find_replaces_one_statement_by_three(find: str) -> None:
    new = """\
    deadline = timeout * 60_000
    while not sock.poll(timeout=deadline):
        logger.info("still waiting for the front-end")
    """
    patch = patch_of(Replace("handshake", find, new))
    original = textwrap.dedent(VLLM_LIKE).encode()
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original).after
    assert after.decode() == textwrap.dedent("""\
        def handshake(sock, timeout):
            # Receive initialization message.
            logger.debug("Waiting for init message from front-end.")
            deadline = timeout * 60_000
            while not sock.poll(timeout=deadline):
                logger.info("still waiting for the front-end")
            return sock.recv()
        """)
    undone = runner.backward(patch, patch.rewrites, after, "mod.py")
    assert ast.dump(ast.parse(undone)) == ast.dump(ast.parse(original))
    assert runner.forward(patch, patch.rewrites, undone, "mod.py") == after


def test_keyword_added_to_a_multi_line_call_found_on_one_line() -> None:
    check(
        """\
        def start(cfg):
            return launch(
                cfg.model,
                cfg.port,
            )
        """,
        Replace("start", "launch(cfg.model, cfg.port)", "launch(cfg.model, cfg.port, timeout=600)"),
        """\
        def start(cfg):
            return launch(
                cfg.model,
                cfg.port,
                timeout=600,
            )
        """,
    )


def test_one_line_def_replaced() -> None:
    check(
        "def f(x): return x + 1\n\n\ndef g():\n    pass\n",
        Replace("<module>", "def f(x):\n    return x + 1", "def f(x):\n    y = x + 1\n    return y"),
        "def f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    pass\n",
        exact=False,
    )


LOOPS = """\
    def f(items, more):
        for x in items:
            total = 0
        for y in more:
            total = 0
        return total
    """


def test_ambiguous_find_lists_every_line_and_hints_within_and_occurrence() -> None:
    exc = refuse(LOOPS, Replace("f", "total = 0", "total = 1"))
    assert "matches 2 times in f (ambiguous): lines 3, 5" in exc.message
    assert "within:" in exc.hint and "occurrence:" in exc.hint


def test_within_narrows_to_the_enclosing_statement() -> None:
    check(
        LOOPS,
        Replace("f", "total = 0", "total = 1", within="for y in more:"),
        "def f(items, more):\n    for x in items:\n        total = 0\n    for y in more:\n        total = 1\n"
        "    return total\n",
    )


def test_occurrence_picks_the_nth_match() -> None:
    check(
        LOOPS,
        Replace("f", "total = 0", "total = 1", occurrence=1),
        "def f(items, more):\n    for x in items:\n        total = 1\n    for y in more:\n        total = 0\n"
        "    return total\n",
    )
    check(
        LOOPS,
        InsertStatements("f", "total = 0", "total += 5", "after", occurrence=2),
        "def f(items, more):\n    for x in items:\n        total = 0\n    for y in more:\n        total = 0\n"
        "        total += 5\n    return total\n",
    )


def test_occurrence_picks_the_right_one_to_undo_when_the_result_occurs_before_it() -> None:
    source = "def f():\n    a(2)\n    a(1)\n    a(1)\n"
    check(source, Replace("f", "a(1)", "a(2)", occurrence=2), "def f():\n    a(2)\n    a(1)\n    a(2)\n")


def test_a_replacement_that_cannot_be_told_apart_from_upstream_code_is_refused() -> None:
    # a(1) a(2) a(2) could come from replacing either of two places: no structural inverse exists.
    exc = refuse("def f():\n    a(1)\n    a(2)\n    a(1)\n", Replace("f", "a(1)", "a(2)", occurrence=2))
    assert "cannot undo: the replacement (`with`) matches 2 times in f (ambiguous): lines 3, 4" in exc.message


def test_within_a_whole_simple_statement_for_an_expression() -> None:
    source = "def f():\n    x = g(1)\n    y = g(1)\n"
    check(source, Replace("f", "g(1)", "g(2)", within="y = g(1)"), "def f():\n    x = g(1)\n    y = g(2)\n")


def test_occurrence_beyond_the_matches_is_refused() -> None:
    assert (
        "has 2 match(es) in f; occurrence 3 does not exist"
        in refuse(LOOPS, Replace("f", "total = 0", "total = 1", occurrence=3)).message
    )


def test_a_typo_in_find_shows_the_closest_candidate() -> None:
    exc = refuse(LOOPS, Replace("f", "return totl", "return 1"))
    assert "closest candidate (line 6" in exc.message and "fix `find`" in exc.hint


def test_code_that_is_not_there_at_all_says_the_version_differs() -> None:
    exc = refuse(LOOPS, Replace("f", "await asyncio.sleep(backoff_seconds * 2)", "pass"))
    assert "closest candidate" not in exc.message and "nothing in the scope is similar" in exc.message
    assert "versions:" in exc.hint


def test_deep_expression_in_find_is_a_refusal_not_a_crash() -> None:
    deep = "1+" * 3000 + "1"
    exc = refuse("def f():\n    return x\n", Replace("f", f"return {deep}", "return 1"))
    assert "rewrite 'r0' (reg.yaml:1)" in exc.message and "nested too deeply" in exc.message


def test_a_deeply_nested_target_file_is_a_refusal_not_a_crash() -> None:
    exc = refuse("x = " + "1+" * 3000 + "1\n", Replace("<module>", "x = 1", "x = 2"))
    assert "nested too deeply" in exc.message


def test_a_refusal_after_earlier_rewrites_gives_the_installed_files_line_numbers() -> None:
    source = "import os\n\n\ndef f():\n    total = 0\n    return total\n"
    exc = refuse(source, AddImport("import re"), SetConstant("LIMIT", "3"), Replace("f", "totl = 0", "total = 1"))
    assert "rewrite 'r2' (reg.yaml:3)" in exc.message and "closest candidate (line 5," in exc.message


WALK_CORPUS = """\
def f(x, y=lambda z: z * 2, *, k: int = (1 + 2)):
    @deco(x * 2)
    def inner():
        if x:
            return [a * 2 for a in y if a]
        elif y:
            pass
        else:
            return {"k": f"{x * 2!r}"}
    for i in y:
        while i:
            with g(i) as h, g(x * 2):
                try:
                    i -= 1
                except* E as e:
                    raise
                else:
                    pass
                finally:
                    del h
        else:
            match x * 2:
                case [1, *rest] if rest:
                    return (  # comment
                        x * 2 if x else -x
                    )
                case {"a": b}:
                    return b[x * 2:]
    class C(Base, metaclass=M):
        attr: list[int] = [x * 2]
    return not x and y or x < y <= 2
"""
if sys.version_info < (3, 11):  # no except* before 3.11: ast must parse the corpus too
    WALK_CORPUS = WALK_CORPUS.replace("except* E as e:", "except E as e:")


def _ast_region(tree: ast.AST) -> list[ast.AST]:
    """The ast nodes a radpatch scope covers, in source order: below `tree`'s statements (a def's
    body; the module's statements), not into nested defs and classes (not even their headers)."""
    out: list[ast.AST] = []
    todo = (
        list(tree.body) if isinstance(tree, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []
    )
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return sorted((n for n in out if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))


@pytest.mark.parametrize(
    "source",
    [WALK_CORPUS, Path(textwrap.__file__).read_text(), Path(dataclasses.__file__).read_text()],
    ids=["constructs", "textwrap", "dataclasses"],
)
def test_the_pruned_walks_find_what_ast_calls_expressions(source: str) -> None:
    module = cst.parse_module(source)
    tree = ast.parse(source)
    defs = [
        (top, node) for top, node in zip(module.body, tree.body) if isinstance(top, (cst.FunctionDef, cst.ClassDef))
    ]
    for scope, region in [((module,), tree), *(((module, top), node) for top, node in defs)]:
        every = [p[-1] for p in walk(scope, lambda n: True)]
        assert [p[-1] for p in blocks(scope)] == [n for n in every if isinstance(n, cst.IndentedBlock)]
        expected = _ast_region(region)
        names = [n.value for p in nodes_of(scope, cst.Name) if (n := p[-1]).value not in ("True", "False", "None")]
        assert names == [n.id for n in expected if isinstance(n, ast.Name)]
        attrs = [p[-1].attr.value for p in nodes_of(scope, cst.Attribute)]
        assert attrs == [n.attr for n in expected if isinstance(n, ast.Attribute)]
        strings = [
            v for p in nodes_of(scope, cst.SimpleString) if (v := p[-1].evaluated_value) is not None
        ]  # None: has f-strings
        assert strings == [
            n.value
            for n in expected
            if isinstance(n, ast.Constant)
            and isinstance(n.value, (str, bytes))
            and not isinstance(_parent_of(region, n), ast.JoinedStr)
        ]
        for kind in {type(n) for n in every if isinstance(n, cst.BaseExpression)} - {
            cst.Name,
            cst.Attribute,
            cst.SimpleString,
            cst.ConcatenatedString,
            cst.FormattedString,
        }:
            assert [p[-1] for p in nodes_of(scope, kind)] == [n for n in every if type(n) is kind], kind


def _parent_of(tree: ast.AST, child: ast.AST) -> ast.AST | None:
    return next((n for n in ast.walk(tree) for c in ast.iter_child_nodes(n) if c is child), None)


@pytest.mark.parametrize(
    ("source", "find", "lines"),
    [
        ("def f(self, timeout):\n    self.timeout = 5\n    return poll(timeout)\n", "timeout", [3]),
        ("def f(x):\n    return g(x=x)\n", "x", [2]),
        ("def f(x):\n    return lambda x: x\n", "x", [2]),
        ("def f(x):\n    try:\n        pass\n    except E as x:\n        return x\n", "x", [5]),
        ("def f(x):\n    global y\n    import os.path\n    return os.path\n", "os.path", [4]),
        ("def f(x):\n    match x:\n        case [y, *x]:\n            return x\n", "x", [2, 4]),
        ("def f(x):\n    return 'ab' + 'a' 'b' + f'{\"ab\"}'\n", "'ab'", [2, 2, 2]),
        ("def f(a, b, c):\n    return (a and b and c, (a and b) and c, a and b or c)\n", "a and b", [2, 2]),
    ],
)
def test_an_expression_find_matches_only_what_ast_calls_an_expression(source: str, find: str, lines: list[int]) -> None:
    module = cst.parse_module(source)
    hits = matching.find_expressions(module, scopes.find_scope(module, "f"), find)
    assert matching.lines_of(module, [h[-1] for h in hits]) == lines


def refuse_all(before: str, *ops: Operation) -> str:
    patch = patch_of(*ops)
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), textwrap.dedent(before).encode())
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
            plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), textwrap.dedent(source).encode())
        assert "statement `find` not found in f" in info.value.message
        assert f"it is at line {line}, but not on a line of its own" in info.value.message
        whole = "the whole line it is part of, `" if ";" in source else "the whole statement it is part of"
        assert info.value.hint.startswith(f"statements match as whole lines: make `find` {whole}"), info.value.hint


def test_a_string_find_matches_the_same_string_written_out_in_pieces() -> None:
    patch = patch_of(Replace("f", '"hello world"', '"hi"'))
    before = b'def f():\n    return ("hello " "world")\n'
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before)
    assert change.after == b'def f():\n    return ("hi")\n'
    assert reverse_check.ast_equal(
        runner.backward(patch, patch.rewrites, change.after, "mod.py"), before
    )  # revert writes the kept bytes


def test_a_string_candidate_is_shown_as_the_string_it_is() -> None:
    message = refusal('def f():\n    return "hello wrld"\n', Replace("f", '"hello world"', '"hi"'))
    assert "closest candidate (line 2, " in message and "'hello wrld'" in message and '"""' not in message


def test_a_field_of_an_f_string_in_a_concatenation_is_rewritten() -> None:
    check(
        'def greet(name):\n    return f"Hello {name}" "!"\n',
        Replace("greet", "name", "name.title()"),
        'def greet(name):\n    return f"Hello {name.title()}" "!"\n',
    )


NESTED_FIRST = "def f(c, total=None):\n    if c:\n        total = 0\n    total = 0\n    return total\n"


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
    assert "lines 3, 4" in refusal(NESTED_FIRST, Replace("f", "total = 0", "total = 1"))


def test_find_does_not_reach_into_a_nested_def() -> None:
    source = "def outer(n):\n    def inner(k):\n        return k\n    return inner(n)\n"
    message = refusal(source, InsertStatements("outer", "return k", "k += 1", "before"))
    assert "not found in outer" in message


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
    assert ast.dump(ast.parse(after)) == ast.dump(
        ast.parse(textwrap.dedent(LOOP).replace("total += x", "total = total + x"))
    )


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
    original = textwrap.dedent(before).encode()
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == original
    return change.after.decode()


def test_find_does_not_match_different_code() -> None:
    # parentheses that change the tree are not formatting
    source = "def f(a, b, c):\n    x = (a + b) * c\n    return x\n"
    message = refusal(source, InsertStatements("f", "x = a + b * c", "pass", "after"))
    assert "not found in f" in message


def test_a_within_that_matches_nothing_says_so_and_lists_the_matches() -> None:
    err = refuse(LOOPS, Replace("f", "total = 0", "total = 1", within="for z in other:"))
    assert "matches 2 time(s) in f (lines 3, 5) but none within `for z in other:`" in err.message
    assert "closest candidate" not in err.message
    assert err.hint.startswith("fix `within:`")


def test_an_occurrence_beyond_the_matches_lists_them_and_says_which_exist() -> None:
    err = refuse(LOOPS, Replace("f", "total = 0", "total = 1", occurrence=3))
    assert "occurrence 3 does not exist (the matches are at lines 3, 5)" in err.message
    assert "1..2" in err.hint


def test_a_misspelt_scope_hints_at_the_scope_not_at_find() -> None:
    err = refuse("class C:\n    def run(self):\n        return 1\n", Delete("C.rnu", "return 1"))
    assert "closest: run" in err.message and "`scope:`" in err.hint and "`find`" not in err.hint
    err = refuse("def run():\n    return 1\n", Delete("rnu", "return 1"))
    assert "closest: run" in err.message and "`scope:`" in err.hint


def test_a_semicolon_find_does_not_match_half_a_line() -> None:
    err = refuse("def f(x):\n    a = 1; b = 2; c = 3\n    return a\n", Delete("f", "a = 1; b = 2"))
    assert "not found in f" in err.message

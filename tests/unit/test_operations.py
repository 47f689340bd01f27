"""The operations added for real vLLM patches, on literal sources (before -> after, whole modules).

Every case runs through plan.plan as the engine does (compile, names, reverse proof), then
checks the structural inverse: AST-equal to the original, byte-identical where `find` is typed in
the file's own layout, and stable (re-applying gives the same patched bytes).
"""

from __future__ import annotations

import ast
import dataclasses
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import (
    Operation,
    Patch,
    Rewrite,
)
from radpatch.rewrite import matching, runner
from radpatch.rewrite.ops.bodies import ReplaceBody, WrapBody
from radpatch.rewrite.ops.decorators import AddDecorator, RemoveDecorator, ReplaceDecorator
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.imports import AddImport
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from radpatch.rewrite.ops.set_default import SetDefault


def patch_of(*ops: Operation) -> Patch:
    rws = tuple(Rewrite(f"r{i}", "mod", None, op, f"reg.yaml:{i + 1}") for i, op in enumerate(ops))
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


def check(before: str, ops: Operation | tuple[Operation, ...], after: str, exact: bool = True) -> None:
    ops = ops if isinstance(ops, tuple) else (ops,)
    patch = patch_of(*ops)
    original = textwrap.dedent(before).encode()
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
    assert change.after.decode() == textwrap.dedent(after)
    undone = runner.backward(patch, patch.rewrites, change.after, "mod.py")
    assert ast.dump(ast.parse(undone)) == ast.dump(ast.parse(original))
    if exact:
        assert undone == original
    assert runner.forward(patch, patch.rewrites, undone, "mod.py") == change.after


def refuse(before: str, *ops: Operation) -> RefusedError:
    patch = patch_of(*ops)
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), textwrap.dedent(before).encode())
    return info.value


# --- set_default ---------------------------------------------------------------------------------


def test_set_default_changes_only_the_value() -> None:
    check(
        """\
        class AsyncLLM:
            async def drain(self, drain_timeout: int = 300):  # seconds
                return drain_timeout
        """,
        SetDefault("AsyncLLM.drain", "drain_timeout", "300", "900"),
        """\
        class AsyncLLM:
            async def drain(self, drain_timeout: int = 900):  # seconds
                return drain_timeout
        """,
    )


def test_set_default_of_a_keyword_only_parameter_in_a_multi_line_signature() -> None:
    check(
        """\
        def serve(
            host,
            *,
            timeout=dict(a=1,
                         b=2),
        ):
            pass
        """,
        SetDefault("serve", "timeout", "dict(a=1, b=2)", "dict(a=1, b=5)"),
        """\
        def serve(
            host,
            *,
            timeout=dict(a=1,
                         b=5),
        ):
            pass
        """,
    )


def test_set_default_refuses_another_current_value_and_names_it() -> None:
    exc = refuse("def f(x=301):\n    pass\n", SetDefault("f", "x", "300", "900"))
    assert "rewrite 'r0' (reg.yaml:1)" in exc.message and "defaults to 301, not 300" in exc.message
    assert "version" in exc.hint


# --- decorators ----------------------------------------------------------------------------------

DECORATED = """\
    import functools


    class C:
        # the method's comment
        @property
        def size(self):
            return 1
    """


def test_add_decorator_outermost_and_innermost() -> None:
    check(
        DECORATED,
        AddDecorator("C.size", "functools.cache", "bottom"),
        """\
        import functools


        class C:
            # the method's comment
            @property
            @functools.cache
            def size(self):
                return 1
        """,
    )
    check(
        DECORATED,
        AddDecorator("C.size", "functools.cache"),
        """\
        import functools


        class C:
            # the method's comment
            @functools.cache
            @property
            def size(self):
                return 1
        """,
    )


def test_remove_decorator_and_its_inverse() -> None:
    check(
        DECORATED,
        RemoveDecorator("C.size", "property"),
        """\
        import functools


        class C:
            # the method's comment
            def size(self):
                return 1
        """,
    )


def test_remove_decorator_not_at_that_end_says_which_position() -> None:
    source = "import functools\n\n\n@functools.cache\n@staticmethod\ndef f():\n    pass\n"
    assert "say `position: bottom`" in refuse(source, RemoveDecorator("f", "staticmethod")).message


def test_replace_decorator_keeps_the_rest_of_the_call() -> None:
    check(
        """\
        import functools


        @functools.lru_cache(maxsize=32,  # small
                             typed=True)
        def f(x):
            return x
        """,
        ReplaceDecorator(
            "f",
            "functools.lru_cache(typed=True, maxsize=32)".replace("typed=True, maxsize=32", "maxsize=32, typed=True"),
            "functools.lru_cache(maxsize=1024, typed=True)",
        ),
        """\
        import functools


        @functools.lru_cache(maxsize=1024,  # small
                             typed=True)
        def f(x):
            return x
        """,
    )


# --- wrap_body / replace_body ----------------------------------------------------------------------


def test_wrap_a_method_body_in_try_except_keeps_its_docstring_first() -> None:
    check(
        '''\
        import logging

        logger = logging.getLogger(__name__)


        class Engine:
            def run(self, n):
                """Run the loop."""
                # every step
                for _ in range(n):
                    self.step()
                return n
        ''',
        WrapBody(
            "Engine.run",
            """\
        try:
            __body__
        except Exception:
            logger.exception("engine loop died")
            raise
        """,
        ),
        '''\
        import logging

        logger = logging.getLogger(__name__)


        class Engine:
            def run(self, n):
                """Run the loop."""
                try:
                    # every step
                    for _ in range(n):
                        self.step()
                    return n
                except Exception:
                    logger.exception("engine loop died")
                    raise
        ''',
    )


def test_timing_wrapper_around_a_one_line_def() -> None:
    check(
        """\
        import time


        def load(path): return open(path).read()
        """,
        WrapBody(
            "load",
            """\
        start = time.monotonic()
        try:
            __body__
        finally:
            print("load took", time.monotonic() - start)
        """,
        ),
        """\
        import time


        def load(path):
            start = time.monotonic()
            try:
                return open(path).read()
            finally:
                print("load took", time.monotonic() - start)
        """,
        exact=False,
    )


def test_unwrap_refuses_a_body_that_is_not_in_the_template() -> None:
    patch = patch_of(WrapBody("f", "try:\n    __body__\nfinally:\n    pass\n"))
    with pytest.raises(RefusedError, match="not wrapped in the template"):
        runner.backward(patch, patch.rewrites, b"def f():\n    return 1\n", "mod.py")


def test_replace_body_typed_on_one_line() -> None:
    check(
        '''\
        def is_done(status):
            """True once finished."""
            return status in (
                "stopped", "aborted",
            )
        ''',
        ReplaceBody("is_done", "return status in ('stopped', 'aborted')", "return status.startswith('fin')"),
        '''\
        def is_done(status):
            """True once finished."""
            return status.startswith('fin')
        ''',
        exact=False,
    )


# --- statements in class bodies and methods; delete ----------------------------------------------

CLASS = """\
    class Outer:
        class Config:
            retries = 3
            timeout = 10

        def method(self):
            x = 1
            return x
    """


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


def test_delete_a_statement_leaves_a_marker_and_comes_back() -> None:
    check(
        CLASS,
        Delete("Outer.Config", "retries = 3"),
        """\
        class Outer:
            class Config:
                # radpatch: deleted: retries = 3
                timeout = 10

            def method(self):
                x = 1
                return x
        """,
    )


def test_delete_the_last_statement_of_a_block() -> None:
    check(
        "def f(x):\n    x.check()\n    x.log()\n\n\ndef g():\n    pass\n",
        Delete("f", "x.log()"),
        "def f(x):\n    x.check()\n    pass  # radpatch: deleted: x.log()\n\n\ndef g():\n    pass\n",
    )


def test_delete_the_only_statement_of_a_block_leaves_pass() -> None:
    check(
        "def f():\n    if x:\n        # why\n        g()\n    return 1\n",
        Delete("f", "g()"),
        "def f():\n    if x:\n        # why\n        pass  # radpatch: deleted: g()\n    return 1\n",
    )


# --- add_import / set_constant -------------------------------------------------------------------

HEADER = '''\
    """Engine core."""

    import os
    from typing import Any

    logger = None

    HANDSHAKE_TIMEOUT_MINS = 5


    def f():
        return HANDSHAKE_TIMEOUT_MINS
    '''


def test_add_import_goes_after_the_imports() -> None:
    check(
        HEADER,
        AddImport("import re"),
        HEADER.replace("from typing import Any\n", "from typing import Any\n    import re  # radpatch: added import\n"),
    )


def test_add_import_already_there_is_a_no_op_and_revert_keeps_it() -> None:
    check(HEADER, AddImport("from typing import Any"), HEADER)


def test_set_constant_changes_its_value() -> None:
    check(HEADER, SetConstant("HANDSHAKE_TIMEOUT_MINS", "15", "5"), HEADER.replace("= 5", "= 15"))


def test_set_constant_reading_an_environment_variable_with_an_import() -> None:
    value = 'int(os.environ.get("VLLM_HANDSHAKE_TIMEOUT_MINS", "5"))'
    check(
        HEADER,
        (AddImport("import os"), SetConstant("HANDSHAKE_TIMEOUT_MINS", value, "5")),
        HEADER.replace("= 5", f"= {value}"),
    )


def test_set_constant_new_name_goes_after_imports() -> None:
    check(
        HEADER,
        SetConstant("RETRIES", "3"),
        HEADER.replace("from typing import Any\n", "from typing import Any\n    RETRIES = 3\n"),
    )


def test_set_constant_new_name_that_the_module_binds_is_a_clash() -> None:
    exc = refuse(HEADER, SetConstant("logger", "3"))
    assert "already binds logger (line 6)" in exc.message and "from:" in exc.hint


# --- payload imports and constants ---------------------------------------------------------------


def test_payload_imports_and_constants_are_placed_not_dropped() -> None:
    payload = b'"""Payload."""\nimport re\nimport os\n\n_RP_LIMIT = 4\n\n\ndef _rp_parse(s):\n    return re.findall("x", s)[:_RP_LIMIT]\n'
    op = InsertDefinitions(Path("p.py"), payload, ("_RP_LIMIT", "_rp_parse"), "f", "before")
    check(
        HEADER,
        op,
        HEADER.replace(
            "from typing import Any\n", "from typing import Any\n    import re  # radpatch: added import\n"
        ).replace(
            "HANDSHAKE_TIMEOUT_MINS = 5\n",
            'HANDSHAKE_TIMEOUT_MINS = 5\n\n\n    _RP_LIMIT = 4\n\n\n    def _rp_parse(s):\n        return re.findall("x", s)[:_RP_LIMIT]\n',
        ),
    )


def test_payload_def_taking_over_an_imported_name_is_refused() -> None:
    op = InsertDefinitions(Path("p.py"), b"def Any():\n    pass\n", ("Any",), "f", "before")
    exc = refuse(HEADER, op)
    assert "already binds 'Any' (line 4)" in exc.message and "rename" in exc.hint


def test_payload_future_import_the_target_lacks_is_refused() -> None:
    op = InsertDefinitions(
        Path("p.py"), b"from __future__ import annotations\n\n\ndef _rp():\n    pass\n", ("_rp",), "f", "before"
    )
    assert "__future__" in refuse(HEADER, op).message


# --- formatting independence: find typed differently, statements count changes -------------------

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


# --- selection -----------------------------------------------------------------------------------

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
        "def f(items, more):\n    for x in items:\n        total = 0\n    for y in more:\n        total = 1\n    return total\n",
    )


def test_occurrence_picks_the_nth_match() -> None:
    check(
        LOOPS,
        Replace("f", "total = 0", "total = 1", occurrence=1),
        "def f(items, more):\n    for x in items:\n        total = 1\n    for y in more:\n        total = 0\n    return total\n",
    )
    check(
        LOOPS,
        InsertStatements("f", "total = 0", "total += 5", "after", occurrence=2),
        "def f(items, more):\n    for x in items:\n        total = 0\n    for y in more:\n        total = 0\n        total += 5\n    return total\n",
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


# --- hints fit the cause -------------------------------------------------------------------------


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


def test_an_import_that_would_rebind_a_module_name_is_refused() -> None:
    exc = refuse(HEADER, AddImport("from mylog import logger"))
    assert "would rebind 'logger', which the module binds at line 6" in exc.message and "rename" in exc.hint


def test_an_import_of_a_submodule_of_an_imported_module_is_no_clash() -> None:
    check(
        HEADER,
        AddImport("import os.path"),
        HEADER.replace(
            "from typing import Any\n", "from typing import Any\n    import os.path  # radpatch: added import\n"
        ),
    )


# --- the pruned walks -------------------------------------------------------------------------

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


if sys.version_info < (3, 11):  # no except* before 3.11: ast must parse the corpus too
    WALK_CORPUS = WALK_CORPUS.replace("except* E as e:", "except E as e:")


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
        every = [p[-1] for p in matching.walk(scope, lambda n: True)]
        assert [p[-1] for p in matching.blocks(scope)] == [n for n in every if isinstance(n, cst.IndentedBlock)]
        expected = _ast_region(region)
        names = [
            n.value for p in matching.nodes_of(scope, cst.Name) if (n := p[-1]).value not in ("True", "False", "None")
        ]
        assert names == [n.id for n in expected if isinstance(n, ast.Name)]
        attrs = [p[-1].attr.value for p in matching.nodes_of(scope, cst.Attribute)]
        assert attrs == [n.attr for n in expected if isinstance(n, ast.Attribute)]
        strings = [
            v for p in matching.nodes_of(scope, cst.SimpleString) if (v := p[-1].evaluated_value) is not None
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
            assert [p[-1] for p in matching.nodes_of(scope, kind)] == [n for n in every if type(n) is kind], kind


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
    hits = matching.find_expressions(module, matching.find_scope(module, "f"), find)
    assert matching.lines_of(module, [h[-1] for h in hits]) == lines

"""The rewrites the importer chooses, as data: a module before and after, and the whole list of
rewrites a person would write for it (operation and keys, in order)."""

from __future__ import annotations

import ast
import random
import textwrap

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import seeds
from tests.lib.importing import KINDS, corpus_files, edit


def steps(before: str, after: str) -> list[tuple[str, dict[str, object]]]:
    found = rewrites(textwrap.dedent(before), textwrap.dedent(after))
    return [(s.op, dict(s.keys)) for s in found.steps]


def test_the_smallest_expression_not_the_statement_or_the_function() -> None:
    assert steps(
        """\
        def f(a, b):
            y = a + b
            if y > 3:
                return y
            return 0
        """,
        """\
        def f(a, b):
            y = a * b
            if y > 4:
                return y
            return 0
        """,
    ) == [
        ("replace", {"scope": "f", "find": "a + b", "with": "a * b"}),
        ("replace", {"scope": "f", "find": "y > 3", "with": "y > 4"}),
    ]


def test_a_keyword_argument_changes_by_set_keyword() -> None:
    assert steps(
        """\
        def start():
            t = Thread(target=run, daemon=True)
        """,
        """\
        def start():
            t = Thread(target=run, daemon=False)
        """,
    ) == [("set_keyword", {"scope": "start", "call": "Thread", "keyword": "daemon", "from": "True", "to": "False"})]


def test_constants_defaults_parameters_decorators_and_imports() -> None:
    assert steps(
        """\
        import os

        TIMEOUT = 5

        @cache
        def f(a, b=1):
            return a

        def g(x):
            return x
        """,
        """\
        import os
        import sys

        TIMEOUT = 15

        @cache
        @traced
        def f(a, b=2):
            return a

        def g(x, y=None):
            return x
        """,
    ) == [
        ("add_import", {"import": "import sys"}),
        ("set_constant", {"name": "TIMEOUT", "from": "5", "value": "15"}),
        ("set_default", {"function": "f", "parameter": "b", "from": "1", "to": "2"}),
        ("add_decorator", {"function": "f", "decorator": "traced", "position": "bottom"}),
        ("add_parameter", {"function": "g", "name": "y", "default": "None"}),
    ]


def test_inserted_statements_anchor_on_a_unique_neighbour_and_deleted_ones_go() -> None:
    assert steps(
        """\
        def f():
            x = 1
            log("a")
            x = 1
            return x
        """,
        """\
        def f():
            x = 1
            x = 1
            # keep it even
            x = x * 2
            return x
        """,
    ) == [
        ("delete", {"scope": "f", "find": 'log("a")\n'}),
        ("insert_before", {"scope": "f", "find": "return x\n", "code": "# keep it even\nx = x * 2\n"}),
    ]


def test_a_statement_that_is_not_unique_grows_by_its_neighbour() -> None:
    assert steps(
        """\
        class C:
            def n(self):
                x = 1
                x = 1
                return x
        """,
        """\
        class C:
            def n(self):
                x = 1
                x = 2
                return x
        """,
    ) == [("replace", {"scope": "C.n", "find": "x = 1\nreturn x\n", "with": "x = 2\nreturn x\n"})]


def test_new_definitions_become_payloads_next_to_a_named_anchor() -> None:
    found = rewrites(
        textwrap.dedent("""\
        def a():
            return 1


        class C:
            def m(self):
                return 1
        """),
        textwrap.dedent("""\
        def a():
            return 1


        def helper(x):
            return x * 2


        class C:
            def m(self):
                return 1

            def m2(self):
                return 2
        """),
    )
    assert [(s.op, dict(s.keys), s.payload) for s in found.steps] == [
        ("insert_definitions", {"payload": "helper", "after": "a"}, "def helper(x):\n    return x * 2\n"),
        ("insert_definitions", {"payload": "m2", "after": "C.m"}, "def m2(self):\n    return 2\n"),
    ]


def test_a_deletion_at_the_end_of_a_block_is_a_delete_that_leaves_no_pass() -> None:
    # `marker: comment`: the engine's default `pass` where a block ends is not what patch gives
    assert steps(
        """\
        def f():
            prepare()
            cleanup()
        """,
        """\
        def f():
            prepare()
        """,
    ) == [("delete", {"scope": "f", "find": "cleanup()\n", "marker": "comment"})]


def test_a_module_that_does_not_parse_is_an_error_not_a_guess() -> None:
    with pytest.raises(SyntaxError):
        rewrites("def f(:\n", "x = 1\n")


def test_one_of_two_equal_statements_goes_by_its_occurrence_or_with_its_twin() -> None:
    # with its twin (port52): the run of the two is unique, and so is the one left; no count a copy could shift
    twins = [("replace", {"scope": "<module>", "find": "x = 1\nx = 1\n", "with": "x = 1\n"})]
    assert steps("x = 1\nx = 1\ny = 2\n", "x = 1\ny = 2\n") == twins
    # at the end of the module too (no `pass` or marker for it either)
    assert steps("x = 1\nx = 1\n", "x = 1\n") == twins
    # by its occurrence where no neighbour tells the copies apart
    pairs = "x = 1\ny = 2\n" * 5
    assert steps(pairs, pairs.replace("y = 2\nx = 1\ny = 2\nx = 1", "y = 2\ny = 2\nx = 1", 1)) == [
        ("delete", {"scope": "<module>", "find": "x = 1\n", "occurrence": 2})
    ]


ELIF = """\
    def f(x):
        if x:
            a()
        elif x > 1:
            b()
        return 0
    """


def test_an_elif_that_changes_beyond_an_expression_replaces_its_if() -> None:
    # libcst holds an elif inside its if: no statement find names it
    assert steps(
        ELIF,
        """\
        def f(x):
            if x:
                a()
            elif x > 2:
                b()
            return 0
        """,
    ) == [("replace", {"scope": "f", "find": "x > 1", "with": "x > 2"})]
    changed = steps(
        ELIF,
        """\
        def f(x):
            if x:
                a()
            elif x > 1:
                b()
                c()
            return 0
        """,
    )
    assert changed == [("insert_after", {"scope": "f", "find": "b()\n", "code": "c()\n"})]


# `log(q); return` in two branches of f
LOGGED_TWICE = """\
    def f(q):
        if q:
            log(q)
            return
        if not q:
            log(q)
            return
    """


def test_a_change_that_is_ambiguous_after_patching_widens_to_its_statement() -> None:
    # `log(q); return` would be found twice when the engine undoes the patch
    # the patch: the second branch's `return 0` becomes LOGGED_TWICE's `return`
    assert steps(LOGGED_TWICE.rstrip() + " 0\n", LOGGED_TWICE) == [
        (
            "replace",
            {
                "scope": "f",
                "find": "if not q:\n    log(q)\n    return 0\n",
                "with": "if not q:\n    log(q)\n    return\n",
            },
        )
    ]


def test_a_repeated_statement_is_deleted_within_the_header_that_holds_it_alone() -> None:
    # f10 (issue 20): a deletion's copy is anchored by its header, as replaces are, not by a bare count
    assert steps(
        LOGGED_TWICE,
        """\
        def f(q):
            if q:
                log(q)
                return
            if not q:
                return
        """,
    ) == [("delete", {"scope": "f", "find": "log(q)\n", "within": "if not q:"})]


def test_a_replacement_is_parenthesised_where_the_operators_around_it_need_it() -> None:
    assert steps(
        """\
        def f(a, b):
            return not a
        """,
        """\
        def f(a, b):
            return not (a and b)
        """,
    ) == [("replace", {"scope": "f", "find": "a", "with": "(a and b)"})]


@pytest.mark.parametrize("seed", seeds(40))
def test_generated_edits_of_real_modules_are_said_by_rewrites_that_reproduce_them(seed: int) -> None:
    """Seeded edits of stdlib and vLLM modules (every kind the generator knows): the rewrites chosen,
    simulated on the before-tree, give exactly the after-tree (rewrites() checks it), every code key
    parses, and only a signature change no operation says falls back to a whole definition."""
    rng = random.Random(seed)
    files = corpus_files()
    name = rng.choice(sorted(f for f in files if f.endswith(".py") and len(files[f]) > 1000))
    before = files[name].decode()
    after = before
    for k in range(rng.randint(1, 4)):
        after = edit(after, rng, seed * 10 + k, KINDS)
    found = rewrites(before, after)
    assert found.steps or after == before
    for step in found.steps:
        for k, v in step.keys:
            if k in ("find", "with", "code", "from", "to", "value", "default"):
                ast.parse(textwrap.dedent(str(v)) if "\n" in str(v) else f"(\n{v}\n)")
    assert all("signature change" in f for f in found.fallbacks)


def test_the_patch_s_own_grouping_parentheses_are_kept_for_its_bytes() -> None:
    assert steps(
        """\
        def f(m):
            if m is None:
                g(m is None)
        """,
        """\
        def f(m):
            if (m is None and ready()):
                g(m is None or m)
        """,
    ) == [
        ("replace", {"scope": "f", "find": "m is None", "with": "(m is None and ready())", "occurrence": 1}),
        ("replace", {"scope": "f", "find": "g(m is None)", "with": "g(m is None or m)"}),
    ]


def test_a_multi_line_string_keeps_its_own_lines_while_the_code_is_dedented() -> None:
    # radpatch dedents `find`/`with`; the docstring's continuation lines are its content, not code
    found = steps(
        '''\
        class C:
            """Doc.

            More.
            """
            x = 1
        ''',
        '''\
        class C:
            """Doc.

            More, changed.
            """
            x = 1
        ''',
    )
    assert found == [
        (
            "replace",
            {
                "scope": "C",
                "find": '"""Doc.\n\n    More.\n    """\n',
                "with": '"""Doc.\n\n    More, changed.\n    """\n',
            },
        )
    ]


def test_a_method_with_a_multi_line_string_goes_into_its_class_as_a_definition() -> None:
    # insert_definitions keeps the lines inside a multi-line string as the payload has them (it
    # indents the code only), so a method with a docstring is a definition, not an insert_after
    # whose `find` is the whole method above it (pegaflow's vLLM 0.13.0 patch: seven methods
    # after get_all_free_blocks were a `replace` of it). tests/importing/test_class_methods_import.py
    # checks the class against GNU patch.
    before = "class C:\n    def m(self):\n        return 1\n"
    method = '    def m2(self):\n        """\n        Two.\n        """\n        return 2\n'
    found = rewrites(before, before + "\n" + method)
    assert [(s.op, dict(s.keys)) for s in found.steps] == [("insert_definitions", {"payload": "m2", "after": "C.m"})]
    assert found.steps[0].payload == 'def m2(self):\n    """\n        Two.\n        """\n    return 2\n'

"""A match inside a function defined in the scope: the refusal names it and the scope to write,
and that scope (`f.inner`, even when `inner` is defined inside an if/try block) works.

The study's case: a `find` that exists in the scope's nested function was refused with "check the
version range", which sent the user to the wrong place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.install.module_choice import _has_scope
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.matching import NotFound
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.rewrites import patch_of

SRC = """\
import threading


def serve(x):
    try:
        def on_stop():
            assert x is not None
            t = threading.Thread(target=on_stop, daemon=True)
            return t.start() + x.value

    except ValueError:
        pass
    return on_stop
"""


def line_of(text: str) -> int:
    return next(i + 1 for i, ln in enumerate(SRC.splitlines()) if text in ln)


def refusal(op: Operation) -> RefusedError:
    patch = patch_of(op)
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, SRC.encode(), "mod.py")
    return info.value


@pytest.mark.parametrize(
    ("op", "text"),
    [
        (Replace("serve", "assert x is not None", "assert x"), "assert x is not None"),
        (Replace("serve", "x.value", "x.size"), "x.value"),
        (Delete("serve", "assert x is not None"), "assert x is not None"),
        (InsertStatements("serve", "assert x is not None", "pass", "after"), "assert x is not None"),
        (SetKeyword("serve", "threading.Thread", "daemon", "True", "False"), "daemon=True"),
    ],
)
def test_a_match_in_a_nested_function_is_named_with_the_scope_to_write(op: Operation, text: str) -> None:
    exc = refusal(op)
    assert f"inside a function defined in it: line {line_of(text)} in `serve.on_stop`" in exc.message
    assert "`scope: serve.on_stop`" in exc.hint and "version range" not in exc.hint


def test_the_scope_the_hint_gives_works_for_a_function_defined_in_a_block() -> None:
    op = Replace("serve.on_stop", "assert x is not None", "assert x is not None, 'stopped twice'")
    patch = patch_of(op)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), SRC.encode()).after
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == SRC.encode()
    (message,) = [ast.literal_eval(n.msg) for n in ast.walk(ast.parse(after)) if isinstance(n, ast.Assert) and n.msg]
    assert message == "stopped twice"
    tree = ast.parse(SRC)
    assert _has_scope(tree, "serve.on_stop") and not _has_scope(tree, "serve.off")


def test_a_code_that_exists_nowhere_still_gets_the_version_hint() -> None:
    exc = refusal(Replace("serve", "assert y", "assert x"))
    assert "statement `find` not found in serve; " in exc.message
    assert exc.hint == NotFound.hint

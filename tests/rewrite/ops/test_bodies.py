"""wrap_body and replace_body (radpatch/rewrite/ops/wrap_body.py, replace_body.py): a body wrapped in a template or
replaced whole, and given back.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import pytest

from radpatch.errors import RefusedError
from radpatch.rewrite import runner
from radpatch.rewrite.ops.replace_body import ReplaceBody
from radpatch.rewrite.ops.wrap_body import WrapBody
from tests.lib.rewrites import check, patch_of


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

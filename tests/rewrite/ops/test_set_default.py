"""set_default (radpatch/rewrite/ops/set_default.py): only a parameter's default value changes.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

from radpatch.rewrite.ops.set_default import SetDefault
from tests.lib.rewrites import check, refuse


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

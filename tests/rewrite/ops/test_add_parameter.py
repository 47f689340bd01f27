"""add_parameter (radpatch/rewrite/ops/add_parameter.py): a parameter added to a signature in any
layout, and taken out again.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import pytest

from radpatch.rewrite.ops.add_parameter import AddParameter
from tests.lib.rewrites import check, refusal


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
    message = refusal("def f(a, *args, k=1, **kw):\n    return a\n", param())
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
    assert "already has a parameter 'a'" in refusal("def f(a):\n    pass\n", param(name="a"))
    assert "already has a parameter 'rest'" in refusal("def f(*rest):\n    pass\n", param(name="rest"))


def test_add_parameter_missing_function_names_the_closest() -> None:
    message = refusal("def plan_groups(a):\n    pass\n", param("plan_group"))
    assert "'plan_group'" in message and "closest: plan_groups" in message


def test_add_parameter_ambiguous_function() -> None:
    source = "def f(a):\n    pass\n\n\ndef f(b):\n    pass\n"
    assert "defines 'f' 2 times (ambiguous: lines 1, 5)" in refusal(source, param())


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


def test_add_parameter_refuses_a_function_with_star_kwargs() -> None:
    # `def f(a, cfg=None, **kw)` would make an existing call f(1, cfg=2) bind cfg instead of kw
    for signature in ("a, **kw", "a, *, k=1, **kw", "**kw"):
        message = refusal(f"def f({signature}):\n    return kw\n", param())
        assert "takes **kw" in message and "change how existing calls bind" in message, signature


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("cfg = 1\n\n\ndef f(a):\n    return a + cfg\n", "the module"),
        ("import cfg\n\n\ndef f(a):\n    return cfg.x\n", "the module"),
        ("def cfg():\n    pass\n\n\ndef f(a):\n    return cfg()\n", "the module"),
        (
            "try:\n    import ujson as cfg\nexcept ImportError:\n    cfg = None\n\n\ndef f(a):\n    return cfg\n",
            "the module",
        ),
        ("def f(a):\n    def g():\n        return cfg\n    return g()\n\n\ncfg = 2\n", "the module"),
        ("def f(a):\n    return [cfg for _ in a]\n\n\ncfg = 2\n", "the module"),
        ("def outer():\n    cfg = 1\n\n    def f(a):\n        return cfg\n    return f\n", "an enclosing function"),
        ("def init():\n    global cfg\n    cfg = 3\n\n\ndef f(a):\n    return cfg\n", "the module"),
        ("class C:\n    def f(self):\n        return cfg\n\n\ncfg = 1\n", "the module"),
    ],
    ids=[
        "constant",
        "import",
        "def",
        "try-import",
        "closure-read",
        "comprehension",
        "enclosing",
        "global-decl",
        "method",
    ],
)
def test_add_parameter_refuses_a_name_the_body_reads_from_outside(source: str, where: str) -> None:
    function = "outer.f" if source.startswith("def outer") else "C.f" if source.startswith("class") else "f"
    message = refusal(source, param(function))
    assert f"reads 'cfg' from {where}" in message, message


def test_add_parameter_refuses_a_builtin_the_body_reads() -> None:
    message = refusal("def f(a):\n    return len(a)\n", param(name="len"))
    assert "reads 'len' from the builtins" in message


def test_add_parameter_allows_a_name_the_body_binds_or_a_new_use() -> None:
    # the function's own local, a nested function's own local, and an undefined name the patch uses
    check("def f(a):\n    cfg = a\n    return cfg\n", param(), "def f(a, cfg=None):\n    cfg = a\n    return cfg\n")
    check(
        "cfg = 1\n\n\ndef f(a):\n    def g(cfg):\n        return cfg\n    return g(a)\n",
        param(),
        "cfg = 1\n\n\ndef f(a, cfg=None):\n    def g(cfg):\n        return cfg\n    return g(a)\n",
    )
    check(
        "def f(a):\n    return a\n\n\ncfg = 1\n\n\ndef g():\n    return cfg\n",
        param(),
        "def f(a, cfg=None):\n    return a\n\n\ncfg = 1\n\n\ndef g():\n    return cfg\n",
    )

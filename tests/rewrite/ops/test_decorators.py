"""add_decorator, remove_decorator, replace_decorator (radpatch/rewrite/ops/decorators.py).

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import pytest

from radpatch.rewrite.ops.decorators import AddDecorator, RemoveDecorator, ReplaceDecorator
from tests.lib.rewrites import check, refuse

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
        DECORATED.replace("@property", "@functools.wraps(len)"),
        AddDecorator("C.size", "functools.cache"),
        """\
        import functools


        class C:
            # the method's comment
            @functools.cache
            @functools.wraps(len)
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


def test_a_misspelt_decorated_function_hints_at_the_name() -> None:
    err = refuse("def run():\n    return 1\n", AddDecorator("rnu", "staticmethod"))
    assert "`function:`" in err.hint


@pytest.mark.parametrize(
    "descriptor",
    ["staticmethod", "classmethod", "property", "functools.cached_property", "size.setter", "abc.abstractproperty"],
)
def test_add_decorator_on_top_of_a_descriptor_is_refused_with_the_bottom_hint(descriptor: str) -> None:
    # @functools.cache over @staticmethod wraps the descriptor: C().size() would pass self
    exc = refuse(DECORATED.replace("@property", f"@{descriptor}"), AddDecorator("C.size", "functools.cache"))
    assert f"outermost decorator @{descriptor} makes it a descriptor" in exc.message and "position: bottom" in exc.hint
    check(
        DECORATED.replace("@property", f"@{descriptor}"),
        AddDecorator("C.size", "functools.cache", "bottom"),
        DECORATED.replace("@property", f"@{descriptor}\n        @functools.cache"),
    )

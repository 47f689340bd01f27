"""delete (radpatch/rewrite/ops/delete.py): statements taken out leave a marker the inverse reads back.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import pytest

from radpatch.rewrite.ops.delete import Delete
from tests.lib.rewrites import check
from tests.lib.sources import CLASS, TWO


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


def test_delete_of_statements_typed_with_a_semicolon() -> None:
    check(
        TWO,
        Delete("f", "b = 2; return a + b"),
        "def f(x):\n    a = 1\n    pass  # radpatch: deleted: b = 2; return a + b\n",
        exact=False,
    )


PUBLISH = (
    "def loop(self):\n    while self.running():\n        self.poll()\n        self.publish()\n"
    "        self.step()\n        self.publish()\n"
)


@pytest.mark.parametrize("first", [1, 2])
def test_two_deletes_of_equal_statements_undo(first: int) -> None:
    marker = "# radpatch: deleted: self.publish()"
    check(
        PUBLISH,
        (Delete("loop", "self.publish()", occurrence=first), Delete("loop", "self.publish()")),
        "def loop(self):\n    while self.running():\n        self.poll()\n"
        f"        {marker}\n        self.step()\n        pass  {marker}\n",
    )

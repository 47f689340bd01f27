"""delete (radpatch/rewrite/ops/delete.py): statements taken out leave a marker the inverse reads back.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import itertools

import pytest

from radpatch.rewrite.ops.delete import Delete, deleted_comment
from tests.lib.generated import sample
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


@pytest.mark.parametrize(
    ("before", "op", "after"),
    [
        (  # a class's last method (what `radpatch import` writes for GNU's diff dropping it)
            "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\nX = 1\n",
            Delete("A", "def g(self):\n    return 2\n", marker="comment"),
            "class A:\n    def f(self):\n        return 1\n\n"
            "    # radpatch: deleted: def g(self): return 2\n\n\nX = 1\n",
        ),
        (  # a module's last def: the comment ends the file
            "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
            Delete("<module>", "def g():\n    return 2\n", marker="comment"),
            "def f():\n    return 1\n\n\n# radpatch: deleted: def g(): return 2\n",
        ),
        (  # an if-body's last statement, before its else and with comments of its own after it
            "def f(x):\n    if x:\n        a = 1\n        b = 2\n        # kept\n    else:\n        c = 3\n",
            Delete("f", "b = 2", marker="comment"),
            "def f(x):\n    if x:\n        a = 1\n        # radpatch: deleted: b = 2\n"
            "        # kept\n    else:\n        c = 3\n",
        ),
    ],
)
def test_delete_the_last_statement_of_a_block_with_marker_comment_leaves_no_pass(
    before: str, op: Delete, after: str
) -> None:
    check(before, op, after)


def test_marker_comment_still_leaves_pass_in_a_block_it_empties() -> None:
    check(
        "def f():\n    if x:\n        g()\n    return 1\n",
        Delete("f", "g()", marker="comment"),
        "def f():\n    if x:\n        pass  # radpatch: deleted: g()\n    return 1\n",
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


@pytest.mark.parametrize("width", [69, 70, 71, 90])
def test_the_deleted_comment_holds_the_code_cut_at_seventy_characters(width: int) -> None:
    """`deleted_comment` (the comment text; `marker` is the key saying where it goes) writes the
    deleted code on one line, cut to 67 characters and `...` past 70."""
    code = "x = " + "1" * (width - 4)
    shown = code if width <= 70 else code[:67] + "..."
    op = Delete("f", code)
    assert deleted_comment(op) == f"# radpatch: deleted: {shown}"
    check(
        f"def f():\n    {code}\n    return 1\n",
        op,
        f"def f():\n    {deleted_comment(op)}\n    return 1\n",
    )


HEADS = (  # what stands above a module's first statement: libcst parses it as the module's header
    "",
    "# header\n",
    "# -*- coding: latin-1 -*-\n",
    "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n",
    "\n\n",
    "# a\n\n# b\n",
)
FIRSTS = (
    "LEGACY = 1\n",
    "A = 1; B = 2\n",
    "@d\ndef f():\n    pass\n",
    "import os\n",
    "class C:\n    x = 1\n",
)
RESTS = ("", "MODERN = 2\n", "\n\ndef g():\n    return 1\n", "\n# kept\nX = 2\n")


@pytest.mark.parametrize(
    ("head", "first", "rest", "marker"), sample(itertools.product(HEADS, FIRSTS, RESTS, ("pass", "comment")))
)
def test_delete_of_a_modules_first_statement_in_every_spelling(head: str, first: str, rest: str, marker: str) -> None:
    """The comment of code deleted from a module's top is parsed back as part of the module's header
    (with a header comment, coding line, shebang or none): the inverse finds it there, byte-exact."""
    op = Delete("<module>", first, marker=marker)
    # the module's only statement: `pass` and the comment, or (`marker: comment`, what import writes) the comment
    # alone, which Python reads as an empty module (att59 F2)
    alone = f"{head}{deleted_comment(op)}\n" if marker == "comment" else f"{head}pass  {deleted_comment(op)}\n"
    after = f"{head}{deleted_comment(op)}\n{rest}" if rest else alone
    check(head + first + rest, op, after)

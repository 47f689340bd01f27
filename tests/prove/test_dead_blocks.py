"""Code a patch puts in a block that never runs at run time is refused, naming the block: the body
of `if TYPE_CHECKING:` (its imports, for type checkers, pass), of `if False:`/`if 0:`/`while
False:` and the like, or the `else` of `if True:`/`while True:`.

Generated: tests (constant false, constant true, and ones that vary) times where the code goes
(the if body, the if's else, the while body, the while's else) times the scope (module level, a
function) times the inserted code. Every patched module is run under a line tracer (the function
called with several arguments): the proof must refuse exactly the code no run reaches.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.reach import lines_run, unreachable

TESTS = {  # the test, whether it is always false / always true / varies (None)
    "False": False,
    "0": False,
    "None": False,
    "''": False,
    "TYPE_CHECKING": False,
    "typing.TYPE_CHECKING": False,
    "not True": False,
    "False and x": False,
    "0 or False": False,
    "TYPE_CHECKING and True": False,
    "True": True,
    "1": True,
    "not TYPE_CHECKING": True,
    "x or True": True,
    "x": None,
    "x > 2": None,
    "TYPE_CHECKING or x": None,
}
WHERE = ("if-body", "if-else", "while-body", "while-else")
INSERTED = {
    "assignment": "y = 2\n",
    "call": "len([1])\n",
    "def": "def inner():\n    return 1\n",
    "import": "import os\n",
}
SCOPES = ("module", "function")


def build(test: str, where: str, scope: str, inserted: str | None) -> tuple[str, int]:
    """The module and the line the inserted code starts at."""
    code = INSERTED[inserted] if inserted else ""
    keyword = "if" if where.startswith("if") else "while"
    body = "z = 1\n" + (code if where.endswith("body") else "") + ("break\n" if keyword == "while" else "")
    block = f"{keyword} {test}:\n" + indent(body, "    ") + "else:\n" + indent("z = 3\n", "    ")
    if where.endswith("else"):
        block += indent(code, "    ")
    head = "import typing\nfrom typing import TYPE_CHECKING\n\nx = 1\n"
    if scope == "function":
        head += "\n\ndef f(x):\n"
        block = indent(block, "    ") + "    return z\n"
    lines = (head + block).splitlines()
    first = next((i + 1 for i, line in enumerate(lines) if code and line.strip() == code.splitlines()[0] and i > 4), 0)
    return head + block, first


def reached_lines(source: str) -> set[int]:
    namespace: dict[str, Any] = {"__name__": "generated"}
    with lines_run("generated.py") as lines:
        exec(compile(source, "generated.py", "exec"), namespace)
        for x in (0, 1, 5):
            if "f" in namespace:
                namespace["f"](x)
    return lines


CASES = sample(itertools.product(TESTS, WHERE, SCOPES, INSERTED))


@pytest.mark.parametrize(("test", "where", "scope", "inserted"), CASES, ids=["-".join(c) for c in CASES])
def test_code_in_a_block_that_never_runs_is_refused_naming_the_block(
    test: str, where: str, scope: str, inserted: str
) -> None:
    (before, _), (after, first) = build(test, where, scope, None), build(test, where, scope, inserted)
    assert first
    runs = first in reached_lines(after)
    found = unreachable(before, after)
    truth = TESTS[test]
    if truth is None:  # a test that may vary: the code may run, accepted
        assert found == [], (after, found)
        return
    dead = truth is where.endswith("else")  # a false test's body, a true test's else
    assert runs == (not dead), after
    if dead and inserted == "import" and "TYPE_CHECKING" in test:  # for type checkers: what the block is for
        assert found == [], (after, found)
        return
    assert bool(found) == dead, (after, found)
    if found:
        keyword = "if" if where.startswith("if") else "while"
        assert f"its code at line {first} " in found[0], found
        assert f"{keyword} {test}:" in found[0] and "never runs" in found[0], found


def test_the_attack_cases_are_refused() -> None:
    """F3 of the att21 report: a constant after an import under `if TYPE_CHECKING:`, an assignment in `if False:`."""
    tc = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal\nX = 1\n"
    found = unreachable(tc, tc.replace("Decimal\n", "Decimal\n    X_EXTRA = 2\n"))
    assert found and "`if TYPE_CHECKING:` block at line 2" in found[0], found
    dead = "def f(x):\n    if False:\n        x = 2\n    return x\n"
    found = unreachable(dead, dead.replace("x = 2\n", "x = 2\n        x = 3\n"))
    assert found and "in f" in found[0] and "`if False:` block at line 2" in found[0], found


def test_code_after_an_if_whose_constant_branch_leaves_is_refused() -> None:
    """`if True: return` never falls through; `if TYPE_CHECKING: return` always does."""
    always = "def f(x):\n    if True:\n        return x\n    return 0\n"
    assert unreachable(always, always.replace("return 0", "y = 1\n    return 0")) != []
    never = "def f(x):\n    if TYPE_CHECKING:\n        return x\n    return 0\n"
    assert unreachable(never, never.replace("return 0", "y = 1\n    return 0")) == []

"""A patch that changes a typing-only definition the original has in `if TYPE_CHECKING:` (a stub
class's method deleted, added or re-annotated; a stub function's signature; an alias's value) means
it: that code never ran before either, and the proof accepts it. Code the patch adds there that the
original does not have (a new def, class or statement in the block) still never runs and is refused.

Generated: the guard's spelling times the stub (a class, a function, an alias) times the edit. Each
module is executed (run under a line tracer): an accepted change runs exactly as much as before,
and a refused one is code no run reaches."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.blocks import in_block, indent
from tests.lib.reach import lines_run, unreachable

GUARDS = {
    "plain": ("from typing import TYPE_CHECKING\n", "TYPE_CHECKING"),
    "dotted": ("import typing\n", "typing.TYPE_CHECKING"),
    "alias": ("from typing import TYPE_CHECKING as TC\n", "TC"),
}
STUBS = {
    "class": "class Base:\n    def a(self) -> int: ...\n\n    def b(self, n: int) -> int: ...\n",
    "function": "def helper(n: int) -> int: ...\n",
    "alias": "Alias = int\n",
}
CHANGED = {  # a change of the stub, the original's definition by name
    "class-delete": ("class", "class Base:\n    def a(self) -> int: ...\n"),
    "class-add": ("class", STUBS["class"] + "\n    def c(self) -> str: ...\n"),
    "class-annotation": ("class", STUBS["class"].replace("-> int: ...\n\n", "-> float: ...\n\n", 1)),
    "function-signature": ("function", "def helper(n: int, m: int = 0) -> int: ...\n"),
    "alias-value": ("alias", "Alias = float\n"),
}
ADDED = {  # new code in the block
    "def": "def fresh() -> None: ...\n",
    "class": "class Fresh:\n    pass\n",
    "call": "print('x')\n",
    "assignment": "value = 1\n",
}


def module(guard: str, block: str) -> str:
    imp, test = GUARDS[guard]
    return in_block(imp + "\nx = 1\n\nif " + test + ":\n", block, "else:\n    Base = object\n\ny = 2\n")


def run_lines(code: str) -> set[int]:
    with lines_run() as lines:
        exec(compile(code, "generated.py", "exec"), {"__name__": "generated"})
    return lines


CHANGE_CASES = list(itertools.product(GUARDS, CHANGED))


@pytest.mark.parametrize(("guard", "change"), CHANGE_CASES, ids=[f"{g}-{c}" for g, c in CHANGE_CASES])
def test_a_changed_stub_is_accepted(guard: str, change: str) -> None:
    kind, new = CHANGED[change]
    before, after = module(guard, STUBS[kind]), module(guard, new)
    assert before != after
    assert unreachable(before, after) == []
    assert len(run_lines(before)) == len(run_lines(after))  # what runs is the same: nothing in the block


ADD_CASES = list(itertools.product(GUARDS, STUBS, ADDED, (False, True)))


@pytest.mark.parametrize(
    ("guard", "stub", "added", "first"),
    ADD_CASES,
    ids=[f"{g}-{s}-{a}-{'first' if f else 'last'}" for g, s, a, f in ADD_CASES],
)
def test_new_code_in_the_block_is_refused(guard: str, stub: str, added: str, first: bool) -> None:
    before = module(guard, STUBS[stub])
    after = module(guard, ADDED[added] + STUBS[stub] if first else STUBS[stub] + ADDED[added])
    found = unreachable(before, after)
    assert len(found) == 1 and ("TYPE_CHECKING" in found[0] or "TC" in found[0]), found
    new_line = after.splitlines().index(indent(ADDED[added]).splitlines()[0]) + 1
    assert f"line {new_line} " in found[0]
    assert new_line not in run_lines(after)


def test_a_stub_renamed_is_refused() -> None:
    """The renamed one is new code: the original has no typing-only `Other`."""
    before = module("plain", STUBS["class"])
    after = module("plain", STUBS["class"].replace("class Base", "class Other"))
    assert len(unreachable(before, after)) == 1

"""A change that lands only in the definition under `if TYPE_CHECKING:` when the branch that runs
(its `else`, or the body of `if not TYPE_CHECKING:`) defines the same name is refused: the patched
code never runs, its twin does, and the refusal names the twin's line (att21c). A typing stub (a
body of `...`, `pass` or a docstring) changed alone is still a typing change the proof accepts
(tests/prove/test_typing_stub_changes.py), and so is a definition with code that has no twin.

Generated: the guard (plain, dotted, aliased, negated) times the definition (a function with code,
a class whose method has code, a stub function) times whether the branch that runs has a twin. The
oracle runs the patched module and calls the name under a line tracer: a refused change is one no
run reaches while its twin runs."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.blocks import indent
from tests.lib.reach import lines_run, unreachable

GUARDS = {
    "plain": ("from typing import TYPE_CHECKING\n", "if TYPE_CHECKING:", True),
    "dotted": ("import typing\n", "if typing.TYPE_CHECKING:", True),
    "alias": ("from typing import TYPE_CHECKING as TC\n", "if TC:", True),
    "negated": ("from typing import TYPE_CHECKING\n", "if not TYPE_CHECKING:", False),
}
DEFS = {  # the typing-only definition, a change of it, and a call of its name
    "function": ("def f():\n    return 1\n", ("return 1", "return 2"), "f()"),
    "method": ("class f:\n    def m(self):\n        return 1\n", ("return 1", "return 2"), "f().m()"),
    "stub": ("def f() -> int: ...\n", ("-> int", "-> float"), "f()"),
}
TWIN = "def f():\n    return 0\n\n\nclass _F:\n    def m(self):\n        return 0\n"
RUNTIME_TWIN = {"function": TWIN, "method": "class f:\n    def m(self):\n        return 0\n", "stub": TWIN}


def module(guard: str, kind: str, twin: bool, changed: bool) -> str:
    head, test, typing_first = GUARDS[guard]
    code, (old, new), _ = DEFS[kind]
    stub = code.replace(old, new) if changed else code
    runtime = RUNTIME_TWIN[kind] if twin else "pass\n"
    first, second = (stub, runtime) if typing_first else (runtime, stub)
    return head + test + "\n" + indent(first) + "else:\n" + indent(second)


CASES = list(itertools.product(GUARDS, DEFS, (True, False)))


@pytest.mark.parametrize(
    ("guard", "kind", "twin"), CASES, ids=[f"{g}-{k}-{'twin' if t else 'alone'}" for g, k, t in CASES]
)
def test_a_change_only_in_the_typing_branch_is_refused_where_its_twin_is_what_runs(
    guard: str, kind: str, twin: bool
) -> None:
    before, after = module(guard, kind, twin, False), module(guard, kind, twin, True)
    found = unreachable(before, after)
    has_code = kind != "stub"
    assert bool(found) == (has_code and twin), (after, found)
    if not found:
        return
    assert "that runs is the one at line" in found[0], found[0]
    changed = next(i + 1 for i, line in enumerate(after.splitlines()) if DEFS[kind][1][1] in line)
    namespace: dict[str, object] = {"__name__": "generated"}
    with lines_run("generated.py") as lines:
        exec(compile(after, "generated.py", "exec"), namespace)
        exec(compile(DEFS[kind][2], "generated.py", "eval"), namespace)
    assert changed not in lines  # the patched code never runs
    assert eval(DEFS[kind][2], namespace) == 0  # its twin does

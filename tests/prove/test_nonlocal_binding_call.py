"""A local function that binds a local of its caller through `nonlocal`, called before the caller reads
it (att43 #10): `def g(): nonlocal v; v = 1` / `g()` / `r = v` / `if a: v = 2` is correct code, and was
refused ("read where it is not assigned yet (UnboundLocalError)"). A call of g now binds what every
return of g binds (the straight run of simple statements its body begins with).

Generated: what g's body does (binds v first thing, after another statement, under an `if`, after a
`return`, in a loop, then deletes it, as a generator) x how g is called (a statement, an assignment, an
argument, in a comprehension, not at all) x what reads v afterwards. The oracle runs f for a = 0 and 1:
nothing accepted raises NameError, and a direct call of a g that binds v on every return is accepted."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

BODIES = {
    "binds": ("nonlocal v\nv = 1\n", True),
    "binds after a statement": ("nonlocal v\nx = 3\nv = x\n", True),
    "under an if": ("nonlocal v\nif a:\n    v = 1\n", False),
    "after a return": ("nonlocal v\nif a:\n    return 0\nv = 1\n", False),
    "in a loop": ("nonlocal v\nfor _ in range(a):\n    v = 1\n", False),
    "then deleted": ("nonlocal v\nv = 1\ndel v\n", False),
    "generator": ("nonlocal v\nv = 1\nyield 0\n", False),
    "no nonlocal": ("v = 1\n", False),
}
CALLS = {
    "statement": ("g()\n", True),
    "assignment": ("x = g()\n", True),
    "argument": ("x = str(g())\n", True),
    "comprehension": ("x = [g() for _ in [0]]\n", False),
    "not called": ("", False),
}
READS = {"assign": "r = v\n", "return": "return v\n"}


def function(body: str, call: str, read: str) -> str:
    g = "def g():\n" + indent(BODIES[body][0], "    ")
    tail = f"{CALLS[call][0]}{READS[read]}if a:\n    v = 2\nreturn r\n"
    return "def f(a):\n" + indent(f"r = 0\n{g}{tail}", "    ")


CASES = sample(list(itertools.product(BODIES, CALLS, READS)))


@pytest.mark.parametrize(("body", "call", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_call_of_a_function_binding_a_local_through_nonlocal_binds_it(body: str, call: str, read: str) -> None:
    after = function(body, call, read)
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    raises = f_raises_name_error(after, [(0,), (1,)])
    if not found:
        assert not raises, after  # nothing accepted raises
    if BODIES[body][1] and CALLS[call][1]:
        assert not raises and not found, (after, [p.describe() for p in found])
    if raises:
        assert found, after

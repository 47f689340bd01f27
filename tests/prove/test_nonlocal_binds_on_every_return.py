"""A local function binding its caller's local through `nonlocal` on every way it returns, though not in
the straight run its body begins with (issue 21 #2): `def g(): nonlocal v; if a: v = 1; else: v = 2` /
`g()` / `r = v` was refused, and so was g called from a comprehension that surely runs its item
(`[g() for _ in [0]]`); `x = a and g()` / `r = v` was accepted, and raised UnboundLocalError where a
is false.

Generated: how g binds v (both branches of an if, a nested if, try and its handler, before an early
return, with a raise in the else; and the twins that leave it unbound on some return: one branch,
a handler that passes, a return before the binding, a `finally` that deletes it, a generator) x how g
is called (a statement, the first operand of `and`, a list or dict comprehension over a display; and
an operand after `and`/`or`, a conditional expression's branch, a comprehension over nothing, with an
`if`, inside one over nothing, a generator expression) x how v is read. The oracle runs f for a = 0, 1
and 2: the names step refuses exactly where one raises NameError; a `with` block in g (it may swallow
what its body raises) is not followed, so its binding is refused as well."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

BODIES = {
    "if and else": "if a:\n    v = 1\nelse:\n    v = 2\n",
    "nested if": "if a:\n    if a > 1:\n        v = 2\n    else:\n        v = 1\nelse:\n    v = 0\n",
    "try and handler": "try:\n    v = 1 // a\nexcept ZeroDivisionError:\n    v = 0\n",
    "before an early return": "v = 0\nif a:\n    return 1\nv = 2\n",
    "raise in the else": "if a:\n    v = 1\nelse:\n    raise ValueError\n",
    "in a with": "with open(__file__):\n    v = 1\n",
    # twins: some way back leaves v unbound
    "if only": "if a:\n    v = 1\n",
    "handler passes": "try:\n    v = 1 // a\nexcept ZeroDivisionError:\n    pass\n",
    "return before": "if a:\n    return 0\nv = 1\n",
    "finally deletes": "try:\n    v = 1\nfinally:\n    del v\n",
    "generator": "v = 1\nyield 0\n",
}
NOT_FOLLOWED = ("in a with",)
CALLS = {
    "statement": "g()\n",
    "first operand": "x = g() and a\n",
    "comprehension": "x = [g() for _ in [0]]\n",
    "dict comprehension": "x = {0: g() for _ in (0, 1)}\n",
    # twins: g may not run
    "after and": "x = a and g()\n",
    "after or": "x = a or g()\n",
    "conditional": "x = g() if a else 0\n",
    "comprehension over nothing": "x = [g() for _ in []]\n",
    "comprehension with if": "x = [g() for _ in [0] if a]\n",
    "inside one over nothing": "x = [[g() for _ in [0]] for _ in []]\n",
    "generator expression": "x = (g() for _ in [0])\n",
}
READS = {"assign": "r = v\n", "return": "return v\n"}


def function(body: str, call: str, read: str) -> str:
    g = "def g():\n" + indent("nonlocal v\n" + BODIES[body], "    ")
    tail = f"{CALLS[call]}{READS[read]}if a:\n    v = 2\nreturn r\n"
    return "def f(a):\n" + indent(f"r = 0\n{g}{tail}", "    ")


CASES = sample(list(itertools.product(BODIES, CALLS, READS)))


@pytest.mark.parametrize(("body", "call", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_local_bound_through_nonlocal_on_every_return_is_bound_after_a_call(body: str, call: str, read: str) -> None:
    after = function(body, call, read)
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    raises = f_raises_name_error(f"__file__ = {__file__!r}\n{after}", [(0,), (1,), (2,)], (ValueError,))
    assert bool(found) == (raises or body in NOT_FOLLOWED), (after, [p.describe() for p in found])

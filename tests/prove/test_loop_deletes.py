"""A `del` in a loop's body that reaches the loop's next pass (the last review note): `v = 0` / `for x
in a:` / `r = v` / `del v` was applied, and its second pass raised UnboundLocalError: the read was
judged with what was bound before the loop, which the first pass deletes.

Generated: the loop (a `for`, a `while`, a `for` nested in one, a `for` with an `else`) x the body
(the read before an unconditional or a conditional `del`, the name bound again after it on every
path or on some, bound before the read, deleted on the way to a `continue`, read by an augmented
assignment) x the scope (a function, module level). The oracle runs each over every list in XS: the
names step refuses exactly where one raises NameError (UnboundLocalError is one)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample

XS = ([], [1], [2], [1, 2], [2, 1], [3, 1], [1, 3, 2])
HEADS = {
    "for": "for x in xs:\n{body}",
    "while": "i = 0\nwhile i < len(xs):\n    x = xs[i]\n    i += 1\n{body}",
    "nested": "for y in xs:\n    for x in [y]:\n{inner}",
    "for-else": "for x in xs:\n{body}else:\n    pass\n",
}
BODIES = {
    "read-del": "r = v\ndel v\n",
    "read-conddel": "r = v\nif x > 1:\n    del v\n",
    "read-del-rebind": "r = v\ndel v\nv = x\n",
    "read-del-condrebind": "r = v\ndel v\nif x > 1:\n    v = x\n",
    "bind-read-del": "v = x\nr = v\ndel v\n",
    "del-continue": "r = v\nif x == 2:\n    del v\n    continue\n",
    "augmented": "v += 1\nif x > 2:\n    del v\n",
}
SCOPES = ("function", "module")


def code(head: str, body: str) -> str:
    text = BODIES[body]
    if head == "nested":
        return "v = 0\n" + HEADS[head].format(inner=indent(text, "        "))
    return "v = 0\n" + HEADS[head].format(body=indent(text, "    "))


def module(source: str, scope: str) -> str:
    if scope == "module":
        return "xs = XS\n" + source
    return "def f(xs):\n" + indent(source + "return 0\n", "    ")


def raises_name_error(source: str, scope: str) -> bool:
    for xs in XS:
        namespace: dict[str, object] = {"XS": list(xs)}
        try:
            exec(compile(source, "generated.py", "exec"), namespace)
            if scope == "function":
                namespace["f"](list(xs))  # type: ignore[operator]
        except NameError:
            return True
    return False


CASES = sample(list(itertools.product(HEADS, BODIES, SCOPES)))


@pytest.mark.parametrize(("head", "body", "scope"), CASES, ids=["-".join(c) for c in CASES])
def test_a_del_that_reaches_the_next_pass_is_refused_exactly_where_that_pass_reads_the_name(
    head: str, body: str, scope: str
) -> None:
    after = module(code(head, body), scope)
    before = module("v = 0\n", scope)
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == raises_name_error(after, scope), (after, [p.describe() for p in found])

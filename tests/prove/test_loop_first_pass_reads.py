"""A read in a loop's body of a name bound only further down the loop (att40b #1: `for x in range(a):`
/ `print(v)` / `if b: v = 1` was applied, and its first pass raised UnboundLocalError). The first
pass sees only what was bound before the loop; a later pass sees a binding only where an earlier
pass made it. So a read in the body that no binding before it reaches is refused, whatever the
loop: `for`, `async for`, `while` (its test, or `while True:` left by a `break`), nested loops (the
read in the inner one, the binding in the outer one), past a `continue`, and from a comprehension in
the body (its own scope, reading the function's local).

Generated: loop head x body order x read x binding x scope (a function, an async function, module
level). The oracle runs each over every iterable in XS (asyncio.run for the async one): the names
step refuses exactly where one raises NameError (UnboundLocalError is one)."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample

XS = ([], [1], [-1], [1, -1], [-1, 1], [2, 3], [1, 2, 3])
HEADS = {  # each ends in the body's header; BODY is the loop body, indented to it
    "for": "for x in xs:\n{body}",
    "for-else": "for x in xs:\n{body}else:\n    pass\n",
    "while": "i = 0\nwhile i < len(xs):\n    x = xs[i]\n    i += 1\n{body}",
    "while-true": "it = iter(xs)\nwhile True:\n    x = next(it, None)\n    if x is None:\n        break\n{body}",
    "nested": "for y in xs:\n    for x in xs:\n{inner}",
    "read-in-inner": "for x in xs:\n    for _ in [0]:\n{read}{bind}",  # the binding after the inner loop
}
ORDERS = {
    "read-bind": "{read}{bind}",
    "bind-read": "{bind}{read}",
    "read-continue-bind": "{read}if x == 2:\n    continue\n{bind}",
    "bound-before": "{read}{bind}",  # with `v = 0` above the loop
}
READS = {
    "read": "print(v)\n",
    "guarded": "if x < 0:\n    print(v)\n",
    "comprehension": "print([v for _ in (0,)])\n",
}
BINDS = {"bind": "v = x\n", "if-bind": "if x > 0:\n    v = x\n"}
SCOPES = ("function", "async", "module")
ASYNC_ITEMS = "async def items(xs):\n    for x in xs:\n        yield x\n\n\n"


def loop(head: str, order: str, read: str, bind: str) -> str:
    if head == "read-in-inner":
        if order != "read-bind":
            return ""
        return HEADS[head].format(read=indent(read, "        "), bind=indent(bind, "    "))
    body = ORDERS[order].format(read=read, bind=bind)
    if head == "nested":
        return HEADS[head].format(inner=indent(body, "        "))
    return ("v = 0\n" if order == "bound-before" else "") + HEADS[head].format(body=indent(body, "    "))


def module(code: str, scope: str) -> str:
    if scope == "module":
        return "xs = XS\n" + code
    if scope == "async":
        code = code.replace("for x in xs:", "async for x in items(xs):", 1)
        return ASYNC_ITEMS + "async def f(xs):\n" + indent(code, "    ")
    return "def f(xs):\n" + indent(code, "    ")


def runs_unbound(source: str, scope: str) -> bool:
    for xs in XS:
        namespace: dict[str, object] = {"XS": list(xs), "print": lambda *a: None}
        try:
            exec(compile(source, "generated.py", "exec"), namespace)
            if scope == "function":
                namespace["f"](list(xs))  # type: ignore[operator]
            elif scope == "async":
                asyncio.run(namespace["f"](list(xs)))  # type: ignore[operator]
        except NameError:
            return True
    return False


CASES = sample(
    [
        c
        for c in itertools.product(HEADS, ORDERS, READS, BINDS, SCOPES)
        if loop(*c[:4]) and not (c[4] == "async" and c[0] not in ("for", "for-else", "nested", "read-in-inner"))
    ]
)


@pytest.mark.parametrize(("head", "order", "read", "bind", "scope"), CASES, ids=["-".join(c) for c in CASES])
def test_a_read_in_a_loop_body_is_refused_exactly_where_a_pass_reads_the_name_unbound(
    head: str, order: str, read: str, bind: str, scope: str
) -> None:
    after = module(loop(head, order, READS[read], BINDS[bind]), scope)
    before = module(loop(head, order, "pass\n", BINDS[bind]), scope)
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == runs_unbound(after, scope), (after, [p.describe() for p in found])

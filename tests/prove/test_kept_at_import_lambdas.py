"""A lambda kept at import (issue 21, names51): `CBS = [lambda: v]` / `for cb in CBS: cb()` / `v = 1`
was accepted and raised NameError at import: lambdas kept at module level were not followed at all
(following them as kept defs are, at any later call, refused two correct modules of vLLM 0.33.0:
`LazyDict({"gelu": lambda: _get_gelu_pytorch_tanh()})` before that def). Now a lambda kept by a module
name bound once (a display, a container it is appended to, `functools.partial`, `threading.Thread`)
runs where that name is read at import: at module level, in a class body or a comprehension, or in a
module function (or a function it calls) run at import; not its truth, `is None` or an append to it.
A def kept so runs there too (it ran at any later call: `x = str(1)` after `CBS = [g]` was refused).

Generated: how the lambda (or a def) is kept x how it is reached (a loop at module level, a module function
given the container, a module function run at import reading the global, through a function it
calls, its truth only, an unrelated call) x where v is bound (before the store, between the store and
the run, after the run). The oracle is Python importing the module."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.generated import sample
from tests.lib.name_errors import raises_anywhere

KEEPS = {  # module code keeping `lambda: v` in CBS, and what runs each thing CBS holds
    "a list display": ("CBS = [lambda: v]\n", "CBS"),
    "appended to a list": ("CBS = []\nCBS.append(lambda: v)\n", "CBS"),
    "a dict display": ("CBS = {'a': lambda: v}\n", "CBS.values()"),
    "a partial": ("import functools\nCBS = functools.partial(lambda: v)\n", "[CBS]"),
    "a Thread": ("import threading\nCBS = threading.Thread(target=lambda: v)\n", "[CBS.run]"),
    # a def kept so ran at any later call (`x = str(...)` after it was refused): now as a lambda is
    "a def in a list display": ("def g():\n    return v\n\n\nCBS = [g]\n", "CBS"),
    "a def appended to a list": ("def g():\n    return v\n\n\nCBS = []\nCBS.append(g)\n", "CBS"),
}
DEFS = """def run_all(cbs):
    for cb in cbs:
        cb()


def go():
    run_all({every})


def outer():
    go()


"""
REACHES = {  # module code after the store: does it run what CBS holds?
    "a loop at module level": "for cb in {every}:\n    cb()\n",
    "a module function given it": "run_all({every})\n",
    "a module function reading it": "go()\n",
    "a function calling one reading it": "outer()\n",
    "a comprehension reading it": "x = [0 for _ in [1] if go() is None]\n",
    "a class body reading it": "class D:\n    x = run_all({every})\n",
    "its truth only (twin)": "if CBS:\n    x = str(1)\n",
    "an unrelated call (twin)": "x = str(len('ab'))\n",
}
ORDERS = ("bound before the store", "bound before the run", "bound after the run")


def module(keep: str, reach: str, order: str) -> str:
    store, every = KEEPS[keep]
    before = "v = 1\n" if order == "bound before the store" else ""
    between = "v = 1\n" if order == "bound before the run" else ""
    after = "v = 1\n" if order == "bound after the run" else ""
    return f"{DEFS.format(every=every)}{before}{store}{between}{REACHES[reach].format(every=every)}{after}"


CASES = sample(list(itertools.product(KEEPS, REACHES, ORDERS)))


@pytest.mark.parametrize(("keep", "reach", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_a_lambda_kept_at_import_runs_where_its_holder_is_read(keep: str, reach: str, order: str) -> None:
    after = module(keep, reach, order)
    compile(after, "generated.py", "exec")
    found = introduced(b"x = 0\n", after.encode())
    assert found is not None, after
    try:
        raises = raises_anywhere(after, lambda namespace, a: None)
    except NameError:
        raises = True
    assert bool(found) == raises, (after, [p.describe() for p in found])

"""A callback stored to be called later (issue 21 #3): `t = threading.Thread(target=g)` / `v = 1` /
`t.start()` was refused, because passing g to a call counted as calling it there. Passed to
`functools.partial` or `threading.Thread`/`Timer` (which call nothing they are given), g runs at no
point of its own; passed to any call it may be kept, and run at any later call, `return` or at the
end of the function: a run there before v is bound is refused.

Generated: how g is kept (`threading.Thread(target=g)`, `Thread` imported from threading,
`functools.partial(g)`, `partial`, `threading.Timer(0, g)`; a module function that keeps it, one that
calls it at once) x where v is bound (before the store, between it and the run; the twins: after the
run, on some paths only, after the kept object is returned to the caller that runs it) and a call
between the store and the binding (not a run of what only the local k reaches, names47). The
oracle runs f for a = 0 and 1, then what it returns, catching what a thread raises: the names step
refuses exactly where one raises NameError, and a store into an unknown function where v is not yet
bound (it may call g at once)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import raises_anywhere

HEAD = """import functools
import threading
from functools import partial
from threading import Thread

KEPT = []


def keep(fn):
    KEPT.append(fn)
    return fn


def call_now(fn):
    fn()
    return fn


def run(k):
    if isinstance(k, threading.Thread):
        k.start()
        k.join()
    elif k is not None:
        k()


"""
KEEPS = {  # how g is kept, how the function runs what it kept
    "threading.Thread": ("k = threading.Thread(target=g)\n", "k.start()\nk.join()\n"),
    "Thread": ("k = Thread(target=g)\n", "k.start()\nk.join()\n"),
    "functools.partial": ("k = functools.partial(g)\n", "k()\n"),
    "partial": ("k = partial(g)\n", "k()\n"),
    "threading.Timer": ("k = threading.Timer(0, g)\n", "k.start()\nk.join()\n"),
    "a function that keeps it": ("k = keep(g)\n", "k()\n"),
    "a function that calls it": ("k = call_now(g)\n", "k()\n"),
}
UNKNOWN = ("a function that keeps it", "a function that calls it")  # may call g at once
ORDERS = {  # the body after g's def: {store}, {run} and v's bindings
    "bound before": "v = 1\n{store}{run}return None\n",
    "bound between": "{store}v = 1\n{run}return None\n",
    "returned after bound": "{store}v = 1\nreturn k\n",
    "a call between": "{store}str(0)\nv = 1\n{run}return None\n",
    # twins
    "bound after the run": "{store}{run}v = 1\nreturn None\n",
    "bound on some paths": "{store}if a:\n    v = 1\n{run}return None\n",
    "returned before bound": "{store}if a:\n    return k\nv = 1\nreturn k\n",
}
UNBOUND_AT_STORE = ("bound between", "returned after bound", "a call between", "bound after the run")
UNBOUND_AT_STORE += ("bound on some paths", "returned before bound")


def function(keep: str, order: str) -> str:
    store, run = KEEPS[keep]
    body = "def g():\n    return v\n" + ORDERS[order].format(store=store, run=run)
    return HEAD + "def f(a):\n" + indent(body, "    ")


def raises_name_error(source: str) -> bool:
    """f(a), then what it returned run, for a = 0 and 1: NameError anywhere (a thread's too)?"""
    return raises_anywhere(source, lambda ns, a: ns["run"](ns["f"](a)))  # type: ignore[operator]


CASES = sample(list(itertools.product(KEEPS, ORDERS)))


@pytest.mark.parametrize(("keep", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_a_callback_kept_is_judged_where_it_may_run(keep: str, order: str) -> None:
    after = function(keep, order)
    found = introduced(f"{HEAD}def f(a):\n    return None\n".encode(), after.encode())
    assert found is not None, after
    raises = raises_name_error(after)
    allowed = keep in UNKNOWN and order in UNBOUND_AT_STORE
    assert bool(found) == (raises or allowed), (after, [p.describe() for p in found])

"""Functions kept to run later, followed per path and per holder (issue 21 #3, names47).

Refused though correct before: a function kept on one path was judged against a `del` on another
(vLLM 0.33.0 `vllm/v1/engine/core_client.py`: `loop.call_soon_threadsafe(close)` in one branch,
`del tasks` in its sibling); a call between `t = Thread(target=g)` and `v = 1` counted as a run of g
though nothing but t reaches it; `k = []` / `k.append(g)` counted as a call of g. Accepted though
wrong before: `k = [g]` / `for cb in k: cb()` before v is bound (a container was not followed).

Generated: how g is kept (a Thread, a partial, a list display, appended to a list, stored into a dict,
added to a set, a tuple passed on to a function that runs it, a list grown by `+=`, a set by `|=`, a
container given another name before g goes in and run through that name, a lambda reading v written
where it is kept; kept
by a function that keeps it, stored on an attribute: those run after f returns) x where (a call between
the store and v's binding; the twins: run before v is bound, its truth tested between, kept on the path
that binds v with a `del v` on the sibling path, a `del v` on its own path). The oracle runs f for a = 0
and 1, then what f kept (a thread's NameError counted): the names step refuses exactly where one raises
NameError, and where a function kept by any call may run at a later call (`keep(g)` / `other()` / `v =
1`: refused) or at once (`keep(g)` before v is bound: refused)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import KEEPING, KEPT_WAYS, raises_anywhere

HEAD = (
    """import functools
import threading

KEPT = []


"""
    + KEEPING
)
KEEPS = {  # how g is kept, how f runs it
    **KEPT_WAYS,
    # run through another name the container was given before g went in (att50 #1: accepted though
    # `for cb in j` ran g before v was bound): any later call may run it
    "appended after an alias": ("k = []\nj = k\nk.append(g)\n", "for cb in j:\n    cb()\n"),
    "grown with += after an alias": ("k = []\nj = k\nk += [g]\n", "for cb in j:\n    cb()\n"),
    "stored into a dict after an alias": ("k = {}\nj = k\nk['g'] = g\n", "for cb in j.values():\n    cb()\n"),
    # a lambda written where it is kept, reading v as g does (att50 #2: only named functions were followed)
    "a lambda in a list display": ("k = [lambda: v]\n", "for cb in k:\n    cb()\n"),
    "a lambda appended": ("k = []\nk.append(lambda: v)\n", "for cb in k:\n    cb()\n"),
    "a lambda to a Thread": ("k = threading.Thread(target=lambda: v)\n", "k.start()\nk.join()\n"),
    "a lambda kept by a call": ("k = keep(lambda: v)\n", ""),
    # run once f has returned (run_kept)
    "kept by a call": ("k = keep(g)\n", ""),
    "stored on an attribute": ("k = g\nBOX.cb = k\n", ""),
}
ANYWHERE = (  # any later call may run it
    "kept by a call",
    "a lambda kept by a call",
    "stored on an attribute",
    "appended after an alias",
    "grown with += after an alias",
    "stored into a dict after an alias",
)
UNBOUND_AT_STORE = ("a call between", "run before bound", "its truth tested between")  # keep(g) may call g at once
SHAPES = {
    "a call between": "{store}other()\nv = 1\n{run}",
    # twins
    "run before bound": "{store}{run}v = 1\n",
    "its truth tested between": "{store}if k:\n    pass\nv = 1\n{run}",
    "deleted on the sibling path": "v = 1\nif a:\n{store_}{run_}else:\n    del v\nother()\n",
    "deleted on its own path": "v = 1\nif a:\n{store_}    del v\n{run_}",
}


def function(keep: str, shape: str) -> str:
    store, run = KEEPS[keep]
    body = SHAPES[shape].format(store=store, run=run, store_=indent(store), run_=indent(run))
    return HEAD + "def f(a):\n" + indent("def g():\n    return v\n" + body + "return None\n")


def raises_name_error(source: str) -> bool:
    """f(a), then what it kept run, for a = 0 and 1: NameError anywhere (a thread's too)?"""
    return raises_anywhere(source, lambda ns, a: (ns["f"](a), ns["run_kept"]()))  # type: ignore[operator]


CASES = sample(list(itertools.product(KEEPS, SHAPES)))


@pytest.mark.parametrize(("keep", "shape"), CASES, ids=["-".join(c) for c in CASES])
def test_a_kept_function_is_judged_where_it_may_run_on_its_own_path(keep: str, shape: str) -> None:
    after = function(keep, shape)
    found = introduced(f"{HEAD}def f(a):\n    return None\n".encode(), after.encode())
    assert found is not None, after
    raises = raises_name_error(after)
    allowed = keep in ANYWHERE and shape == "a call between"  # `other()` may run what a call kept
    allowed = allowed or (keep in ("kept by a call", "a lambda kept by a call") and shape in UNBOUND_AT_STORE)
    assert bool(found) == (raises or allowed), (after, [p.describe() for p in found])

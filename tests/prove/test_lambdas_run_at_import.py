"""Lambdas run at import where no `g()` of them is written (issue 21, names53 #2): `def register(fn): fn()` /
`register(lambda: v)` / `v = 1`, and `class C: f = staticmethod(lambda: v)` / `C.f()` / `v = 1`, were
accepted and raised NameError at import: a lambda passed to a call at import or kept in a class body was
not followed at all. Now a class body's lambda member (bare, `staticmethod`, `classmethod`, `property`)
is a method as a def is, and a lambda passed at import to a function of the module whose body calls
that parameter, or to `sorted`/`min`/`max` as `key`, runs at the call. A lambda passed to any other call
at import (an imported one: `functools.lru_cache(lambda: v)`, vLLM's `LazyDict({...: lambda: f()})`,
or a module function that only keeps it) is still not followed: it may run only later.

Generated: how the lambda is reached x where v is bound (before the lambda; between the class and the
call; after the run) x where it all runs (at import, in a function called at import). The oracle is
Python importing the module: the names step refuses exactly where that raises NameError."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import raises_anywhere

CALLING = "def register(fn, *rest):\n    fn()\n    return fn\n"
KEEPING = "KEPT = []\n\n\ndef keep_it(fn):\n    KEPT.append(fn)\n    return fn\n"
WAYS = {  # (code made before `{between}`, code that runs the lambda after it)
    "a module function calling its parameter": (CALLING, "register(lambda: v)\n"),
    "the same by keyword": (CALLING, "register(fn=lambda: v)\n"),
    "the same from a class body": (CALLING, "class D:\n    r = register(lambda: v)\n"),
    "sorted's key": ("", "r = sorted([1, 2], key=lambda k: v)\n"),
    "max's key": ("", "r = max([1, 2], key=lambda k: v)\n"),
    "a class body's staticmethod lambda called": ("class C:\n    f = staticmethod(lambda: v)\n", "C.f()\n"),
    "a class body's lambda called on an instance": ("class C:\n    f = lambda self: v\n", "C().f()\n"),
    "a class body's classmethod lambda called": ("class C:\n    f = classmethod(lambda cls: v)\n", "C.f()\n"),
    "a class body's property lambda read": ("class C:\n    p = property(lambda self: v)\n", "x = C().p\n"),
    # twins: nothing runs the lambda at import
    "a module function keeping it (twin)": (KEEPING, "keep_it(lambda: v)\n"),
    "a module function given it second, calling the first (twin)": (CALLING, "register(str, lambda: v)\n"),
    "an imported call (twin)": ("import functools\n", "r = functools.lru_cache(lambda: v)\n"),
    "a class body's lambda not called (twin)": ("class C:\n    f = staticmethod(lambda: v)\n", "x = C.__name__\n"),
}
ORDERS = ("bound before", "bound between the making and the run", "bound after the run")
SCOPES = ("at import", "in a function called at import")


def module(way: str, order: str, scope: str) -> str:
    made, runs = WAYS[way]
    before = "v = 1\n" if order == "bound before" else ""
    between = "v = 1\n" if order == "bound between the making and the run" else ""
    after = "v = 1\n" if order == "bound after the run" else ""
    code = f"{before}{made}{between}{runs}{after}"
    return code if scope == "at import" else f"def f():\n{indent(code)}    return 0\n\n\nf()\n"


def import_raises_name_error(source: str) -> bool:
    try:
        return raises_anywhere(source, lambda namespace, a: None)
    except NameError:
        return True


# in a function a lambda passed to a call counts as run there (and kept: at any later call, names47), as
# a def passed to one does: the twins that pass a lambda on hold at import only
PASSED_TWINS = ("a module function keeping it (twin)", "a module function given it second, calling the first (twin)")
CASES = sample(
    [
        c
        for c in itertools.product(WAYS, ORDERS, SCOPES)
        if not (c[2] != "at import" and (c[0] in PASSED_TWINS or c[0] == "an imported call (twin)"))
    ]
)


@pytest.mark.parametrize(("way", "order", "scope"), CASES, ids=["-".join(c) for c in CASES])
def test_a_lambda_run_at_import_is_judged_where_it_runs(way: str, order: str, scope: str) -> None:
    after = module(way, order, scope)
    compile(after, "generated.py", "exec")
    found = introduced(b"x = 0\n", after.encode())
    assert found is not None, after
    raises = import_raises_name_error(after)
    assert bool(found) == raises, (after, [p.describe() for p in found])

"""An instance of a class the function defines, reached where its class is not told (issue 21, names47):
`class K:` with a `__call__` (a `__bool__`, `__iter__`, a property) reading v, then `ks = [K()]` /
`for k in ks: k()` before `v = 1`, was accepted and raised NameError; so was one reached through a
parameter's default (`def g(k=K()): k()` / `g()`), a return value (`k = make()`), a dict's value, an
attribute (`self.k = K()` / `self.k()`). (One passed to a call already counted as any of its special
methods run there.) Such an operand now counts as an
instance of every class the function defined (unknown_instances).

Generated: how the instance is reached x what is done with it (called, its truth, iterated, a property
read) x which method of K reads v (the one the use calls; the twin: another one) x where v is bound
(before: accepted; after, or on some paths only: the twins). The oracle runs f for a = 0 and 1: the
names step refuses exactly where one raises NameError."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

REACHES = {  # code making the instance reachable, then `{use}` run on it as `k`
    "a container": "ks = [K()]\nfor k in ks:\n{use}",
    "a dict's value": "ks = {{'a': K()}}\nk = ks['a']\nif True:\n{use}",
    "a return value": "def make():\n    return K()\nk = make()\nif True:\n{use}",
    "a parameter's default": "def g(k=K()):\n{use}    return 0\ng()\n",
    "an attribute": "class H:\n    def __init__(self):\n        self.k = K()\n    def go(self):\n        k = self.k\n"
    "{use_}        return 0\nH().go()\n",
}
USES = {  # the use, the method of K it calls
    "called": ("k()\n", "__call__"),
    "its truth": ("if k:\n    pass\n", "__bool__"),
    "iterated": ("for x in k:\n    pass\n", "__iter__"),
    "a property read": ("x = k.p\n", "p"),
}
READS = {  # each method of K, reading v
    "__call__": "def __call__(self):\n    return v\n",
    "__bool__": "def __bool__(self):\n    return bool(v)\n",
    "__iter__": "def __iter__(self):\n    return iter([v])\n",
    "p": "@property\ndef p(self):\n    return v\n",
}
PLAIN = {  # what K has besides, so every use works when v is bound
    "__call__": "def __call__(self):\n    return 0\n",
    "__iter__": "def __iter__(self):\n    return iter([0])\n",
    "p": "@property\ndef p(self):\n    return 0\n",
}
WHICH = ("the one the use calls", "another one")
ORDERS = ("bound before", "bound after", "bound on some paths")


def function(reach: str, use: str, which: str, order: str) -> str:
    code, method = USES[use]
    if which == "another one":
        method = "__call__" if method != "__call__" else "p"
    text = READS[method] + "".join(plain for name, plain in PLAIN.items() if name != method)
    cls = "class K:\n" + indent(text)
    bind = {"bound before": "v = 1\n", "bound after": "", "bound on some paths": "if a:\n    v = 1\n"}[order]
    after = "v = 1\n" if order == "bound after" else ""
    body = REACHES[reach].format(use=indent(code), use_=indent(code, " " * 8))
    return "def f(a):\n" + indent(f"{cls}{bind}{body}{after}return 0\n")


CASES = sample(list(itertools.product(REACHES, USES, WHICH, ORDERS)))


@pytest.mark.parametrize(("reach", "use", "which", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_an_instance_reached_any_way_is_judged_where_its_methods_run(
    reach: str, use: str, which: str, order: str
) -> None:
    after = function(reach, use, which, order)
    compile(after, "generated.py", "exec")
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    raises = f_raises_name_error(after, [(0,), (1,)], (TypeError,))
    assert bool(found) == raises, (after, [p.describe() for p in found])

"""What Python calls of an instance where no call is written (issue 21 #4): `k = K()` / `if k:` / `v = 1`,
K a class of the same function whose `__bool__` reads v, was accepted and raised NameError; so were
`for x in k` (`__iter__`, `__next__`), `with k:` (`__enter__`, `__exit__`), `k += 1` (`__iadd__`, else
`__add__`), an `and`/`or` operand, a conditional expression's test and a comprehension's iterable or
`if`.

Generated: the use of k x which special method of K reads v (the one the use calls, or another one) x
where v is bound (before the use: accepted; after it, or on some paths only: the twins). The oracle
runs f for a = 0 and 1: the names step refuses exactly where one raises NameError (`__exit__` is taken
as run where the `with` begins: a name only its body binds, read there, is refused)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

USES = {  # the use, the special methods it calls
    "if": ("if k:\n    pass\n", ("__bool__", "__len__")),
    "while": ("while k:\n    break\n", ("__bool__", "__len__")),
    "assert": ("assert k or True\n", ("__bool__", "__len__")),
    "and": ("x = k and 1\n", ("__bool__", "__len__")),
    "conditional": ("x = 1 if k else 0\n", ("__bool__", "__len__")),
    "for": ("for x in k:\n    pass\n", ("__iter__", "__next__")),
    "comprehension": ("x = [y for y in k]\n", ("__iter__", "__next__")),
    "comprehension if": ("x = [y for y in [1] if k]\n", ("__bool__", "__len__")),
    "with": ("with k:\n    pass\n", ("__enter__", "__exit__")),
    "augmented": ("k += 1\n", ("__iadd__", "__add__")),
}
METHODS = {
    "__bool__": "def __bool__(self):\n    return bool(v)\n",
    "__len__": "def __len__(self):\n    return v\n",
    "__iter__": "def __iter__(self):\n    return iter([v])\n",
    "__next__": "def __iter__(self):\n    return self\ndef __next__(self):\n    if v:\n        raise StopIteration\n"
    "    return 0\n",
    "__enter__": "def __enter__(self):\n    return v\ndef __exit__(self, *e):\n    return None\n",
    "__exit__": "def __enter__(self):\n    return self\ndef __exit__(self, *e):\n    return v\n",
    "__iadd__": "def __iadd__(self, o):\n    return v\n",
    "__add__": "def __add__(self, o):\n    return v\n",
}
DEFAULTS = {  # what K has besides, so every use works when v is bound
    "__iter__": "def __iter__(self):\n    return iter([0])\n",
    "__enter__": "def __enter__(self):\n    return self\ndef __exit__(self, *e):\n    return None\n",
    "__add__": "def __add__(self, o):\n    return self\n",
}
ORDERS = ("bound before", "bound after", "bound on some paths")


def function(use: str, method: str, order: str) -> str:
    text = METHODS[method]
    for name, default in DEFAULTS.items():
        if name not in text and not (name == "__iter__" and method == "__next__"):
            text += default
    cls = "class K:\n" + indent(text, "    ")
    bind = {"bound before": "v = 1\n", "bound after": "", "bound on some paths": "if a:\n    v = 1\n"}[order]
    after = "v = 1\n" if order == "bound after" else ""
    body = f"{cls}k = K()\n{bind}{USES[use][0]}{after}return 0\n"
    return "def f(a):\n" + indent(body, "    ")


CASES = sample(list(itertools.product(USES, METHODS, ORDERS)))


@pytest.mark.parametrize(("use", "method", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_what_python_calls_of_an_instance_reads_where_it_is_called(use: str, method: str, order: str) -> None:
    after = function(use, method, order)
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    raises = f_raises_name_error(after, [(0,), (1,)], (TypeError,))
    assert bool(found) == raises, (after, [p.describe() for p in found])

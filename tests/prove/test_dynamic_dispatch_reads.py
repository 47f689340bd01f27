"""Code that runs where the walk did not look (issue 21, names51): the names step accepted, and the
module then raised NameError at import, for

- a comprehension's `if` on its own variable (`[0 for k in ks if k]`: the truth of k, an instance of a
  class whose `__bool__` reads v, is tested in the comprehension's scope, and so is a later generator's);
- a lambda called at once (`(lambda: make().m())()`, `(lambda: v)()`), at module level, in a function or
  in a class body;
- an instance an imported module hands back through a name of its own ("foreign": `CV = ContextVar()`,
  `Q = queue.SimpleQueue()`), given the instance (`CV.set(self)` in `__init__`), the class
  (`Q.put(C)`) or a function making one (`Q.put(make)`): each makes that name one that may hold an
  instance; the twin (`Q.put('a')`, a string) keeps it foreign and is accepted.

Generated: the way x what is done with k (a method called, its truth, a property read) x which method
of C reads v (the one the use calls; the twin: another one) x where v is bound (before the class or
before the use: accepted; after the use: refused) x where it all runs (at import, in a function called
at import). The oracle is Python importing the module: the names step refuses exactly where that
raises NameError (another error, `'str' object has no attribute 'm'`, ends the import as meant)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import raises_anywhere

MAKE = "def make():\n    return C()\n"
QUEUE = "import queue\nQ = queue.SimpleQueue()\n"
WAYS = {  # code after class C: {stmt} a statement on k, {cond} a comprehension's test of k, {expr} one of make()
    "a comprehension's if": "r = [0 for k in [C()] if {cond}]\n",
    "a later generator's if": "r = [0 for ks in [[C()]] for k in ks if {cond}]\n",
    "a lambda called at once": MAKE + "r = (lambda: {expr})()\n",
    "a lambda called at once reading v": "r = (lambda: v)()\n",
    "a lambda called at once in a class body": MAKE + "class D:\n    r = (lambda: {expr})()\n",
    "an imported module given the instance": "C()\nk = CV.get()\n{stmt}",
    "an imported module given the class": "Q.put(C)\nk = Q.get()()\n{stmt}",
    "an imported module given a function making one": MAKE + "Q.put(make)\nk = Q.get()()\n{stmt}",
    "an imported module given a string (twin)": "Q.put('a')\nk = Q.get()\n{stmt}",
}
BEFORE = {  # what a way needs before class C
    "an imported module given the instance": "import contextvars\nCV = contextvars.ContextVar('cv')\n",
    "an imported module given the class": QUEUE,
    "an imported module given a function making one": QUEUE,
    "an imported module given a string (twin)": QUEUE,
}
INIT = "def __init__(self):\n    CV.set(self)\n"  # C hands itself to CV (the instance way)
USES = {  # the use on k: a statement, a comprehension's test, an expression; the method of C it calls
    "a method called": ("x = {k}.m()\n", "{k}.m() == 0", "{k}.m() == 0", "m"),
    "its truth": ("if {k}:\n    pass\n", "{k}", "1 if {k} else 0", "__bool__"),
    "a property read": ("x = {k}.p\n", "{k}.p == 0", "{k}.p == 0", "p"),
}
READS = {  # each method of C, reading v
    "m": "def m(self):\n    return v\n",
    "__bool__": "def __bool__(self):\n    return bool(v)\n",
    "p": "@property\ndef p(self):\n    return v\n",
}
PLAIN = {  # the same, reading nothing: every use works when v is bound
    "m": "def m(self):\n    return 0\n",
    "__bool__": "def __bool__(self):\n    return True\n",
    "p": "@property\ndef p(self):\n    return 0\n",
}
WHICH = ("the one the use calls", "another one")
ORDERS = ("bound before the class", "bound before the use", "bound after the use")
SCOPES = ("at import", "in a function called at import")


def module(way: str, use: str, which: str, order: str, scope: str) -> str:
    stmt, cond, expr, method = USES[use]
    if which == "another one":
        method = "m" if method != "m" else "p"
    init = INIT if way == "an imported module given the instance" else ""
    methods = init + READS[method] + "".join(p for name, p in PLAIN.items() if name != method)
    body = WAYS[way].format(stmt=stmt.format(k="k"), cond=cond.format(k="k"), expr=expr.format(k="make()"))
    before = "v = 1\n" if order == "bound before the class" else ""
    between = "v = 1\n" if order == "bound before the use" else ""
    after = "v = 1\n" if order == "bound after the use" else ""
    code = f"{BEFORE.get(way, '')}{before}class C:\n{indent(methods)}{between}{body}{after}"
    return code if scope == "at import" else f"def f():\n{indent(code)}    return 0\n\n\nf()\n"


def import_raises_name_error(source: str) -> bool:
    try:
        return raises_anywhere(source, lambda namespace, a: None)
    except NameError:
        return True
    except (AttributeError, TypeError):
        return False


# in a function a call's result counts as an instance of its classes (names47; no name of it is foreign)
TWIN_ONLY_AT_IMPORT = ("an imported module given a string (twin)", "in a function called at import")
CASES = sample([c for c in itertools.product(WAYS, USES, WHICH, ORDERS, SCOPES) if (c[0], c[4]) != TWIN_ONLY_AT_IMPORT])


@pytest.mark.parametrize(("way", "use", "which", "order", "scope"), CASES, ids=["-".join(c) for c in CASES])
def test_code_run_by_dynamic_dispatch_is_judged_where_it_runs(
    way: str, use: str, which: str, order: str, scope: str
) -> None:
    after = module(way, use, which, order, scope)
    compile(after, "generated.py", "exec")
    found = introduced(b"x = 0\n", after.encode())
    assert found is not None, after
    raises = import_raises_name_error(after)
    assert bool(found) == raises, (after, [p.describe() for p in found])

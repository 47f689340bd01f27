"""Code Python runs for you, before a name it reads is bound (issue 21): a nested class's method called
as `K().m()` or `K.m(0)`, `__init__` run by `K()`, a class body (it runs at once), a decorator of this
scope (its own body, and the function where it calls it), a property read, a setter, `k[0]`, `k == 1`,
`k + 1`, `-k`, `str(K())`, `len(k)`, `k()`, an inherited `__getitem__`, a call in a class body. Each
read `v`, bound after it, was applied, and raised NameError (UnboundLocalError) when it ran.

Generated: the shape x where the name is bound (before, after, on some paths only: `if a: v = 1`, or
under the same test as the code that runs it) x placement (in a function: v one of its locals; at
module level: v a module name, `if A:` read from the environment; the code that runs it in a class body
in either). The controls run nothing
(a class named, a method not called, a decorator that only returns the function, a plain method read
as an attribute, a decorator that wraps or registers the function) and must stay accepted where
Python raises nothing. The oracle is Python running it: f(0) and f(1), or the module imported with A
false and true."""

from __future__ import annotations

import itertools
import re

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

KLASS = "class K:\n"
METHOD = "    def m(self):\n        return v\n"
SETTER = "    @p.setter\n    def p(self, x):\n        self.y = v\n"
MADE = "k = K()\n"  # made first: a call between the test and the read forgets the test (path_facts), as for `r = v`
# shape: (what is defined first, the code that runs it)
SHAPES = {
    "method on K()": (KLASS + METHOD, "r = K().m()\n"),
    "method on class": (KLASS + METHOD, "r = K.m(0)\n"),
    "method on instance": (KLASS + METHOD + MADE, "r = k.m()\n"),
    "init": (KLASS + "    def __init__(self):\n        self.x = v\n", "r = K()\n"),
    "class body": ("", "class C:\n    x = v\nr = C\n"),
    "decorator calls it": (
        "def apply_now(fn):\n    fn()\n    return fn\n",
        "@apply_now\ndef g():\n    return v\nr = g\n",
    ),
    "decorator calls it in an argument": (
        "def apply(fn):\n    return str(fn())\n",
        "@apply\ndef g():\n    return v\nr = g\n",
    ),
    "decorator reads": ("def deco(fn):\n    return v\n", "@deco\ndef g():\n    pass\nr = g\n"),
    "property": (KLASS + "    @property\n    def p(self):\n        return v\n" + MADE, "r = k.p\n"),
    "setter": (
        KLASS + "    @property\n    def p(self):\n        return 0\n" + SETTER + MADE,
        "k.p = 1\n",
    ),
    "getattr": (KLASS + "    def __getattr__(self, name):\n        return v\n", "r = K().anything\n"),
    "getitem": (KLASS + "    def __getitem__(self, i):\n        return v\n", "r = K()[0]\n"),
    "setitem": (KLASS + "    def __setitem__(self, i, x):\n        self.y = v\n" + MADE, "k[0] = 1\n"),
    "eq": (KLASS + "    def __eq__(self, o):\n        return v\n", "r = K() == 1\n"),
    "contains": (KLASS + "    def __contains__(self, o):\n        return v\n", "r = 1 in K()\n"),
    "radd": (KLASS + "    def __radd__(self, o):\n        return v\n", "r = 1 + K()\n"),
    "neg": (KLASS + "    def __neg__(self):\n        return v\n", "r = -K()\n"),
    "str": (KLASS + "    def __str__(self):\n        return str(v)\n", "r = str(K())\n"),
    "len of instance": (KLASS + "    def __len__(self):\n        return v\n" + MADE, "r = len(k)\n"),
    "called instance": (KLASS + "    def __call__(self):\n        return v\n" + MADE, "r = k()\n"),
    "inherited": (
        "class B:\n    def __getitem__(self, i):\n        return v\nclass K(B):\n    pass\n",
        "r = K()[0]\n",
    ),
    "call in class body": ("def g():\n    return v\n", "class C:\n    x = g()\nr = C\n"),
    # controls: nothing of the code reading v runs here
    "control: class named": (KLASS + METHOD, "r = K\n"),
    "control: method read": (KLASS + METHOD, "r = K().m\n"),
    "control: keeping decorator": ("def keep(fn):\n    return fn\n", "@keep\ndef g():\n    return v\nr = g\n"),
    "control: wrapping decorator": (
        "def wrap(fn):\n    def w():\n        return fn()\n    return w\n",
        "@wrap\ndef g():\n    return v\nr = 0\n",
    ),
    "control: registering decorator": (
        "seen = []\ndef register(fn):\n    seen.append(fn)\n    return fn\n",
        "@register\ndef g():\n    return v\nr = 0\n",
    ),
    "control: passed, no special method": (KLASS + METHOD, "r = id(K())\n"),
    "control: plain attribute": (KLASS + "    @property\n    def p(self):\n        return v\n", "r = K().__class__\n"),
}
ORDERS = ("before", "after", "some paths", "same test")
# where the code that runs it sits: in a function, at module level, or in a class body in either (it runs at once)
PLACEMENTS = ("function", "module", "class in function", "class at module level")
BIND = "v = 1\n"
HEAD = "import os\nA = os.environ.get('RP_A')\n"


def body(shape: str, order: str, in_class: bool) -> str:
    define, run = SHAPES[shape]
    if in_class:
        run = "class Outer:\n" + indent(run)
    first, second = (BIND, run) if order == "before" else (run, BIND)
    if order == "some paths":  # NameError where a is false
        first, second = "if a:\n" + indent(BIND), run
    elif order == "same test":  # bound and run under the same test: never unbound where it runs
        first, second = "if a:\n" + indent(BIND), "if a:\n" + indent(run)
    return f"r = 0\n{define}{first}{second}"


def source(shape: str, order: str, placement: str) -> str:
    text = body(shape, order, placement.startswith("class"))
    if placement.endswith("function"):
        return "def f(a):\n" + indent(text + "return r\n")
    return HEAD + re.sub(r"\bv\b", "V", text.replace("if a:", "if A:"))


def raises_name_error(text: str, placement: str) -> bool:
    if placement.endswith("function"):
        return f_raises_name_error(text, [(0,), (1,)])
    for a in ("", "1"):
        try:
            exec(compile(text.replace(HEAD, f"import os\nA = {a!r}\n"), "generated.py", "exec"), {})
        except NameError:
            return True
    return False


# g made where v is bound on some paths only and never bound later is refused though never called (the
# closures' rule that predates this family: resolve.free_read), as without the decorator
OLDER_RULE = {
    (f"control: {d} decorator", "some paths", p)
    for d in ("keeping", "wrapping", "registering")
    for p in ("function", "class in function")
}
CASES = sample([c for c in itertools.product(SHAPES, ORDERS, PLACEMENTS) if c not in OLDER_RULE])


@pytest.mark.parametrize(("shape", "order", "placement"), CASES, ids=["-".join(c) for c in CASES])
def test_code_python_runs_before_a_name_it_reads_is_bound_is_refused(shape: str, order: str, placement: str) -> None:
    after = source(shape, order, placement)
    before = "def f(a):\n    return 0\n" if placement.endswith("function") else HEAD
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == raises_name_error(after, placement), (after, [p.describe() for p in found])

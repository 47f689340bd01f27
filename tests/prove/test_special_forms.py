"""Special methods Python calls for a form of code, where no call is written (issue 21, the adversarial
pass): a method of a class of the scope changed to read `v`, bound below a statement that makes Python
run it (`@Reg` on a def, `@reg.add`, `f"{k}"`, `{k: 1}`, `a, b = K()`, `[*k]`, `list(*[k])`, `[1, 2][k]`,
`del k.x`, `K[int]`, `class Sub(Base)`, `metaclass=Meta`, `__set_name__`, `for`/`with`/`if`/`+=`...), was
applied with `status --check` green, and the import raised NameError.

Generated: the form x where `v` is bound (before the statement: the safe twin, which must stay accepted;
after it; on some paths only) x placement (in a function, v one of its locals; at module level, v a
module name). Controls make Python call nothing of the class and must stay accepted. The oracle is
Python running it: f(0) and f(1), or the module imported with A false and true."""

from __future__ import annotations

import itertools
import re

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error


def klass(method: str, name: str = "K", head: str = "") -> str:
    return f"class {name}{head}:\n" + indent(method)


MADE = "k = K()\n"
META_NEW = "def __new__(m, n, b, d):\n    d['y'] = v\n    return type.__new__(m, n, b, d)\n"
# form: (what is defined first, the statement that runs the method)
FORMS = {
    "class decorator": (klass("def __init__(self, fn):\n    self.y = v\n", "Reg"), "@Reg\ndef g():\n    pass\n"),
    "bound method decorator": (
        klass("def add(self, fn):\n    return v\n", "Registry") + "reg = Registry()\n",
        "@reg.add\ndef g():\n    pass\n",
    ),
    "instance decorator": (klass("def __call__(self, fn):\n    return v\n") + MADE, "@k\ndef g():\n    pass\n"),
    "made decorator": (klass("def __call__(self, fn):\n    return v\n"), "@K()\ndef g():\n    pass\n"),
    "class method decorator": (
        klass("@staticmethod\ndef deco(fn):\n    return v\n"),
        "@K.deco\ndef g():\n    pass\n",
    ),
    "decorated class": (klass("def __init__(self, c):\n    self.y = v\n", "Reg"), "@Reg\nclass C:\n    pass\n"),
    "f-string": (klass("def __str__(self):\n    return str(v)\n"), 'r = f"{K()}"\n'),
    "f-string repr": (klass("def __repr__(self):\n    return str(v)\n"), 'r = f"{K()!r}"\n'),
    "f-string format": (klass("def __format__(self, spec):\n    return str(v)\n") + MADE, 'r = f"{k:>3}"\n'),
    "format spec": (klass("def __format__(self, spec):\n    return str(v)\n"), 'r = f"{1:{K()}}"\n'),
    "percent": (klass("def __str__(self):\n    return str(v)\n"), 'r = "%s" % (K(),)\n'),
    "dict key": (klass("def __hash__(self):\n    return v\n"), "r = {K(): 1}\n"),
    "set": (klass("def __hash__(self):\n    return v\n") + MADE, "r = {k}\n"),
    "dict comprehension key": (klass("def __hash__(self):\n    return v\n"), "r = {K(): 1 for _ in [0]}\n"),
    "unpacking": (klass("def __iter__(self):\n    return iter([v, v])\n"), "a, b = K()\n"),
    "starred": (klass("def __iter__(self):\n    return iter([v])\n") + MADE, "r = [*k]\n"),
    "starred display in a call": (klass("def __iter__(self):\n    return iter([v])\n"), "r = list(*[K()])\n"),
    "double star": (
        klass("def keys(self):\n    return [str(v)]\ndef __getitem__(self, i):\n    return 0\n"),
        "r = dict(**K())\n",
    ),
    "comprehension iterable": (klass("def __iter__(self):\n    return iter([v])\n"), "r = [x for x in K()]\n"),
    "dict display star": (
        klass("def keys(self):\n    return [str(v)]\ndef __getitem__(self, i):\n    return 0\n"),
        "r = {**K()}\n",
    ),
    "set comprehension": (klass("def __hash__(self):\n    return v\n"), "r = {K() for _ in [0]}\n"),
    "generator expression": (klass("def __iter__(self):\n    return iter([v])\n"), "r = (x for x in K())\n"),
    "or": (klass("def __len__(self):\n    return v - 1\n"), "r = K() or 1\n"),
    "index": (klass("def __index__(self):\n    return v - 1\n"), "r = [1, 2][K()]\n"),
    "slice": (klass("def __index__(self):\n    return v - 1\n"), "r = [1, 2][K():]\n"),
    "deleter": (
        klass("@property\ndef p(self):\n    return 0\n@p.deleter\ndef p(self):\n    self.y = v\n") + MADE,
        "del k.p\n",
    ),
    "del attribute": (klass("def __delattr__(self, n):\n    return v\n") + MADE, "del k.x\n"),
    "class subscript": (klass("def __class_getitem__(cls, i):\n    return v\n"), "r = K[int]\n"),
    "init subclass": (klass("def __init_subclass__(cls):\n    cls.y = v\n", "Base"), "class Sub(Base):\n    pass\n"),
    "metaclass new": (klass(META_NEW, "Meta", "(type)"), "class C(metaclass=Meta):\n    pass\n"),
    "metaclass init": (
        klass("def __init__(c, n, b, d):\n    c.y = v\n", "Meta", "(type)"),
        "class C(metaclass=Meta):\n    pass\n",
    ),
    "metaclass call": (
        klass("def __call__(c, *a):\n    return v\n", "Meta", "(type)") + "class C(metaclass=Meta):\n    pass\n",
        "r = C()\n",
    ),
    "inherited metaclass call": (
        klass("def __call__(c, *a):\n    return v\n", "Meta", "(type)")
        + "class B(metaclass=Meta):\n    pass\nclass C(B):\n    pass\n",
        "r = C()\n",
    ),
    "set name": (klass("def __set_name__(self, o, n):\n    self.y = v\n", "D"), "class C:\n    d = D()\n"),
    "mro entries": (
        klass("def __mro_entries__(self, b):\n    return (object,) if v else ()\n", "E"),
        "class C(E()):\n    pass\n",
    ),
    "for": (klass("def __iter__(self):\n    return iter([v])\n"), "for x in K():\n    pass\n"),
    "with enter": (
        klass("def __enter__(self):\n    return v\ndef __exit__(self, *a):\n    return None\n"),
        "with K():\n    pass\n",
    ),
    "with exit": (
        klass("def __enter__(self):\n    return 0\ndef __exit__(self, *a):\n    return v - 1\n"),
        "with K():\n    pass\n",
    ),
    "if": (klass("def __bool__(self):\n    return v == 1\n"), "if K():\n    pass\n"),
    "while": (klass("def __bool__(self):\n    return v == 1\n"), "while K():\n    break\n"),
    "assert": (klass("def __bool__(self):\n    return v == 1\n"), "assert K()\n"),
    "and": (klass("def __bool__(self):\n    return v == 1\n"), "r = K() and 1\n"),
    "conditional": (klass("def __bool__(self):\n    return v == 1\n"), "r = 1 if K() else 2\n"),
    "augmented": (klass("def __iadd__(self, o):\n    return v\n") + MADE, "k += 1\n"),
    # controls: Python calls nothing of the class here
    "control: list display": (klass("def __hash__(self):\n    return v\n"), "r = [K()]\n"),
    "control: starred list": (klass("def __iter__(self):\n    return iter([v])\n"), "r = [*[K()]]\n"),
    "control: class as a key": (klass("def __hash__(self):\n    return v\n"), "r = {K: 1}\n"),
    "control: class formatted": (klass("def __str__(self):\n    return str(v)\n"), 'r = f"{K}"\n'),
    "control: plain base": (klass("def m(self):\n    return v\n", "Base"), "class Sub(Base):\n    pass\n"),
    "control: keeping decorator": (
        klass("@staticmethod\ndef keep(fn):\n    return fn\ndef m(self):\n    return v\n"),
        "@K.keep\ndef g():\n    pass\n",
    ),
}
ORDERS = ("before", "after", "some paths")
PLACEMENTS = ("function", "module")
BIND = "v = 1\n"
HEAD = "import os\nA = os.environ.get('RP_A')\n"


def source(form: str, order: str, placement: str) -> str:
    define, run = FORMS[form]
    first, second = (BIND, run) if order == "before" else (run, BIND)
    if order == "some paths":  # NameError where a is false
        first, second = "if a:\n" + indent(BIND), run
    text = f"r = 0\n{define}{first}{second}"
    if placement == "function":
        return "def f(a):\n" + indent(text + "return r\n")
    return HEAD + re.sub(r"\bv\b", "V", text.replace("if a:", "if A:"))


def raises_name_error(text: str, placement: str) -> bool:
    """NameError, or before 3.12 the RuntimeError that `__set_name__`'s NameError is wrapped in."""
    if placement == "function":
        return f_raises_name_error(text, [(0,), (1,)], (RuntimeError,)) or _wrapped(text, "f(0); f(1)")
    return any(_wrapped(text.replace(HEAD, f"import os\nA = {a!r}\n"), "") for a in ("", "1"))


def _wrapped(text: str, then: str) -> bool:
    try:
        exec(compile(text + then, "generated.py", "exec"), {})
    except Exception as e:  # noqa: BLE001 (the oracle: a NameError wrapped or not)
        cause: BaseException | None = e
        while cause is not None and not isinstance(cause, NameError):
            cause = cause.__cause__
        return cause is not None
    return False


CASES = sample(list(itertools.product(FORMS, ORDERS, PLACEMENTS)))


@pytest.mark.parametrize(("form", "order", "placement"), CASES, ids=["-".join(c) for c in CASES])
def test_a_special_method_python_calls_before_a_name_it_reads_is_bound_is_refused(
    form: str, order: str, placement: str
) -> None:
    after = source(form, order, placement)
    before = "def f(a):\n    return 0\n" if placement == "function" else HEAD
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == raises_name_error(after, placement), (after, [p.describe() for p in found])

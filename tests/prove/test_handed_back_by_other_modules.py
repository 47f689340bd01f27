"""An instance an imported module got from ANOTHER module and hands back (issue 21, names53 #1):
pp/mod.py defines `class C` (its method reads v), then `from pp.a import obj` / `obj.m()` before
`v = 1`, where pp/a.py does `from pp.b import make; obj = make()` and pp/b.py `from pp.mod import C`:
accepted, and importing pp.mod raised NameError. An imported name counted as "foreign" (no instance
of the module's classes in it); but a module the import runs may import this one, still importing,
and take its classes. Now a name imported once a class of the module is made, from anything but the
standard library, may be such an instance; one imported before the module's first class, or from the
standard library, still is not (no other module can have an instance of a class not made yet).

Generated: how the module gets the value back (a name from a module given it by another, the same
relative, through the module's attribute, a function of another module called) x what is done with it
(a method called, a property read) x where v is bound (before the class: accepted; after the use:
refused). Twins, accepted: a value imported before the class, a standard-library value imported after
it. The oracle is Python importing pp.mod in a fresh interpreter: the names step refuses exactly where
that raises NameError."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.package_imports import write_package

OTHERS = {
    "__init__": "",
    "a": "from pp.b import make\n\nobj = make()\n",
    "b": "from pp.mod import C\n\n\ndef make():\n    return C()\n",
    "c": "import types\n\nplain = types.SimpleNamespace(m=str, p=0)\n",
}
WAYS = {  # (the import, where it goes: after the class or before it, the value it gives)
    "a name from a module given it by another": ("from pp.a import obj\n", "after", "obj"),
    "the same, relative": ("from .a import obj\n", "after", "obj"),
    "the module's attribute": ("import pp.a\n", "after", "pp.a.obj"),
    "a function of another module called": ("from pp.b import make\n", "after", "make()"),
    # twins: no instance of C can come back
    "a value imported before the class (twin)": ("from pp.c import plain\n", "before", "plain"),
    "a standard-library value imported after it (twin)": (
        "from types import SimpleNamespace\n",
        "after",
        "SimpleNamespace(m=str, p=0)",
    ),
}
USES = {"a method called": "x = k.m()\n", "a property read": "x = k.p\n"}
CLASS = "class C:\n    def m(self):\n        return v\n\n    @property\n    def p(self):\n        return v\n\n\n"
ORDERS = ("bound before the class", "bound after the use")


def module(way: str, use: str, order: str) -> str:
    imp, where, value = WAYS[way]
    before = "v = 1\n" if order == "bound before the class" else ""
    after = "v = 1\n" if order == "bound after the use" else ""
    head, tail = (imp, "") if where == "before" else ("", imp)
    return f"{head}{before}{CLASS}{tail}k = {value}\n{USES[use]}{after}"


def import_raises_name_error(root: Path) -> bool:
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import pp.mod"
    done = fresh_run(sys.executable, code, (), ("-I", "-B"))
    assert done.returncode == 0 or "NameError" in done.stderr, done.stderr
    return done.returncode != 0


CASES = sample(list(itertools.product(WAYS, USES, ORDERS)))


@pytest.mark.parametrize(("way", "use", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_an_instance_handed_back_through_other_modules_is_judged_where_it_is_used(
    way: str, use: str, order: str, tmp_path: Path
) -> None:
    after = module(way, use, order)
    write_package(tmp_path, {**OTHERS, "mod": after})
    found = introduced(b"x = 0\n", after.encode(), module="pp.mod")
    assert found is not None, after
    raises = import_raises_name_error(tmp_path)
    assert bool(found) == raises, (after, [p.describe() for p in found])

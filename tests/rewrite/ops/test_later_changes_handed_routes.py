"""Routes to the module's names that the escape rule and set_constant's rebinding check did not follow (att62 F3,
F6, F8). Each applied while the module ended without the edit.

- set_constant's name rebound where the namespace or the module object is handed on: a def returning `globals()`
  or the module, a list holding the namespace, a loop over a list holding the module, a key bound to `__name__`,
  `__import__(__name__)`, `importlib.import_module(__spec__.name)`, a loop over `sys.modules`, `@enum.global_enum`
  (its members become the module's names), the module's `__class__` swapped (rewrite.module_stores,
  prove.placement.store_calls).
- A callee the walk read as the module's own def, rebound after: through the namespace (`globals()["_h"] =
  ...`, `vars()`, `globals().update(_h=...)`, `sys.modules[__name__]._h = ...`), its `__code__` replaced, a
  class's method stored over (`_C.m = ...`), a builtin replaced (`builtins.len = ...`, `__builtins__[...]`)
  (rewrite.rebound_names).

Generated: set_constant x route x the name or another; the edits of tests/lib/escape_edits with a method x the
callee's rebinding route x a callable that undoes the edit or changes something else. The oracle imports the
original and the patched module in a fresh interpreter (tests/lib/later_values): where the edit does not take
effect, radpatch must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone
from tests.lib.generated import sample

# {k}: the name the statement binds
REBINDS = {
    "a def returning globals()": "def _ns():\n    return globals()\n\n\n_ns()[{k!r}] = 1",
    "a def returning the module": "import sys\n\n\ndef _me():\n    return sys.modules[__name__]\n\n\n_me().{k} = 1",
    "a list holding globals()": "_g = [globals()]\n_g[0][{k!r}] = 1",
    "a loop over a list holding the module": "import sys\n\n_l = [sys.modules[__name__]]\n"
    "for _x in _l:\n    _x.{k} = 1",
    "a key bound to __name__": "import sys\n\n_n = __name__\nsys.modules[_n].{k} = 1",
    "__import__(__name__)": "__import__(__name__).{k} = 1",
    "import_module(__spec__.name)": "import importlib\n\n"
    '_m = importlib.import_module(__spec__.name if __spec__ else "mod")\n_m.{k} = 1',
    "a loop over sys.modules": "import sys\n\nfor _k in list(sys.modules):\n"
    '    if getattr(sys.modules[_k], "__file__", None) == __file__:\n        setattr(sys.modules[_k], {k!r}, 1)',
    "a loop over sys.modules.values()": "import sys\n\nfor _m in list(sys.modules.values()):\n"
    '    if getattr(_m, "__file__", None) == __file__:\n        _m.{k} = 1',
    "enum.global_enum": "import enum\n\n\n@enum.global_enum\nclass _E(enum.IntEnum):\n    {k} = 1",
    "the module's __class__": "import sys\nimport types\n\n\nclass _M(types.ModuleType):\n"
    "    def __getattribute__(self, n):\n        return 1 if n == {k!r} else super().__getattribute__(n)\n\n\n"
    "sys.modules[__name__].__class__ = _M",
}
REBIND_CASES = sample([(r, k) for r in REBINDS for k in ("LIMIT", "OTHER")])


@pytest.mark.parametrize(("route", "name"), REBIND_CASES, ids=["-".join(c) for c in REBIND_CASES])
def test_a_constant_rebound_where_the_namespace_is_handed_on_is_refused(tmp_path: Path, route: str, name: str) -> None:
    assert_refused_where_undone(tmp_path, EDITS["set_constant"], REBINDS[route].format(k=name), name == "LIMIT")


# {f}: the callable the callee is rebound to; the value is handed to `_h` afterwards
CALLEES = {
    "globals()[...]": 'def _h(v, *a):\n    pass\n\n\nglobals()["_h"] = {f}\n_h({n}, {a})',
    "vars()[...]": 'def _h(v, *a):\n    pass\n\n\nvars()["_h"] = {f}\n_h({n}, {a})',
    "globals().update": "def _h(v, *a):\n    pass\n\n\nglobals().update(_h={f})\n_h({n}, {a})",
    "an alias of globals()": 'def _h(v, *a):\n    pass\n\n\n_g = globals()\n_g["_h"] = {f}\n_h({n}, {a})',
    "the module object's attribute": "import sys\n\n\ndef _h(v, *a):\n    pass\n\n\n"
    "sys.modules[__name__]._h = {f}\n_h({n}, {a})",
    "__code__": "def _h(v, *a):\n    pass\n\n\ndef _g(v, *a):\n    {f}(v, *a)\n\n\n"
    "_h.__code__ = _g.__code__\n_h({n}, {a})",
    "a class's method": "class _C:\n    @staticmethod\n    def h(v, *a):\n        pass\n\n\n"
    "_C.h = staticmethod({f})\n_C.h({n}, {a})",
    "builtins.len": "import builtins\n\n_len = len\n"
    "builtins.len = lambda v, *a: {f}(v, *a) if v is {n} else _len(v)\nlen({n}, {a})",
    "__builtins__[...]": "import builtins\n\n_d = vars(builtins)\n_d['sorted'] = {f}\nsorted({n}, {a})",
}
EDITED = tuple(k for k, e in EDITS.items() if e.method is not None)
CALLEE_CASES = sample([(e, r, k) for e in EDITED for r in CALLEES for k in ("undo", "twin")])


@pytest.mark.parametrize(("edit", "route", "key"), CALLEE_CASES, ids=["-".join(c) for c in CALLEE_CASES])
def test_a_callee_rebound_after_the_walk_read_it_is_refused(tmp_path: Path, edit: str, route: str, key: str) -> None:
    e = EDITS[edit]
    assert e.method is not None
    method, undo, twin = e.method
    later = CALLEES[route].format(f=f"type({e.name}).{method}", n=e.name, a=undo if key == "undo" else twin)
    guarded = "try:\n    " + later.replace("\n", "\n    ") + "\nexcept Exception:\n    pass"  # the original may lack it
    assert_refused_where_undone(tmp_path, e, guarded, key == "undo")

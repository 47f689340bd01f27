"""A patch must land in the definition that runs: not in a method or function that a later
module-level attribute store replaces (`C.f = ...`, `setattr(C, "f", ...)`, `del C.f`, the same
through an alias of the class (`D = C; D.f = ...`), `type.__setattr__`, `builtins.setattr`,
`globals()["f"] = ...` or `locals()["f"] = ...`, `setattr(sys.modules[__name__], "f", ...)`, `f.__defaults__ = ...`,
`f.__code__ = ...`), unconditionally or on some path.

Generated: each store form, after the definitions, with or without a condition, against a patch
of a method's body, a method's default, a function's body and a function's default. Every module
is run, original and patched, for each condition; the proof must refuse exactly the patches whose
change, on some run, does not show in what `C().f()` and `f()` return.
"""

from __future__ import annotations

import ast
import itertools
import sys
import types

import pytest

from radpatch.prove import placement
from tests.lib.generated import sample

HEAD = """import sys


def _other(*a, **k):
    return ("other",)


def _wrap(fn):
    def wrapper(*a, **k):
        return ("wrapped", fn(*a, **k))
    return wrapper


class C:
    def f(self, x=1):
        return ("C.f", x)


def f(x=1):
    return ("f", x)


"""

PATCHES = {  # (find, with): each changes exactly one of the two definitions
    "method-body": ('return ("C.f", x)', 'return ("C.f!", x)'),
    "method-default": ("def f(self, x=1)", "def f(self, x=2)"),
    "function-body": ('return ("f", x)', 'return ("f!", x)'),
    "function-default": ("def f(x=1)", "def f(x=2)"),
}

STORES = {
    "none": "",
    "attr": "C.f = _other\n",
    "attr-wrapped": "C.f = _wrap(C.f)\n",
    "attr-read-before": "_orig = C.f\nC.f = lambda self: _orig(self)\n",
    "setattr-class": 'setattr(C, "f", _other)\n',
    "del-attr": "del C.f\n",
    "other-attr": "C.g = _other\n",
    "module-setattr": 'setattr(sys.modules[__name__], "f", _other)\n',
    "module-attr": "sys.modules[__name__].f = _other\n",
    "globals-item": 'globals()["f"] = _other\n',
    "globals-update": "globals().update(f=_other)\n",
    "locals-item": 'locals()["f"] = _other\n',  # at module level locals() is globals()
    "locals-update": "locals().update(f=_other)\n",
    "vars-item": 'vars()["f"] = _other\n',
    "class-alias-attr": "D = C\nD.f = _other\n",
    "class-alias-of-alias-setattr": 'D = C\nE = D\nsetattr(E, "f", _other)\n',
    "class-alias-wrapped": "D = C\nD.f = _wrap(D.f)\n",
    "type-setattr": 'type.__setattr__(C, "f", _other)\n',
    "type-delattr": 'type.__delattr__(C, "f")\n',
    "builtins-setattr": 'import builtins\nbuiltins.setattr(C, "f", _other)\n',
    "builtins-setattr-module": 'import builtins\nbuiltins.setattr(sys.modules[__name__], "f", _other)\n',
    "method-defaults": "C.f.__defaults__ = (7,)\n",
    "function-defaults": "f.__defaults__ = (7,)\n",
    "function-code": "f.__code__ = _other.__code__\n",
    "function-doc": 'f.__doc__ = "documented"\n',
    "tuple-target": "C.f, _x = _other, 1\n",
}


def observe(source: str, cond: bool) -> tuple[str, str]:
    mod = types.ModuleType("rp_attr_store_case")
    mod.__dict__["COND"] = cond
    sys.modules[mod.__name__] = mod
    try:
        exec(compile(source, "<case>", "exec"), mod.__dict__)
        out = []
        for call in ("C().f()", "f()"):
            try:
                out.append(repr(eval(call, mod.__dict__)))
            except Exception as exc:
                out.append(type(exc).__name__)
        return out[0], out[1]
    finally:
        del sys.modules[mod.__name__]


def refused(before: str, after: str) -> list[str]:
    return placement.dead_changes(placement.placement(ast.parse(before)), placement.placement(ast.parse(after)))


CASES = sample(itertools.product(sorted(STORES), (False, True), sorted(PATCHES)))


@pytest.mark.parametrize(("store", "conditional", "patch"), CASES)
def test_refused_exactly_when_the_change_does_not_run(store: str, conditional: bool, patch: str) -> None:
    tail = STORES[store]
    if conditional and tail:
        tail = "if COND:\n" + "".join("    " + line for line in tail.splitlines(keepends=True))
    before = HEAD + tail
    find, with_ = PATCHES[patch]
    after = before.replace(find, with_, 1)
    runs = all(observe(before, cond) != observe(after, cond) for cond in (False, True))

    found = refused(before, after)

    assert bool(found) == (not runs), (store, conditional, patch, found)


CLASS_HEAD = """def _other(self, x=1):
    return ("other", x)


class C:
    def f(self, x=1):
        return ("C.f", x)

"""

IN_CLASS = {  # a later statement of the class body: there locals() and vars() are the class namespace
    "locals-item": 'locals()["f"] = _other\n',
    "vars-item": 'vars()["f"] = _other\n',
    "locals-update": "locals().update(f=_other)\n",
    "locals-update-dict": 'locals().update({"f": _other})\n',
    "locals-setitem": 'locals().__setitem__("f", _other)\n',
    "locals-other-name": 'locals()["g"] = _other\n',
    "in-a-method": 'def g(self):\n    locals()["f"] = _other\n',  # the method's own locals
}
IN_CLASS_CASES = sample(itertools.product(sorted(IN_CLASS), (False, True)))


@pytest.mark.parametrize(("store", "conditional"), IN_CLASS_CASES)
def test_class_body_namespace_stores_replace_the_method(store: str, conditional: bool) -> None:
    tail = IN_CLASS[store]
    if conditional:
        tail = "if COND:\n" + "".join("    " + line for line in tail.splitlines(keepends=True))
    before = CLASS_HEAD + "".join("    " + line for line in tail.splitlines(keepends=True))
    after = before.replace('return ("C.f", x)', 'return ("C.f!", x)', 1)
    runs = all(observe(before, cond)[0] != observe(after, cond)[0] for cond in (False, True))

    found = refused(before, after)

    assert bool(found) == (not runs), (store, conditional, found)

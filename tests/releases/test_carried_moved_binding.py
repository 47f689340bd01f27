"""A deleted binding that upstream moved elsewhere is not carried (issue 23, att23d F1/F1b).

The base's `Engine.configure` sets `self.a = 1; self.timeout = 30; self.b = 2`; the entry deletes
`self.timeout = 30`. Releases of a small package are generated: the binding moved into a helper of
another module of the package that the scope calls, into a helper of the same module, into a class
attribute, into a base class (of this module or another), into a module constant the scope reads
(of this module or another), into `__init__`, into another module's helper that a helper or
method of this module calls, into a store through the object's `__dict__` or `vars()`, into a
decorator of the method or its class (of this module or another), into `__getattr__`,
`__getattribute__` or `__setattr__` of the class (att23e G2); or really gone. Each with the value kept (30) or
changed (60). The reference is the release's code run: `Engine().configure()` still leaving
`timeout == 30` is the behaviour the patch removes, so such a release must never be called carried.
A release whose move `carried` can see whole (the module alone) and which no longer sets 30 is
carried; one that reaches into another module may read "cannot tell" (not carried).
"""

from __future__ import annotations

import importlib
import itertools
import sys
from pathlib import Path

import pytest

from radpatch.releases import carried
from radpatch.releases.compared import Compared

BASE = """\
class Engine:
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2
        return self
"""
AFTER = BASE.replace("        self.timeout = 30\n", "")

MOVES = (
    "gone",
    "other-module-helper",
    "same-module-helper",
    "class-attribute",
    "other-module-base",
    "same-module-base",
    "module-constant",
    "other-module-constant",
    "init",
    "helper-to-other-module",
    "method-to-other-module",
    "dict-update",
    "dict-store",
    "vars-store",
    "init-dict-store",
    "other-module-decorator",
    "same-module-decorator",
    "other-module-class-decorator",
    "getattr",
    "getattribute",
    "setattr",
)
SEES_WHOLE = {"gone", "same-module-helper", "class-attribute", "same-module-base", "module-constant", "init"}


WITH_TIMEOUT = """\
import functools


def with_timeout(f):
    @functools.wraps(f)
    def w(self):
        out = f(self)
        self.timeout = {value}
        return out
    return w
"""
TIMED = """\
def timed(cls):
    configure = cls.configure

    def wrapped(self):
        configure(self)
        self.timeout = {value}
        return self
    cls.configure = wrapped
    return cls
"""


def release(move: str, value: int) -> dict[str, str]:
    """The package's modules (name -> source) for one move of `self.timeout = 30`."""
    head, base, body, extra, deco = "", "", ["self.a = 1", "self.b = 2", "return self"], "", ""
    others: dict[str, str] = {}
    if move == "other-module-helper":
        head = "from . import settings\n\n\n"
        body.insert(1, "settings.apply_timeout(self)")
        others["settings"] = f"def apply_timeout(obj):\n    obj.timeout = {value}\n"
    elif move == "same-module-helper":
        body.insert(1, "apply_timeout(self)")
        extra = f"\n\ndef apply_timeout(obj):\n    obj.timeout = {value}\n"
    elif move == "class-attribute":
        base = f"    timeout = {value}\n\n"
    elif move == "other-module-base":
        head = "from .bases import Base\n\n\n"
        others["bases"] = f"class Base:\n    timeout = {value}\n"
    elif move == "same-module-base":
        head = f"class Base:\n    timeout = {value}\n\n\n"
    elif move == "module-constant":
        head = f"TIMEOUT = {value}\n\n\n"
        body.insert(1, "self.timeout = TIMEOUT")
    elif move == "other-module-constant":
        head = "from .consts import TIMEOUT\n\n\n"
        body.insert(1, "self.timeout = TIMEOUT")
        others["consts"] = f"TIMEOUT = {value}\n"
    elif move == "helper-to-other-module":  # a helper of this module hands the object on
        head = "from . import settings\n\n\n"
        body.insert(1, "setup(self)")
        extra = "\n\ndef setup(engine):\n    settings.apply_timeout(engine)\n"
        others["settings"] = f"def apply_timeout(obj):\n    obj.timeout = {value}\n"
    elif move == "method-to-other-module":
        head = "from . import settings\n\n\n"
        body.insert(1, "self._setup()")
        base = "    def _setup(self):\n        settings.apply_timeout(self)\n\n"
        others["settings"] = f"def apply_timeout(obj):\n    obj.timeout = {value}\n"
    elif move == "dict-update":  # att23e G2: a store through the object's __dict__ or vars()
        body.insert(1, f"self.__dict__.update(timeout={value})")
    elif move == "dict-store":
        body.insert(1, f'self.__dict__["timeout"] = {value}')
    elif move == "vars-store":
        body.insert(1, f'vars(self)["timeout"] = {value}')
    elif move == "init-dict-store":
        base = f'    def __init__(self):\n        self.__dict__["timeout"] = {value}\n\n'
    elif move == "other-module-decorator":  # a decorator sets it after the method ran
        head = "from . import settings\n\n\n"
        deco = "    @settings.with_timeout\n"
        others["settings"] = WITH_TIMEOUT.format(value=value)
    elif move == "same-module-decorator":
        head = WITH_TIMEOUT.format(value=value) + "\n\n"
        deco = "    @with_timeout\n"
    elif move == "other-module-class-decorator":  # the class's decorator wraps its methods
        head = "from . import settings\n\n\n@settings.timed\n"
        others["settings"] = TIMED.format(value=value)
    elif move == "getattr":
        base = f'    def __getattr__(self, name):\n        if name == "timeout":\n            return {value}\n'
        base += "        raise AttributeError(name)\n\n"
    elif move == "getattribute":
        base = "    def __getattribute__(self, name):\n"
        base += f'        return {value} if name == "timeout" else object.__getattribute__(self, name)\n\n'
    elif move == "setattr":  # setting `b` sets the timeout too
        base = "    def __setattr__(self, name, v):\n        object.__setattr__(self, name, v)\n"
        base += f'        if name == "b":\n            object.__setattr__(self, "timeout", {value})\n\n'
    elif move == "init":
        base = f"    def __init__(self):\n        self.timeout = {value}\n\n"
    bases = "(Base)" if move.endswith("-base") else ""
    core = head + f"class Engine{bases}:\n" + base + deco + "    def configure(self):\n"
    core += "".join(f"        {s}\n" for s in body) + extra
    return {"core": core, **others}


def still_sets_30(tmp: Path, name: str, modules: dict[str, str]) -> bool:
    """Run the release: does `Engine().configure()` leave `timeout == 30`?"""
    pkg = tmp / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for mod, text in modules.items():
        (pkg / f"{mod}.py").write_text(text)
    sys.path.insert(0, str(tmp))
    try:
        core = importlib.import_module(f"{name}.core")
        return getattr(core.Engine().configure(), "timeout", None) == 30
    finally:
        sys.path.remove(str(tmp))
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def test_the_reference_is_not_one_answer(tmp_path: Path) -> None:
    seen = {still_sets_30(tmp_path, f"toyq_ref_{m.replace('-', '_')}", release(m, 30)) for m in ("gone", "init")}
    assert seen == {True, False}


REPLACED = BASE.replace("        self.timeout = 30\n", "        self.deadline = 30\n")
# the entry: it deletes `self.timeout = 30`, or replaces it by `self.deadline = 30` (the release has the
# new line in place, the old binding moved as above): (its result, the release's line added after
# `self.a = 1`, the oracle's package prefix, what a module that shows it says)
ENTRIES = {
    "deletes": (AFTER, "", "toyq", "the module shows the binding gone"),
    "replaces": (REPLACED, "        self.deadline = 30\n", "toyq_r", "the module shows the binding replaced"),
}


@pytest.mark.parametrize(("entry", "move", "value"), list(itertools.product(ENTRIES, MOVES, (30, 60))))
def test_a_binding_moved_and_still_run_is_never_carried(tmp_path: Path, entry: str, move: str, value: int) -> None:
    after, added, prefix, shows = ENTRIES[entry]
    modules = release(move, value)
    modules["core"] = modules["core"].replace("        self.a = 1\n", "        self.a = 1\n" + added)
    behaves = still_sets_30(tmp_path, f"{prefix}_{move.replace('-', '_')}_{value}", modules)
    got = carried.carries(Compared(BASE.encode(), after.encode(), modules["core"].encode()))
    if behaves:
        assert got is False, (move, value, "the release still sets timeout = 30: not obsolete")
    elif move in SEES_WHOLE:
        assert got is True, (move, value, shows)
    else:
        assert got is False, (move, value, "the move reaches another module: cannot tell, not carried")

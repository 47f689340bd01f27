"""The later-rebinding family's module (tests/prove/test_rebinding_aliases.py and
test_rebinding_aliases_in_functions.py): a package module whose `f` a later statement rebinds through
an alias of the module's namespace (FORMS), run in this process from a fresh package, and the
refusals of placement's dead- and rebound-change checks on it."""

from __future__ import annotations

import ast
import importlib
import itertools
import sys
from pathlib import Path

from radpatch.prove import placement

HEAD = """import sys

COND = {cond}


def _keep(fn):
    return fn


def f():
    return 1


def g():
    return 2


"""

FORMS = {  # the later statement(s); {v} is the value stored, PKG the package's name
    "walrus-if": "if (f := {v}):\n    pass",
    "walrus-while": "while (f := {v}) is None:\n    pass",
    "walrus-comprehension": "_x = [(f := {v}) for _ in [0]]",
    "walrus-assign-value": "_y = (f := {v})",
    "walrus-call-argument": "print((f := {v}) and '')",
    "walrus-in-lambda": "_l = lambda: (f := {v})",  # binds in the lambda: f is not rebound
    "globals-alias-item": "_g = globals()\n_g['f'] = {v}",
    "vars-alias-update": "_ns = vars()\n_ns.update(f={v})",
    "globals-alias-update-dict": "_ns = globals()\n_ns.update({{'f': {v}}})",
    "globals-alias-setitem": "_ns = globals()\n_ns.__setitem__('f', {v})",
    "globals-alias-setdefault": "_ns = globals()\n_ns.setdefault('f', {v})",  # f is bound already: kept
    "globals-setdefault": "globals().setdefault('f', {v})",
    "sysmodules-alias-attr": "_self = sys.modules[__name__]\n_self.f = {v}",
    "sysmodules-get-setattr": "setattr(sys.modules.get(__name__), 'f', {v})",
    "sysmodules-get-alias-setattr": "_self = sys.modules.get(__name__)\nsetattr(_self, 'f', {v})",
    "sysmodules-alias-dict": "_self = sys.modules[__name__]\n_self.__dict__.update(f={v})",
    "sysmodules-alias-vars": "_self = sys.modules[__name__]\nvars(_self)['f'] = {v}",
    "import-self-as": "import PKG.mod as _me\n_me.f = {v}",
    "from-package-import-self": "from PKG import mod as _me\n_me.f = {v}",
    "relative-import-self": "from . import mod\nsetattr(mod, 'f', {v})",
}
VALUES = {"replaces": "g", "keeps": "_keep(f)"}
WRAPS = ("always", "if-cond")
_made = itertools.count()


def module(form: str, value: str, wrap: str, cond: bool, pkg: str) -> str:
    tail = FORMS[form].format(v=VALUES[value]).replace("PKG", pkg)
    if wrap == "if-cond":
        tail = "if COND:\n" + "".join("    " + line + "\n" for line in tail.splitlines())
    return HEAD.format(cond=cond) + tail + "\n"


def run(tmp: Path, source: str) -> object:
    """Import `source` as the module mod of a fresh package; what its f() returns."""
    pkg = f"rp_alias_{next(_made)}"
    (tmp / pkg).mkdir()
    (tmp / pkg / "__init__.py").write_text("")
    (tmp / pkg / "mod.py").write_text(source.replace("PKG_NAME", pkg))
    sys.path.insert(0, str(tmp))
    try:
        return importlib.import_module(f"{pkg}.mod").f()
    finally:
        sys.path.remove(str(tmp))
        for name in [n for n in sys.modules if n == pkg or n.startswith(pkg + ".")]:
            del sys.modules[name]


def refusals(before: str, after: str, me: str) -> list[str]:
    mod = (f"{me}.mod", False)
    old = placement.placement(ast.parse(before), before, mod)
    new = placement.placement(ast.parse(after), after, mod)
    return placement.dead_changes(old, new) + placement.rebound_changes(old, new)

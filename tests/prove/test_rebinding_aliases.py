"""A def the patch changes may be rebound later at module level by a form that does not name it
as plainly as `f = ...`: an assignment expression (`if (f := g):`, `while (f := g) is None:`, one
in a comprehension), a store through an alias of the module's namespace (`_g = globals()` then
`_g["f"] = g` or `_g.update(f=g)`), or through an alias of the module itself (`_self =
sys.modules[__name__]`, `sys.modules.get(__name__)`, `import pkg.mod as _me`, `from . import mod`).

Generated: each form, with a value that replaces `f` (`g`) or keeps its code running (`_keep(f)`,
which returns f), unconditionally or under `if COND:`. Every module is written as a real package
module and imported, original and patched, for each COND; the placement proofs must refuse exactly
the patches whose change, on some run, does not show in what `f()` returns.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import sys
from pathlib import Path

import pytest

from radpatch.prove import placement
from tests.lib.generated import sample

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
CASES = sample(itertools.product(FORMS, VALUES, WRAPS))
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


@pytest.mark.parametrize(("form", "value", "wrap"), CASES)
def test_refused_exactly_when_the_change_does_not_run(tmp_path: Path, form: str, value: str, wrap: str) -> None:
    shows = []
    for cond in (True, False) if wrap == "if-cond" else (True,):
        before = module(form, value, wrap, cond, "PKG_NAME")
        after = before.replace("    return 1\n", "    return 100\n")
        assert run(tmp_path, before) != 100
        shows.append(run(tmp_path, after) == 100)
    before = module(form, value, wrap, True, "rp_me")
    found = refusals(before, before.replace("    return 1\n", "    return 100\n"), "rp_me")
    assert bool(found) == (not all(shows)), (form, value, wrap, shows, found)


def test_an_import_of_another_module_is_no_alias() -> None:
    """`import other.mod as _o; _o.f = g` stores on another module: the patched f still runs here."""
    before = HEAD.format(cond=True) + "import json as _o\n_o.f = g\n"
    assert refusals(before, before.replace("    return 1\n", "    return 100\n"), "rp_me") == []

"""A module-level statement after the binding a patch changes may replace it by a name the code
does not spell: a star import (Django's `try: from .local import *`), `globals().update(...)`,
`globals()[name] = ...`, `setattr(sys.modules[__name__], name, ...)`, `setattr(C, name, ...)` with a
computed name, `exec(...)`. Refused, unless the star-imported module provably does not bind the
name, or the statement reads the patched binding (it wraps it) or binds other literal names.

Generated: what the patch changes (a constant, a def, a method) times the later statement times
where it is (after the binding, after it inside try/except, before it). Every patched module is
run (the star-imported modules served from sys.modules): the proof must refuse exactly the
modules whose patched binding is not what runs at the end.
"""

from __future__ import annotations

import ast
import itertools
import sys
import sysconfig
import types
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import placement, placement_check, refusal
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of

STAR_MODULES = {"rp_star_binds": "X = lambda *a: 7\n", "rp_star_other": "Y = 7\n"}

CHANGED = {  # (the original binding, the patched one, how the test reads its value)
    "constant": ("X = 5\n", "X = 50\n", "X"),
    "def": ("def X():\n    return 5\n", "def X():\n    return 50\n", "X()"),
    "method": (
        "class C:\n    def X(self):\n        return 5\n",
        "class C:\n    def X(self):\n        return 50\n",
        "C().X()",
    ),
}

LATER = {  # the later statement, per what it is set on (the module, or class C)
    "star-binds": "from rp_star_binds import *\n",
    "star-other": "from rp_star_other import *\n",
    "globals-update": "globals().update(X=lambda *a: 7)\n",
    "globals-update-other": "globals().update(Y=7)\n",
    "globals-update-dict": "_d = {'X': lambda *a: 7}\nglobals().update(_d)\n",
    "globals-update-wraps": "globals().update(X=X)\n",
    "globals-item": "_n = 'X'\nglobals()[_n] = lambda *a: 7\n",
    "vars-item": "vars()['X'] = lambda *a: 7\n",
    "module-setattr": "import sys\n_n = 'X'\nsetattr(sys.modules[__name__], _n, lambda *a: 7)\n",
    "class-setattr-loop": "for _n in ['X']:\n    setattr(C, _n, lambda *a: 7)\n",
    "exec": "exec('X = lambda *a: 7')\n",
}

# the statements whose names the code does not spell: refused after a change on their owner even
# when, on this run, they bind other names (radpatch cannot tell)
COMPUTED = {"globals-update-dict", "globals-item", "module-setattr", "class-setattr-loop", "exec"}

PLACES = ("after", "after-in-try", "before")


def build(changed: str, later: str, place: str, patched: bool) -> str:
    binding = CHANGED[changed][1 if patched else 0]
    head = "class C:\n    pass\n" if changed != "method" and "class" in later else ""
    stmt = LATER[later]
    if place == "after-in-try":
        inner = "".join("    " + line + "\n" for line in stmt.splitlines())
        stmt = "try:\n" + inner + "except ImportError:\n    pass\n"
    return head + (stmt + binding if place == "before" else binding + stmt)


def value(source: str, how: str) -> object:
    for name, text in STAR_MODULES.items():
        m = types.ModuleType(name)
        exec(text, m.__dict__)
        sys.modules[name] = m
    mod = types.ModuleType("rp_generated")
    sys.modules["rp_generated"] = mod
    try:
        exec(compile(source, "rp_generated.py", "exec"), mod.__dict__)
        return eval(how, mod.__dict__)
    finally:
        for name in (*STAR_MODULES, "rp_generated"):
            sys.modules.pop(name, None)


def star_binds(star: tuple[int, str | None], name: str) -> bool | None:
    text = STAR_MODULES.get(star[1] or "")
    if text is None:
        return None
    return any(b.name == name for b in placement.module_bindings(ast.parse(text)))


def rebound(before: str, after: str, binds: placement.StarBinds | None = star_binds) -> list[str]:
    return placement.rebound_changes(
        placement.placement(ast.parse(before), before), placement.placement(ast.parse(after), after), binds
    )


CASES = sample(itertools.product(CHANGED, LATER, PLACES))


@pytest.mark.parametrize(("changed", "later", "place"), CASES, ids=["-".join(c) for c in CASES])
def test_a_later_dynamic_rebinding_of_what_the_patch_changes_is_refused(changed: str, later: str, place: str) -> None:
    before, after = build(changed, later, place, False), build(changed, later, place, True)
    how = CHANGED[changed][2]
    try:
        assert value(before, how) != 50
    except NameError:  # the statement reads what is bound only after it (`globals().update(X=X)` first)
        pytest.skip("the original module does not run")
    runs = value(after, how) == 50
    found = rebound(before, after)
    on_class = later == "class-setattr-loop"
    computed = later in COMPUTED and place != "before" and (not on_class or changed == "method")
    assert bool(found) == (not runs or computed), (after, found)
    if found:
        name = ("`C.X`" if on_class else "`C`") if changed == "method" else "`X`"
        assert found[0].startswith(f"it changes {name} (line "), found
        some = place == "after-in-try" or LATER[later].startswith("for ")  # a loop may run no time
        assert "rebind" in found[0] and (("on some paths" in found[0]) == some), found
        if runs:  # refused because radpatch cannot tell: the message says so
            assert "cannot tell which names it binds" in found[0], found


def test_without_a_target_to_read_a_star_imported_module_from_it_is_refused() -> None:
    before, after = build("constant", "star-other", "after", False), build("constant", "star-other", "after", True)
    found = rebound(before, after, None)
    assert found and "cannot tell that the module it reads does not bind `X`" in found[0], found


@pytest.mark.parametrize(("local", "refused"), [("DEBUG = True\n", False), ("TIMEOUT = 7\n", True), (None, True)])
def test_the_star_imported_module_is_read_from_the_targets_path(
    tmp_path: Path, local: str | None, refused: bool
) -> None:
    """The att21 F6 case (Django's settings): `TIMEOUT = 5` then `try: from rpstar.local import *`.
    Accepted only when rpstar/local.py is on the target's path and does not bind TIMEOUT."""
    (tmp_path / "rpstar").mkdir()
    (tmp_path / "rpstar" / "__init__.py").write_text("")
    if local is not None:
        (tmp_path / "rpstar" / "local.py").write_text(local)
    source = "TIMEOUT = 5\ntry:\n    from .local import *\nexcept ImportError:\n    pass\n"
    env = PythonEnv(sys.executable, (tmp_path, Path(sysconfig.get_paths()["stdlib"])), tmp_path, sys.version_info[:2])
    patch = patch_of(SetConstant("TIMEOUT", "50", "5"), distribution="rpstar", module="m", location="t.yaml:3")
    rws = patch.rewrites
    before = source.encode()
    after = source.replace("TIMEOUT = 5", "TIMEOUT = 50").encode()
    found = placement_check.placement_refusal(patch, rws, before, after, "rpstar/settings.py", env, "rpstar.settings")
    assert (found is not None) == refused, found
    if found is not None:
        assert found.why.startswith("rewrite 'r0' (t.yaml:3) on rpstar/settings.py: it changes `TIMEOUT` (line 1)")
        assert "`from .local import *` at line 3" in found.why and found.hint == refusal.REBIND_HINT, found

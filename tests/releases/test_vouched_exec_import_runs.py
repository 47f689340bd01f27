"""A vouch sees a def the module runs at import that rebinds or changes the exec's namespace (att56 F11, issue 23).

`reads:` digests the code an exec call depends on. A def run at import (called, a decorator, through
an alias, a list of hooks, another def, a class body) that rebinds the namespace the call passes
(`globals()["NS"] = ...`, `global NS`, `setattr(sys.modules[__name__], ...)`) or changes it in place
(`NS.update(...)`, a helper passed it) was outside that code: a release changing only that def's
body kept the vouch, while Python's import of it made the call store into another module's namespace.

Generated: per way the def runs at import and per way it touches the namespace, 2.0 and a 2.1 whose
def now gives the call `vars(core)` (or fills it from there). The oracle: Python imports 2.1 and runs
code storing `size` through the call: does it land in `core`? Where it does, the reads differ; they
differ for every such change (a def run at import touching the namespace is code the call depends
on). Neutral changes (an unrelated def, its docstring, a comment, a def run at import touching
nothing the call reads) keep the reads, except that a def run at import radpatch cannot read
(`globals()`, `sys.modules`) takes every def the module runs at import with it. Also read: the
module passing the namespace to its helper itself (`_fill(NS, {})` at module level), and that helper."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.releases import exec_sites
from tests.lib.def_runs import runs
from tests.lib.generated import sample

HEAD = '''import sys
import types

core = types.SimpleNamespace()
NS = {}


def run(code):
    exec(code, NS)
    return NS


def unrelated():
    """Unrelated."""
    return 1


def banner():
    return "a"


BANNER = banner()


def _fill(ns, source):
    ns.update(source)


def configure(fn=None):
    # sets up the namespace
'''
TRIGGERS = {  # how the module runs configure at import
    "called": "configure()\n",
    "a decorator": "@configure\ndef hooked():\n    pass\n",
    "an alias": "setup = configure\nsetup()\n",
    "a list of hooks": "HOOKS = [configure]\nfor hook in HOOKS:\n    hook()\n",
    "another def": "def main():\n    configure()\n\n\nmain()\n",
    "a class body": "class Setup:\n    configure()\n",
}
FORMS = {  # configure's body on 2.0, as 2.1 changes it; whether radpatch cannot read what it binds
    "globals()": ('    globals()["NS"] = {}\n', '    globals()["NS"] = vars(core)\n', True),
    "global": ("    global NS\n    NS = {}\n", "    global NS\n    NS = vars(core)\n", False),
    "setattr on the module": (
        '    setattr(sys.modules[__name__], "NS", {})\n',
        '    setattr(sys.modules[__name__], "NS", vars(core))\n',
        True,
    ),
    "in place": ("    NS.update({})\n", "    NS.update(vars(core))\n", False),
    "a helper passed it": ("    _fill(NS, {})\n", "    _fill(NS, vars(core))\n", False),
}
NEUTRAL = {  # 2.1 changes nothing the call depends on
    "an unrelated def": ("    return 1\n", "    return 2\n"),
    "an unrelated docstring": ('"""Unrelated."""', '"""Not related."""'),
    "a comment": ("    # sets up the namespace\n", "    # sets up the namespace, once\n"),
    "a def run at import touching nothing the call reads": ('    return "a"\n', '    return "b"\n'),
}
CASES = sample([(t, f, n) for t in TRIGGERS for f in FORMS for n in ("", *NEUTRAL)])


def _module(trigger: str, body: str) -> str:
    return HEAD + body + "    return fn\n\n\n" + TRIGGERS[trigger] + "\n\nENTRIES = [run]\n"


def _reads(text: str) -> str:
    (site,) = exec_sites.sites("rp_hook/mod.py", ast.parse(text))
    return site.reads


def _stores_into_core(text: str, root: Path) -> bool:
    shows = '(mod.run("size = len"), "size" in vars(mod.core))[1]'
    root.mkdir()
    found = runs({"rp_hook": (text, shows)}, root)["rp_hook"]
    assert isinstance(found, bool), found
    return found


@pytest.mark.parametrize(("trigger", "form", "neutral"), CASES, ids=[f"{t}-{f}-{n or 'changed'}" for t, f, n in CASES])
def test_a_def_run_at_import_touching_the_namespace_is_read(
    tmp_path: Path, trigger: str, form: str, neutral: str
) -> None:
    was, now, unread = FORMS[form]
    base = _module(trigger, was)
    assert not _stores_into_core(base, tmp_path / "base")  # 2.0 as vouched: its code stores nothing into core
    if not neutral:
        changed = _module(trigger, now)
        assert _stores_into_core(changed, tmp_path / "changed") or form == "in place" or form.startswith("a helper")
        assert _reads(changed) != _reads(base), (trigger, form)
        return
    old, new = NEUTRAL[neutral]
    assert old in base, neutral
    changed = base.replace(old, new)
    # it goes in with a def radpatch cannot read (the safe side: every def run at import goes in); a loop's
    # `hook()` over `HOOKS = [configure]` runs configure alone, not `run` of `ENTRIES = [run]` (issue 21)
    stale = neutral.startswith("a def run at import") and unread
    assert (_reads(changed) != _reads(base)) == stale, (trigger, form, neutral)


AT_MODULE_LEVEL = {  # the module passes the namespace to its helper itself; 2.1 changes the call or the helper
    "the call": ("_fill(NS, {})\n", '_fill(NS, {"size": len})\n'),
    "the helper": ("    ns.update(source)\n", "    ns.update(source)\n    ns.update(vars(core))\n"),
}


@pytest.mark.parametrize("changed", AT_MODULE_LEVEL)
def test_the_namespace_passed_to_a_call_at_module_level_is_read(changed: str) -> None:
    base = HEAD + "    return fn\n\n\n_fill(NS, {})\n\n\nENTRIES = [run]\n"
    old, new = AT_MODULE_LEVEL[changed]
    assert old in base, changed
    assert _reads(base.replace(old, new)) != _reads(base), changed
    assert _reads(base.replace("    # sets up the namespace\n", "")) == _reads(base)  # configure: never run


# att57 F6: an import added to the exec's own module that binds the namespace it runs in. A star import binds
# names no binding shows: it is read (its module and level) wherever the call reads a name, the safe side
# even where Python would not rebind (above `NS = {}`, a module not defining it). Other modules' code: F7,
# a documented limit (docs/safety.md), not read.
STAR_OTHERS = {  # beside mod.py: what the imports read from
    "core.py": "",
    "util.py": "from rp_hook import core\n\nNS = vars(core)\nSPACE = vars(core)\n",
    "other.py": "HELPER = 1\n",
}
STAR_BASE = (
    "from rp_hook import core\n\nNS = {}\n\n\ndef run(code):\n    exec(code, NS)\n    return NS\n\n\n"
    "def unrelated():\n    return 1\n\n\nX = 1\n\n\nENTRIES = [run]\n"
)
STAR_BASES = {"plain": STAR_BASE, "with a star import": STAR_BASE.replace("X = 1\n", "X = 1\nfrom .other import *\n")}
IMPORTS = {  # 2.1's change (old -> new) and whether the reads must differ
    "a star import after the exec": ("X = 1\n", "from rp_hook.util import *\n", True),
    "a star import before the exec": ("NS = {}\n", "NS = {}\nfrom rp_hook.util import *\n", True),
    "a relative star import": ("X = 1\n", "from .util import *\n", True),
    "a star import in a try": ("X = 1\n", "try:\n    from .util import *\nexcept ImportError:\n    pass\n", True),
    "a star import above the namespace (unknown)": ("core\n", "core\nfrom .util import *\n", True),
    "a star import of a module without the name (unknown)": ("X = 1\n", "from rp_hook.other import *\n", True),
    "the star import's module": (".other import *", ".util import *", True),
    "the star import's level": ("from .other import *", "from rp_hook.other import *", True),
    "an import-from of the name": ("X = 1\n", "from rp_hook.util import NS\n", True),
    "an import-from alias": ("X = 1\n", "from rp_hook.util import SPACE as NS\n", True),
    "an import as the name": ("X = 1\n", "import rp_hook.util as NS\n", True),
    "an import of another name": ("X = 1\n", "from rp_hook.util import SPACE\n", False),
    "an import-from alias to another name": ("X = 1\n", "from rp_hook.util import NS as OTHER\n", False),
    "a plain import": ("X = 1\n", "import rp_hook.util\n", False),
    "the neutral statement": ("X = 1\n", "X = 2\n", False),
    "an unrelated def": ("    return 1\n", "    return 2\n", False),
}
IMPORT_CASES = sample([(b, c) for b in STAR_BASES for c in IMPORTS if IMPORTS[c][0] in STAR_BASES[b]])


@pytest.mark.parametrize(("base", "change"), IMPORT_CASES, ids=[f"{b}-{c}" for b, c in IMPORT_CASES])
def test_an_import_binding_the_namespace_is_read(tmp_path: Path, base: str, change: str) -> None:
    was = STAR_BASES[base]
    old, new, stale = IMPORTS[change]
    now = was.replace(old, new, 1)
    assert now != was, change
    shows = '(mod.run("size = len"), "size" in vars(mod.core))[1]'
    found = {}
    for name, text in (("rp_was", was), ("rp_now", now)):  # each its own rp_hook package, as the imports name it
        (tmp_path / name).mkdir()
        found[name] = runs({"rp_hook": (text, shows)}, tmp_path / name, others=STAR_OTHERS)["rp_hook"]
    assert found["rp_was"] is False, found  # 2.0 as vouched: its code stores nothing into core
    rebinds = found["rp_now"] is not False  # Python: the call now stores into core, or cannot run
    assert (_reads(now) != _reads(was)) == stale, (base, change)
    assert stale or not rebinds, found  # a neutral twin leaves what the call does alone

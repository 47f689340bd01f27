"""A patched fallback of a guarded import judged as the module runs its try (attack36 F6, F7, F9b and
the other-version target): the module's own bindings the try's body reads, a guarded module that
imports the patched one back (a cycle), one question per command, and a module only the target's
grammar reads.

Generated: what the guarded module does with the patched one (imports a name the patched module
binds after the try, or before it, the module itself, its package's attribute, reads one of its
names at import) times the handler's catch; and what binds the global the try's body reads (a
constant, an import, two bindings, none) times the catch. The oracle imports the patched module in
a subprocess of the target interpreter: apply refuses a patch whose code would not run there, and
whatever it applies runs. A binding the target cannot be asked about alone is refused saying so."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import placement_check
from radpatch.rewrite.ops.replace import Replace
from tests.lib.fallback_entry import ENTRY, REWRITE, refused_or_runs
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of
from tests.lib.site import Site
from tests.lib.sources import parses_here

CYCLE_CORE = """\
EARLY = 0

try:
    from rpfb.fast import f
except {catch}:
    def f():
        return 1

LATE = 0


def value():
    return f()
"""

BACK = {  # what rpfb/fast.py does with rpfb.core before it defines f; the patched fallback then runs?
    "from-late": "from rpfb.core import LATE",
    "from-early": "from rpfb.core import EARLY",
    "import-module": "import rpfb.core",
    "from-package": "from rpfb import core",
    "read-late": "import rpfb.core\nX = rpfb.core.LATE",
}
CATCHES = ("ImportError", "Exception", "")


@pytest.mark.parametrize(("back", "catch"), sample(itertools.product(BACK, CATCHES)))
def test_a_guarded_module_importing_the_patched_one_back_is_judged_as_during_its_import(
    back: str, catch: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    """F6: judged alone, `from rpfb.fast import f` succeeded (rpfb.fast importing rpfb.core whole), so a
    fallback that runs (rpfb.core is imported first and is partly initialised when rpfb.fast reads
    it back) was refused as never running. A name bound before the try is there: the module's
    statements before the try run first (imp39 I2), so the import succeeds and the refusal is checked
    against the oracle."""
    text = CYCLE_CORE.format(catch=f" {catch}" if catch else "")
    fast = f"{BACK[back]}\n\n\ndef f():\n    return 0\n"
    site.install("rpfb", "1.0", {"rpfb/__init__.py": "", "rpfb/core.py": text, "rpfb/fast.py": fast})
    code, err = refused_or_runs(site, write_registry("fb", ENTRY.format(rewrite=REWRITE)), radpatch, text)
    if back == "from-late" or back == "read-late" and catch != "ImportError":
        assert code == 0, err  # the target runs the patched fallback
    if back == "from-early":  # bound before the try, which runs first as Python runs it (imp39 I2): judged
        assert code == 1 and "so the patched fallback never runs" in err, err


GLOBAL_CORE = """\
import sys

{binding}

try:
    import json
    loads = _backend.loads
except {catch}:
    def loads():
        return 1


def value():
    try:
        return int(loads())
    except Exception:
        return -1
"""

BINDINGS = {  # what binds `_backend` before the try; the target can be asked (the binding runs alone)?
    "constant": ("_backend = None", True),
    "import": ("import pickle as _backend", True),
    "import-from": ("from json import decoder as _backend", True),
    "twice": ("_backend = None\nif sys.maxsize:\n    _backend = sys", False),
    "call": ("_backend = sys.modules.get('pickle')", False),
}
GLOBAL_CATCHES = ("AttributeError", "(ImportError, AttributeError)", "Exception", "ImportError")
GLOBAL_REWRITE = "replace: {scope: loads, find: return 1, with: return 2}"


@pytest.mark.parametrize(("binding", "catch"), sample(itertools.product(BINDINGS, GLOBAL_CATCHES)))
def test_a_try_body_reading_the_module_globals_is_run_after_their_binding(
    binding: str, catch: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    """F7: the body `loads = _backend.loads` was run without `_backend`: NameError, so a fallback that
    runs was refused (not caught) and one that never runs applied (caught by Exception). Now the
    module's one binding of it runs first; a binding that does not run alone is refused as untold."""
    text = GLOBAL_CORE.format(binding=BINDINGS[binding][0], catch=catch)
    site.install("rpfb", "1.0", {"rpfb/__init__.py": "", "rpfb/core.py": text})
    code, err = refused_or_runs(site, write_registry("fb", ENTRY.format(rewrite=GLOBAL_REWRITE)), radpatch, text)
    if not BINDINGS[binding][1]:
        assert code == 1 and "reads `_backend`, which the module binds in a way radpatch does not run alone" in err
    elif binding == "constant" and catch != "ImportError":
        assert code == 0, err
    if code == 1:
        assert "runs only where `import json`; `loads = _backend.loads` fails" in err, err


@pytest.mark.parametrize("fast", ["succeeds", "fails", "hangs"])
def test_the_guarded_import_question_is_asked_once_per_command(
    fast: str, site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """F9b: apply asked the target twice (a hang cost two limits). The guarded module logs each
    import of it: one per apply, whether the import succeeds, fails or does not finish."""
    from radpatch.prove import guarded_imports

    monkeypatch.setattr(guarded_imports, "TIMEOUT", 2.0)
    log = tmp_path / "imported.log"
    tail = {
        "succeeds": "def f():\n    return 0\n",
        "fails": "raise ImportError('no')\n",
        "hangs": "while True:\n    pass\n",
    }
    fast_text = f"with open({str(log)!r}, 'a') as _log:\n    _log.write('imported\\n')\n{tail[fast]}"
    text = CYCLE_CORE.format(catch=" ImportError")
    site.install("rpfb", "1.0", {"rpfb/__init__.py": "", "rpfb/core.py": text, "rpfb/fast.py": fast_text})
    r = radpatch("--registry", str(write_registry("fb", ENTRY.format(rewrite=REWRITE))), "apply", "fb")
    assert r.code == (0 if fast == "fails" else 1), r
    assert log.read_text().splitlines() == ["imported"], r


NEWER = "type Pair = tuple[int, int]\n\n"


def newer_targets() -> list[Path]:
    return [p for p in sorted(Path("/root/.pyenv/versions").glob("3.1[2-9]*/bin/python"))]


@pytest.mark.interpreters
@pytest.mark.parametrize("installed", [True, False])
@pytest.mark.parametrize("exe", newer_targets(), ids=lambda p: p.parent.parent.name)
def test_a_module_only_the_target_parses_has_its_patched_fallback_judged_too(
    exe: Path, installed: bool, tmp_path: Path
) -> None:
    """The target interpreter runs the placement checks for a module radpatch's own Python cannot
    parse (prove/target_probe): the fallback check was not among them, and a fallback that never
    runs applied. Now the probe hands the changed fallbacks back and the target is asked."""
    text = NEWER + CYCLE_CORE.format(catch=" ImportError")
    if parses_here(text):
        pytest.skip("radpatch's own Python reads this grammar: nothing is delegated")
    (tmp_path / "rpfb").mkdir()
    (tmp_path / "rpfb" / "__init__.py").write_text("")
    (tmp_path / "rpfb" / "core.py").write_text(text)
    if installed:
        (tmp_path / "rpfb" / "fast.py").write_text("def f():\n    return 0\n")
    env = python_env(str(exe))
    target = dataclasses.replace(env, paths=(tmp_path, *env.paths))
    patch = patch_of(Replace("f", "return 1", "return 2"), location="t.yaml:{n}")
    after = text.replace("return 1", "return 2")
    refused = placement_check.placement_refusal(
        patch, patch.rewrites, text.encode(), after.encode(), "core.py", target, "rpfb.core"
    )
    if installed:
        assert refused is not None and "so the patched fallback never runs" in refused.why, refused
        assert "its code is in the fallback at line 7" in refused.why, refused
    else:
        assert refused is None, refused


IN_DEF_CORE = """\
{binding}


def value():
    try:
        import json
        loads = {read}.loads
    except {catch}:
        return 1
    return -1
"""

IN_DEF_READS = {  # what the try in a def reads: a name of the module, or one of the function's own
    "module-constant": ("_backend = None", "_backend", "a name of the module, from within a function"),
    "module-import": ("import pickle as _backend", "_backend", "a name of the module, from within a function"),
    "undefined": ("", "_nowhere", "which the function binds (or nothing does)"),
}


@pytest.mark.parametrize(("reads", "catch"), sample(itertools.product(IN_DEF_READS, ("AttributeError", "Exception"))))
def test_a_try_in_a_def_reading_a_name_is_undecided_and_said_so(
    reads: str, catch: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    """In a def the name's value is the one when the function is called: not run alone, refused
    saying which name and where it is read (was run without it: NameError, caught by Exception)."""
    binding, name, said = IN_DEF_READS[reads]
    text = IN_DEF_CORE.format(binding=binding, read=name, catch=catch)
    site.install("rpfb", "1.0", {"rpfb/__init__.py": "", "rpfb/core.py": text})
    rewrite = "replace: {scope: value, find: return 1, with: return 2}"
    code, err = refused_or_runs(site, write_registry("fb", ENTRY.format(rewrite=rewrite)), radpatch, text)
    assert code == 1 and f"the try's body reads `{name}`, {said}: radpatch does not run it alone" in err, err

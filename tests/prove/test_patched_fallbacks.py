"""A patch that changes only the fallback of a guarded import (`try: from fast import f` / `except
ImportError: def f(...)`) is refused where the target's import succeeds, since the patched code
never runs there, and the refusal names the fallback and says what to patch instead. It applies
where the import fails on the target (the module is absent, or present but raising ImportError when
imported): there the fallback is the code that runs. Whether the import succeeds is asked of the
target interpreter in a subprocess (prove.guarded_imports), never imported in radpatch's process.

Generated: the spelling of the guarded import (from-import, plain import, relative, in a module-level
`if`, several imports) times the handler's catch (ImportError, ModuleNotFoundError, a tuple,
Exception, bare) times what the fallback is (a def, a class's method, a constant) times the target
(the fast module installed, absent, installed but failing to import). The oracle imports the patched
module in a subprocess of the target interpreter and reads whether the patched value is what runs:
apply refuses exactly the patches whose code does not run."""

from __future__ import annotations

import itertools
import textwrap
from typing import Any

import pytest

from tests.lib.fallback_entry import ENTRY, applied_and_runs, runs_value, sources
from tests.lib.generated import sample
from tests.lib.site import Site

GUARDS = {  # the try's body; {fast} is the fast module's absolute name, {rel} its relative one
    "from": "from {fast} import f",
    "import-bind": "import {fast} as _fast\n    f = _fast.f",
    "relative": "from {rel} import f",
    "two-imports": "import json\n    from {fast} import f",
}
CATCHES = ("ImportError", "ModuleNotFoundError", "(ImportError, AttributeError)", "Exception", "")
FALLBACKS = {  # the fallback's code, and the rewrite that changes 1 into 2 in it
    "def": ("def f():\n        return 1", "replace: {scope: f, find: return 1, with: return 2}"),
    "method": (
        "class F:\n        def m(self):\n            return 1\n    f = lambda: F().m()",
        "replace: {scope: F.m, find: return 1, with: return 2}",
    ),
    "constant": ("VALUE = 1\n    f = lambda: VALUE", "replace: {scope: <module>, find: VALUE = 1, with: VALUE = 2}"),
}
TARGETS = ("installed", "absent", "failing")
FAST = {"installed": "def f():\n    return 0\n", "failing": "raise ImportError('its native library is missing')\n"}


def core(guard: str, catch: str, fallback: str) -> str:
    body = GUARDS[guard].format(fast="rpfb.fast", rel=".fast")
    code = FALLBACKS[fallback][0]
    head = f"try:\n    {body}\nexcept{' ' + catch if catch else ''}:\n    {code}\n"
    return head + "\n\ndef value():\n    return f()\n"


CASES = sample(itertools.product(GUARDS, CATCHES, FALLBACKS, TARGETS))


@pytest.mark.parametrize(
    ("guard", "catch", "fallback", "target"), CASES, ids=["-".join(c).replace(" ", "") or "bare" for c in CASES]
)
def test_a_patch_only_in_a_fallback_applies_exactly_where_the_fallback_runs(
    guard: str, catch: str, fallback: str, target: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    files = {"rpfb/__init__.py": "", "rpfb/core.py": core(guard, catch, fallback)}
    if target in FAST:
        files["rpfb/fast.py"] = FAST[target]
    site.install("rpfb", "1.0", files)
    reg = write_registry("fb", ENTRY.format(rewrite=FALLBACKS[fallback][1]))
    before = sources(site)
    r = radpatch("--registry", str(reg), "apply", "fb")
    if applied_and_runs(site, reg, radpatch, r, before):
        return
    assert r.code == 1, r
    first, hint = r.err.splitlines()
    assert first.startswith("radpatch: error: fb: rewrite 'r'") and "fb.yaml:" in first, first
    assert "its code is in the fallback at line" in first, first
    assert "never runs" in first or "is not told" in first, first
    assert "patch the definition that runs" in hint, hint
    assert sources(site) == before
    # the oracle: with the patch written anyway, its code would not run
    (site.root / "rpfb" / "core.py").write_text(
        core(guard, catch, fallback).replace("return 1", "return 2").replace("VALUE = 1", "VALUE = 2")
    )
    assert runs_value(site) != 2


def test_a_guarded_import_the_patch_adds_with_its_fallback_is_the_patch_own_choice(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    """Control: changing the try's import and its fallback in one entry is not a patched fallback alone."""
    site.install(
        "rpfb",
        "1.0",
        {"rpfb/__init__.py": "", "rpfb/fast.py": FAST["installed"], "rpfb/core.py": core("from", "ImportError", "def")},
    )
    rewrite = textwrap.dedent("""\
        replace: {scope: f, find: return 1, with: return 2}
          - id: r2
            file: core
            replace: {scope: <module>, find: from rpfb.fast import f, with: from rpfb.fast import g as f}
        """).rstrip()
    reg = write_registry("fb", ENTRY.format(rewrite=rewrite))
    r = radpatch("--registry", str(reg), "apply", "fb")
    assert "never runs" not in r.err, r.err


IN_DEF = """\
def value():
    try:
        from rpfb.fast import f
    except {catch}:
        return 1
    return f()
"""


IN_MATCH = """\
import sys

match sys.platform:
    case _:
        try:
            from rpfb.fast import f
        except {catch}:
            def f():
                return 1


def value():
    return f()
"""


# where the guarded import stands: (the module, the scope of its fallback, the fallback's line)
CONTAINERS = {"function": (IN_DEF, "value", 4), "match-case": (IN_MATCH, "f", 7)}


@pytest.mark.parametrize("catch", ["ImportError", "ModuleNotFoundError", "Exception"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("container", list(CONTAINERS))
def test_a_guarded_import_in_a_function_or_match_case_is_judged_the_same(
    container: str, catch: str, target: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    """In a def, as at module level; in a `match` case (attack36 F5: the fallback walk did not enter
    match cases: applied, `status --check` 0, and the patched fallback never ran where `rpfb.fast`
    imports)."""
    text, scope, line = CONTAINERS[container]
    files = {"rpfb/__init__.py": "", "rpfb/core.py": text.format(catch=catch)}
    if target in FAST:
        files["rpfb/fast.py"] = FAST[target]
    site.install("rpfb", "1.0", files)
    reg = write_registry("fb", ENTRY.format(rewrite=f"replace: {{scope: {scope}, find: return 1, with: return 2}}"))
    before = sources(site)
    r = radpatch("--registry", str(reg), "apply", "fb")
    if r.code == 0:
        assert runs_value(site) == 2, f"applied, but the patched fallback does not run: {r.out}{r.err}"
        return
    assert r.code == 1 and f"its code is in the fallback at line {line}" in r.err, r
    assert sources(site) == before
    (site.root / "rpfb" / "core.py").write_text(text.format(catch=catch).replace("return 1", "return 2"))
    assert runs_value(site) != 2


@pytest.mark.parametrize("hang", ["import time\ntime.sleep(600)\n", "while True:\n    pass\n"])
def test_a_guarded_import_that_does_not_finish_is_said_so(
    hang: str, site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """attack36 F9: an import that hangs was killed after the limit and read "gave no answer"; the
    refusal now says it did not finish within the limit (here 1 s, set for the test), and nothing is
    written."""
    from radpatch.prove import guarded_imports

    monkeypatch.setattr(guarded_imports, "TIMEOUT", 1.0)
    files = {"rpfb/__init__.py": "", "rpfb/core.py": IN_DEF.format(catch="ImportError"), "rpfb/fast.py": hang}
    site.install("rpfb", "1.0", files)
    reg = write_registry("fb", ENTRY.format(rewrite="replace: {scope: value, find: return 1, with: return 2}"))
    before = sources(site)
    r = radpatch("--registry", str(reg), "apply", "fb")
    assert r.code == 1, r
    assert "the target interpreter did not finish the import within 1 s (killed)" in r.err, r.err
    assert sources(site) == before

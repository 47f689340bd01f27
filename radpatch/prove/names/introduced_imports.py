"""The names step's question of a new import: the new missing imports (import_lookup.missing_imports)
less those that are not the patch's failure (a module the install already expects, a name or module
of the patched package's own that entries applied before it in the same run may add, a submodule a
module of the package that surely runs first imports)."""

from __future__ import annotations

import ast
import copy
import re
import sys
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from .import_lookup import Ask, Lookup, missing_imports
from .import_order import absolute, imported_before
from .module_files import path_lookup
from .package_scan import completed_only, imports_top, init_binds, package_imported
from .problem import MISSING_MODULE, MISSING_NAME, UNIMPORTED_SUBMODULE, Problem
from .target_stdlib import ADDED_SINCE_310


def introduced_missing(
    before: bytes,
    after: bytes,
    module: tuple[str, bool] | None,
    paths: list[str],
    version: tuple[int, int],
    own: Collection[str],
    follows: bool,
    read_head: Callable[[Path], Iterable[str]],
    ask: Ask | None = None,
    fresh: Ask | None = None,
) -> list[Problem]:
    """New unguarded imports of what the target's import path `paths` lacks (missing_imports), looked
        up without importing, that are the patch's failure. `own`: the modules whose planned text is not
        on disk (the patch's own), never judged by their files. `follows`: the patch requires entries
        applied before it in the same run, which may add names (no `from` import's names are judged) and
        modules of its package. `read_head`: the lines of a metadata file from its start (a regular file
        only), for the requirements installed distributions declare. `ask`: the target, for the names a
    `from` import takes from its standard library. `fresh`: the target, for a fresh import's bindings
    (missing_imports); a submodule read passes when a module of the package that surely runs before
    it imports it (the process imported it before the read runs: _run_imports)."""
    if before == after:
        return []
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lookup = path_lookup(paths)
    if follows:
        lookup = _modules_only(lookup)
    stdlib = frozenset(getattr(sys, "stdlib_module_names", ()))
    found = missing_imports(
        old,
        new,
        module,
        stdlib,
        stdlib | ADDED_SINCE_310,
        lookup,
        version,
        own,
        ask,
        fresh,
        init_binds(paths),
        (before, after),
    )
    package = module[0].split(".")[0] if module else None
    if module and package and any(p.kind == UNIMPORTED_SUBMODULE for p in found):
        found = [p for p in found if p.kind != UNIMPORTED_SUBMODULE or not _run_imports(new, module, package, paths, p)]
    if package:  # the package's own modules may be changed by the entries applied before it in the same run
        found = [p for p in found if p.kind != MISSING_NAME or _top(p.detail) != package.lower()]
    if not any(p.kind == MISSING_MODULE for p in found):
        return found
    shared = _expected_modules(old, paths, read_head)
    # only a missing top-level module (a dotted name is a submodule or package the files can tell)
    found = [p for p in found if p.kind != MISSING_MODULE or "." in p.name or _top(p.name) not in shared]
    if follows and package:  # its requirements may create modules of its own package: not told by files
        found = [p for p in found if p.kind != MISSING_MODULE or _top(p.name) != package.lower()]
    if package:  # what the distribution's own modules already import, it already needs
        found = [
            p for p in found if p.kind != MISSING_MODULE or "." in p.name or not imports_top(paths, package, p.name)
        ]
    return found


def _run_imports(tree: ast.Module, module: tuple[str, bool], package: str, paths: list[str], problem: Problem) -> bool:
    """Whether a module of the package that surely runs before the read imports its submodule
    (package_scan.package_imported): from the module's parent packages, and the modules of the
    package its own imports surely ran before the read's line (import_order)."""
    here = module[0] if module[1] else module[0].rpartition(".")[0]
    mine: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            mine.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom) and (base := absolute(n, here)):
            mine.update([base, *(f"{base}.{a.name}" for a in n.names)])
    ran = completed_only(copy.deepcopy(tree), problem.line)  # a module imported under a swallowing `try` may stop early
    first = [m for m in mine if m.split(".")[0] == package and imported_before(ran, problem.line, m, here)]
    wanted = _submodule(problem)
    return wanted in package_imported(paths, package, {wanted}, module[0], first)


def _modules_only(lookup: Lookup) -> Lookup:
    return lambda module, name: lookup(module, None) if name is None else None


def _top(dotted: str) -> str:
    return dotted.split(".")[0].lower().replace("-", "_")


_REQUIRES = re.compile(r"^Requires-Dist:\s*([A-Za-z0-9][A-Za-z0-9._-]*)", re.MULTILINE)


def _expected_modules(
    before: ast.Module, paths: list[str], read_head: Callable[[Path], Iterable[str]]
) -> frozenset[str]:
    """Top-level modules whose absence is the install's failure, not the patch's: those the unpatched
    module already imports, and those an installed distribution declares it requires (Requires-Dist;
    a target installed without its dependencies fails to import them patched or not)."""
    out = {_top(a.name) for n in ast.walk(before) if isinstance(n, ast.Import) for a in n.names}
    out |= {_top(n.module) for n in ast.walk(before) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    for root in paths:
        try:
            metas = [*Path(root).glob("*.dist-info/METADATA"), *Path(root).glob("*.egg-info/PKG-INFO")]
        except OSError:
            continue
        for meta in metas:
            try:
                head = "".join(read_head(meta))
            except OSError:
                continue
            out |= {_top(m) for m in _REQUIRES.findall(head)}
    return frozenset(out)


def _submodule(problem: Problem) -> str:
    """The module an unimported-submodule read needs imported (`xml.dom.minidom`); its detail is
    "parent module" (`xml xml.dom.minidom`)."""
    return problem.detail.split(" ")[-1]

"""A new import that closes an import cycle through another module of the package, where that module
takes a name back from the patched module at import time before the patched module binds it (att21
F2): `toyq/other.py` does `from toyq.mod import VALUE`; the patch puts `from toyq.other import
helper` in `toyq/mod.py` above `VALUE = 1`. `import toyq.mod` runs `toyq.other`, which asks the
half-initialised `toyq.mod` for VALUE: ImportError (or AttributeError for `mod.VALUE`).

Decided statically, with `ast`, never by importing: the modules on a cycle the new import closes
(prove.cycles), each one's import-time reads of the patched module's names (`from <mod> import
NAME`, `<mod>.NAME` through a name bound to the module; not inside a def or lambda: those run
later), and the line where the patched module first binds each name, against the line of the new
import. A module on the cycle radpatch cannot read is a refusal that says so: the plain apply
cannot tell, `apply --import-check` can.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from radpatch.prove import cycles
from radpatch.prove.names import CYCLE_READ, Problem
from radpatch.prove.names.importers import taken_from, top_bindings


class _ImportTime(ast.NodeTransformer):
    """The module as it runs at import: def bodies and lambdas dropped (they run later)."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        return None

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        return None

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return ast.Constant(None)


def _root(dotted: str, paths: Sequence[str]) -> Path | None:
    return next((Path(p) for p in paths if cycles.module_file(Path(p), dotted) is not None), None)


def _new_import_line(old: ast.Module, new: ast.Module, module: str, package: bool, ring: set[str]) -> int | None:
    """The line of the first import-time import statement `new` adds that imports one of `ring`."""
    had: dict[str, int] = {}
    for s in _imports(old):
        had[ast.dump(s)] = had.get(ast.dump(s), 0) + 1
    for s in _imports(new):
        key = ast.dump(s)
        if had.get(key, 0):
            had[key] -= 1
            continue
        one = ast.Module(body=[s], type_ignores=[])
        if cycles.edges(ast.unparse(one).encode(), module, package) & ring:
            return s.lineno
    return None


def _imports(tree: ast.Module) -> list[ast.stmt]:
    found = [n for n in ast.walk(_ImportTime().visit(tree)) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return sorted(found, key=lambda s: s.lineno)


def cycle_reads(before: bytes, after: bytes, module: tuple[str, bool] | None, paths: Sequence[str]) -> list[Problem]:
    """A Problem per name a module on a cycle the patch's new import closes takes from the patched
    module at import time while the patched module binds it only below that import (or not at all),
    or per module on the cycle radpatch cannot read."""
    if module is None or before == after or "." not in module[0]:
        return []
    if not _new_import_lines(before, after):
        return []  # no new line with an import on it: no new import, nothing parsed
    dotted, package = module
    root = _root(dotted, paths)
    if root is None:
        return []
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    unread = _unreadable_targets(root, dotted, package, before, after)
    ring = cycles.closed_cycles(root, dotted, before, after, {})
    line = _new_import_line(old, ast.parse(after), dotted, package, set(ring) | set(unread))
    if line is None:
        return []
    out: list[Problem] = []
    for other, where in unread.items():
        why = f"{where}, which the import at line {line} runs and radpatch cannot read to tell whether it"
        why += " takes names back from this module (run `apply --import-check`)"
        out.append(Problem(line, other, "<module>", CYCLE_READ, why))
    bound = top_bindings(new)
    dynamic = "__getattr__" in bound or any(
        isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in new.body
    )
    for other in ring:
        path = cycles.module_file(root, other)
        if path is None:
            continue
        where = path.relative_to(root).as_posix()
        try:
            tree = _ImportTime().visit(ast.parse(path.read_bytes()))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            why = f"{where}, on the import cycle the import at line {line} closes, which radpatch cannot read"
            out.append(Problem(line, other, "<module>", CYCLE_READ, why + " (run `apply --import-check`)"))
            continue
        names = set(bound) | _read_names(tree)
        for at, name in taken_from(tree, other, path.name == "__init__.py", dotted, names):
            first = bound.get(name)
            if first is not None and first < line:
                continue
            late = (
                f"binds it only at line {first}"
                if first is not None
                else "binds it, if at all, only through a star import or `__getattr__` radpatch does not follow"
                if dynamic
                else "never binds it"
            )
            why = f"{where}:{at} at import time, which the import at line {line} runs while this module {late}"
            out.append(Problem(line, name, "<module>", CYCLE_READ, why))
    return out


def _new_import_lines(before: bytes, after: bytes) -> bool:
    """Has `after` a line with `import` on it that `before` does not have (as often)?"""
    had: dict[bytes, int] = {}
    for line in before.splitlines():
        if b"import" in line:
            had[line.strip()] = had.get(line.strip(), 0) + 1
    for line in after.splitlines():
        if b"import" in line:
            if not had.get(line.strip(), 0):
                return True
            had[line.strip()] -= 1
    return False


def _unreadable_targets(root: Path, dotted: str, package: bool, before: bytes, after: bytes) -> dict[str, str]:
    """The package's modules a new import-time import of `after` loads whose files `ast` cannot read
    (so prove.cycles cannot follow them), each with its path under `root`."""
    top = dotted.split(".")[0]
    out: dict[str, str] = {}
    for t in sorted(cycles.edges(after, dotted, package) - cycles.edges(before, dotted, package)):
        path = cycles.module_file(root, t) if t.split(".")[0] == top else None
        if path is None:
            continue
        try:
            ast.parse(path.read_bytes())
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            out[t] = path.relative_to(root).as_posix()
    return out


def _read_names(tree: ast.AST) -> set[str]:
    """Every name the other module imports by name or reads as an attribute (the candidates)."""
    out = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    return out | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}

"""Where a decorator that a release's module imports from another module of its own package is
defined (issue 23, hf23), read from the release's files, never imported.

Obsolete detection (radpatch.releases.bindings) cannot tell what a decorator from another module
runs around a method: `@cached` with `from .utils import cached` (or `from vllm.utils import
cached` in a module of vllm). Within the package the code is there to read: the import is followed
to the module that defines the name (through re-exports, `from .impl import cached` in `utils`, at
most DEPTH modules), and the definition found is a plain `def` there, or nothing (None: cannot
tell). verify reads those modules from the wheel with the target's (wanted, reachable).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping

from radpatch.prove.names.import_lookup import resolved
from radpatch.prove.star_exports import ModuleSource, module_of, relpaths

DEPTH = 8  # modules followed for one name, at most
Read = Callable[[str], "bytes | None"]  # a wheel member's bytes, None: not read (or not there)


def decorator_roots(tree: ast.AST) -> set[str]:
    """The plain names decorators are written with (`@cached`, `@cached(1)`), anywhere in the module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if isinstance(f, ast.Name):
                    out.add(f.id)
    return out


def imported_from(tree: ast.Module, me: tuple[str, bool], name: str) -> tuple[str, str] | None:
    """(the module of the same package, the name there) that the module's top-level `from M import`
    binds `name` from; None when no such import binds it, it binds it more than once, or M is in
    another package."""
    found: list[tuple[str, str]] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                if (a.asname or a.name) == name and a.name != "*":
                    of = resolved(stmt, me)
                    if of is not None and of.split(".")[0] == me[0].split(".")[0]:
                        found.append((of, a.name))
                    else:
                        return None
        elif any(isinstance(t, ast.Name) and t.id == name for t in _stored(stmt)):
            return None  # the module binds the name itself too
    return found[0] if len(found) == 1 else None


def _stored(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [ast.Name(stmt.name)]
    return []


def definition(
    tree: ast.Module, me: tuple[str, bool], name: str, read: Callable[[str], ModuleSource | None]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The `def` that `name`, imported by the module from another module of its package, is, as
    `read` (dotted module -> its source) has the modules; None when it cannot be told."""
    hop = imported_from(tree, me, name)
    for _ in range(DEPTH):
        if hop is None:
            return None
        module, name = hop
        src = read(module)
        there = _parse(src.data) if src is not None else None
        if src is None or there is None:
            return None
        defs = [s for s in there.body if isinstance(s, ast.stmt) and name in _names(s)]
        if len(defs) == 1 and isinstance(defs[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return defs[0]
        hop = imported_from(there, (src.module, src.package), name) if not defs or _only_imports(defs) else None
    return None


def _names(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return {t.id for t in _stored(stmt) if isinstance(t, ast.Name)}


def _only_imports(stmts: list[ast.stmt]) -> bool:
    return all(isinstance(s, ast.ImportFrom) for s in stmts)


def _parse(data: bytes) -> ast.Module | None:
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def reachable(read: Read, relpath: str) -> tuple[ModuleSource, ...]:
    """The modules of the package the file's decorators are imported from, followed, as `read` has them."""
    out: dict[str, ModuleSource] = {}
    _chase(read, relpath, out, [])
    return tuple(sorted(out.values(), key=lambda s: s.module))


def wanted(read: Read, members: Collection[str]) -> frozenset[str]:
    """The wheel members the decorators of `members` (the `.py` ones `read` has) may be imported
    from, followed as far as `read` has the modules on the way: both files each module may be."""
    asked: list[str] = []
    for rel in members:
        _chase(read, rel, {}, asked)
    return frozenset(asked)


def _chase(read: Read, relpath: str, out: dict[str, ModuleSource], asked: list[str]) -> None:
    me = module_of(relpath)
    data = read(relpath) if me is not None else None
    tree = _parse(data) if data is not None else None
    if me is None or tree is None:
        return
    for name in sorted(decorator_roots(tree)):
        at, hop = (me, tree), imported_from(tree, me, name)
        for _ in range(DEPTH):
            if hop is None:
                break
            module, name = hop
            asked.extend(relpaths(module))
            src = _source(read, module)
            there = _parse(src.data) if src is not None else None
            if src is None or there is None:
                break
            out[src.module] = src
            at = ((src.module, src.package), there)
            hop = imported_from(at[1], at[0], name)


def _source(read: Read, module: str) -> ModuleSource | None:
    """The module's source as the wheel has it (a package's `__init__` wins over a same-named `.py`)."""
    py, init = relpaths(module)
    got = read(init)
    if got is not None:
        return ModuleSource(module, True, got)
    got = read(py)
    return ModuleSource(module, False, got) if got is not None else None


def reader(sources: Collection[ModuleSource]) -> Callable[[str], ModuleSource | None]:
    by_name: Mapping[str, ModuleSource] = {s.module: s for s in sources}
    return by_name.get

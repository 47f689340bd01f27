"""Where a decorator that a release's module imports from another module of its own package is
defined (issue 23, hf23), read from the release's files, never imported.

Obsolete detection (radpatch.releases.bindings) cannot tell what a decorator from another module
runs around a method: `@cached` with `from .utils import cached` (or `from vllm.utils import
cached` in a module of vllm), or a module's attribute, `@utils.cached` with `from . import utils`
(`import vllm.utils as utils`; `@vllm.utils.cached` with `import vllm.utils`; a `from PKG import
utils` only where the package's `__init__` binds no `utils` of its own, which would win over the
submodule). Within the package the code is there to read: the import is followed
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
    """The names decorators are written with, dotted (`@cached`, `@cached(1)`, `@utils.cached`,
    `@rptoy.utils.cached()`), anywhere in the module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                name = dotted(d.func if isinstance(d, ast.Call) else d)
                if name is not None:
                    out.add(name)
    return out


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` of a Name or a chain of attributes on one; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def first_hop(
    tree: ast.Module, me: tuple[str, bool], name: str, source: Callable[[str], ModuleSource | None]
) -> tuple[str, str] | None:
    """(the module of the same package, the name there) that the decorator `name` is read from:
    `cached` as imported_from binds it; `utils.cached` of a module the module imports (`from . import
    utils`, `from rptoy import utils` where the package binds no `utils` itself and the wheel has
    the module, `import rptoy.utils as utils`), `rptoy.utils.cached` of `import rptoy.utils`. None
    when the name is bound otherwise, more than once, to another package's module, or `source`
    (dotted module -> its source) lacks a module that tells."""
    root, _, attr = name.partition(".")
    if not attr:
        return imported_from(tree, me, root)
    module, attr = name.rpartition(".")[0], name.rpartition(".")[2]
    found: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                if (a.asname or a.name) == root:
                    of = resolved(stmt, me)
                    if of is None or "." in name.partition(".")[2] or not _submodule(of, a.name, source):
                        return None
                    found.append(f"{of}.{a.name}")
        elif isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname == root:
                    found.append(a.name if module == root else "")  # "": not a module's attribute
                elif a.asname is None and a.name == module and a.name.split(".")[0] == root:
                    found.append(a.name)  # (another `import ROOT.X` binds the same package: it tells nothing)
        elif any(isinstance(t, ast.Name) and t.id == root for t in _stored(stmt)):
            return None
    if len(set(found)) != 1 or not found[0] or found[0].split(".")[0] != me[0].split(".")[0]:
        return None
    return found[0], attr


def _submodule(package: str, name: str, source: Callable[[str], ModuleSource | None]) -> bool:
    """`from PACKAGE import NAME` binds the module PACKAGE.NAME: the wheel has it, and the package's
    own source binds no NAME (it would win over the submodule), nor star-imports what may."""
    src, own = source(f"{package}.{name}"), source(package)
    there = _parse(own.data) if own is not None else None
    return src is not None and there is not None and not any({name, "*"} & _names(s) for s in there.body)


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
    hop = first_hop(tree, me, name, read)
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
        if "." in name:  # a module's attribute: the modules that may tell which, read first
            for module in _candidates(tree, me, name):
                asked.extend(relpaths(module))
                src = _source(read, module)
                if src is not None:
                    out[src.module] = src
        at, hop = (me, tree), first_hop(tree, me, name, reader(tuple(out.values())))
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


def _candidates(tree: ast.Module, me: tuple[str, bool], name: str) -> list[str]:
    """The modules first_hop may need to read for `name` (`a.b.c`): for a `from X import a`, X and
    X.a; for an `import`, the module `name` is an attribute of."""
    root, module = name.partition(".")[0], name.rpartition(".")[0]
    out = [module]
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and (of := resolved(stmt, me)) is not None:
            out += [m for a in stmt.names if (a.asname or a.name) == root for m in (of, f"{of}.{a.name}")]
    return [m for m in dict.fromkeys(out) if m.split(".")[0] == me[0].split(".")[0]]


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

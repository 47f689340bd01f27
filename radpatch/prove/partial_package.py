"""A module taking a name from its own parent package while that package's `__init__` is still
running: `pkg/__init__.py` does `from .mod import VALUE` and then `EXTRA = 5`; the patched
`pkg/mod.py` does `from pkg import EXTRA`. `import pkg.mod` runs `pkg/__init__.py` first, which
imports `pkg.mod` at its line 1, so `pkg.mod` runs while `pkg` has no EXTRA yet: ImportError
(partially initialized module). The direct self-import's class, one package up. Reading the
module itself as its parent's attribute (`import pkg`, then `pkg.mod` in pkg/mod.py) fails
whatever the `__init__` does: the import system binds that attribute only after the module has run.

Found with `ast` from the files on the target's path, never by importing: the first module-level
statement of the package's `__init__` whose imports reach the patched module (directly, or
through the package's other modules: prove.cycles' import edges), and the names the `__init__`
binds before it. An `__init__` that binds names dynamically (a star import, `globals()`) before
that statement is not judged; a star import in or after it (`from .mod import *`) binds its names
only after the module has run.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from radpatch.prove import cycles
from radpatch.prove.names import PARTIAL_PACKAGE, SELF_IMPORT, Problem
from radpatch.prove.names.scope_bindings import Collector
from radpatch.prove.names.target_stdlib import unguarded_imports

MAX_MODULES = 500  # modules followed per package __init__ statement


def partial_package_imports(
    before: bytes, after: bytes, module: tuple[str, bool] | None, paths: Sequence[str]
) -> list[Problem]:
    """New import-time `from <parent package> import name` in `after`, or read of `<parent
    package>.name` through a module-level import of it (`import pkg`, then `LIMIT = pkg.EXTRA`),
    whose name the parent's `__init__` binds only after it imports this module (so not yet, when
    this module runs), or read of this module itself as its parent's attribute (`pkg.mod`, which the
    import system binds only after the module has run)."""
    if module is None or before == after or "." not in module[0]:
        return []
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    name, package = module
    had: dict[tuple[tuple[str, str], bool], int] = {}
    for key, _, _, itself in _taken(old, name, package):
        had[key, itself] = had.get((key, itself), 0) + 1
    out: list[Problem] = []
    for key, line, qual, itself in _taken(new, name, package):
        if had.get((key, itself), 0):
            had[key, itself] -= 1
            continue
        parent, taken = key
        if itself:  # `pkg.mod` in pkg/mod.py: the parent's attribute is bound only after this module has run
            why = f" (as {name}, an attribute {parent} gets only after it has run: AttributeError)"
            out.append(Problem(line, taken, qual, SELF_IMPORT, why))
            continue
        found = _bound_too_late(parent, taken, name, paths)
        if found is not None:
            at, init = found
            where = f"package {parent} while its __init__ is still running (it imports {name} at {init}:{at} "
            out.append(Problem(line, taken, qual, PARTIAL_PACKAGE, where + f"and binds {taken} only after it)"))
    return out


def _taken(tree: ast.Module, name: str, package: bool) -> list[tuple[tuple[str, str], int, str, bool]]:
    """_from_parents and _parent_attributes, each with whether it is a read of this very module through
    its parent's attribute (`import pkg`, then `pkg.mod` in pkg/mod.py: AttributeError at import)."""
    return [
        *((*found, False) for found in _from_parents(tree, name, package)),
        *((*found, ".".join(found[0]) == name) for found in _parent_attributes(tree, name)),
    ]


def _from_parents(tree: ast.Module, name: str, package: bool) -> list[tuple[tuple[str, str], int, str]]:
    """((parent package, name), line, scope) of each import-time `from <a parent package> import name`."""
    parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    own = name.split(".") if package else name.split(".")[:-1]
    out: list[tuple[tuple[str, str], int, str]] = []
    for node, qual in unguarded_imports(tree):
        if not isinstance(node, ast.ImportFrom) or qual != "<module>":
            continue
        if node.level:
            if node.level - 1 > len(own):
                continue
            base = ".".join([*own[: len(own) - (node.level - 1)], *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        if base in parents and base != name:
            out.extend(((base, a.name), node.lineno, qual) for a in node.names if a.name != "*")
    return out


def _parent_attributes(tree: ast.Module, name: str) -> list[tuple[tuple[str, str], int, str]]:
    """((parent package, attribute), line, scope) of each read at import time of an attribute of a
    parent package, through a name a module-level import binds to it (`import pkg` or `import
    pkg.sub`: `pkg`; `import pkg.sub as s`, `from pkg import sub as s`: `s`). Code in a function
    or lambda body is not run at import time; a class body, a decorator, a default is."""
    parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    bound: dict[str, str] = {}  # local name -> the parent package it is bound to
    for imp, qual in unguarded_imports(tree):
        if qual != "<module>":
            continue
        for a in imp.names:
            if isinstance(imp, ast.Import):
                target = a.name if a.asname else a.name.split(".")[0]
            elif not imp.level and imp.module:
                target = f"{imp.module}.{a.name}"
            else:
                continue
            if target in parents:
                bound[a.asname or target.split(".")[0]] = target
    out: list[tuple[tuple[str, str], int, str]] = []
    if not bound:
        return out
    for node in _import_time(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        chain: list[str] = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in bound:
            continue
        base, depth = bound[value.id], 0
        while depth < len(chain) and f"{base}.{chain[depth]}" in parents:
            base, depth = f"{base}.{chain[depth]}", depth + 1
        if len(chain) == depth + 1:  # `parent.X` itself, not a longer chain through it
            out.append(((base, chain[depth]), node.lineno, "<module>"))
    return out


def _import_time(tree: ast.Module) -> list[ast.AST]:
    """The nodes of `tree` that run when the module is imported (not function or lambda bodies)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)])
        elif isinstance(node, ast.Lambda):
            todo.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
        else:
            todo.extend(ast.iter_child_nodes(node))
    return out


def _bound_too_late(parent: str, taken: str, module: str, paths: Sequence[str]) -> tuple[int, str] | None:
    """(line, file) of the statement of `parent`'s __init__ that first imports `module`, when the
    __init__ binds `taken` only after it (not before, and `taken` is not a submodule); else None."""
    for root in map(Path, paths):
        init = cycles.module_file(root, parent)
        if init is None:
            continue
        if init.name != "__init__.py":
            return None
        if cycles.module_file(root, f"{parent}.{taken}") is not None:
            return None  # a submodule: `from pkg import sub` imports it
        try:
            tree = ast.parse(init.read_bytes())
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        for i, stmt in enumerate(tree.body):
            if not _reaches(root, parent, stmt, module):
                continue
            earlier = ast.Module(body=tree.body[:i], type_ignores=[])
            if _dynamic(earlier):  # only what runs before it may bind `taken` unseen: a star import from
                return None  # the module itself binds its names after the module has run
            before = Collector(earlier).module.bound
            after = Collector(tree).module.bound
            return (stmt.lineno, str(init.relative_to(root))) if taken not in before and taken in after else None
        return None
    return None


def _reaches(root: Path, parent: str, stmt: ast.stmt, module: str) -> bool:
    """Whether module-level statement `stmt` of `parent`'s __init__ imports `module`, directly or through
    the package's other modules (their import-time imports, read from their files)."""
    top = module.split(".")[0]
    text = ast.unparse(ast.Module(body=[stmt], type_ignores=[])).encode()
    todo = sorted(cycles.edges(text, parent, True))
    seen: set[str] = set()
    while todo and len(seen) < MAX_MODULES:
        m = todo.pop()
        if m == module:
            return True
        if m in seen or m.split(".")[0] != top:
            continue
        seen.add(m)
        f = cycles.module_file(root, m)
        if f is None or m == parent:
            continue
        try:
            data = f.read_bytes()
        except OSError:
            continue
        todo.extend(t for t in cycles.edges(data, m, f.name == "__init__.py") if t not in seen)
    return False


def _dynamic(tree: ast.Module) -> bool:
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return True
        if isinstance(n, ast.Name) and n.id in ("globals", "vars"):
            return True
    return False

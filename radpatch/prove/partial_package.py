"""A module taking a name from a module of its package that is still running when it runs: its own
parent package's `__init__`, or a module that `__init__` imports first which imports this one
before binding the name (`pkg/__init__.py` does `from . import a`, `pkg/a.py` does `from . import
mod` and then `X = 1`; the patched `pkg/mod.py` does `from pkg.a import X`: ImportError). First, the
parent's case: `pkg/__init__.py` does `from .mod import VALUE` and then `EXTRA = 5`; the patched
`pkg/mod.py` does `from pkg import EXTRA`. `import pkg.mod` runs `pkg/__init__.py` first, which
imports `pkg.mod` at its line 1, so `pkg.mod` runs while `pkg` has no EXTRA yet: ImportError
(partially initialized module). The direct self-import's class, one package up. Reading the
module itself as its parent's attribute (`import pkg`, then `pkg.mod` in pkg/mod.py) fails
whatever the `__init__` does: the import system binds that attribute only after the module has run.

Found with `ast` from the files on the target's path, never by importing: `import pkg.mod` runs the
parent packages' `__init__`s first, statement by statement, each import-time import followed into
the package's modules not started yet (prove.cycles' import edges, in order) until one reaches the
patched module: the modules started and not finished then (the import stack), each paused at the
module-level statement that reaches it, and the names each binds before that statement. A module
that binds names dynamically (a star import, `globals()`) before that statement is not judged; a
star import in or after it (`from .mod import *`) binds its names only after the module has run.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from radpatch.prove import cycles
from radpatch.prove.import_stack import Paused, _import_stack
from radpatch.prove.names import PARTIAL_PACKAGE, SELF_IMPORT, Problem
from radpatch.prove.names.target_stdlib import unguarded_imports


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
    if not _new_reads(old, new):
        return []  # what it takes from other modules at import time is what the original took
    stack = _import_stack(name, paths)
    had: dict[tuple[tuple[str, str], str], int] = {}
    for key, _, _, how in _taken(old, name, package, stack):
        had[key, how] = had.get((key, how), 0) + 1
    out: list[Problem] = []
    for key, line, qual, how in _taken(new, name, package, stack):
        if had.get((key, how), 0):
            had[key, how] -= 1
            continue
        parent, taken = key
        if how == PENDING:  # `pkg.sub` while pkg still runs and has not imported pkg.sub yet
            waiting = stack[parent]
            why = f"package {parent} as its attribute, which it does not have yet: {parent} is still running (it "
            why += f"imports {name} at {waiting.file}:{waiting.line}) and imports {parent}.{taken} only after it "
            out.append(Problem(line, taken, qual, PARTIAL_PACKAGE, why + "(AttributeError)"))
            continue
        itself = how == RUNNING
        if itself and f"{parent}.{taken}" == name:  # `pkg.mod` in pkg/mod.py: bound only after it has run
            why = f" (as {name}, an attribute {parent} gets only after it has run: AttributeError)"
            out.append(Problem(line, taken, qual, SELF_IMPORT, why))
            continue
        if itself:  # `pkg.a` while pkg.a is on the import stack
            running = stack[f"{parent}.{taken}"]
            why = f"package {parent} as its attribute, which it gets only after module {parent}.{taken} has run "
            why += f"(still running: it imports {name} at {running.file}:{running.line}; AttributeError)"
            out.append(Problem(line, taken, qual, PARTIAL_PACKAGE, why))
            continue
        paused = stack.get(parent)
        if paused is not None and paused.too_late(taken):
            own = paused.file.endswith("__init__.py") and name.startswith(parent + ".")
            where = f"package {parent} while its __init__" if own else f"module {parent} while it"
            why = f"{where} is still running (it imports {name} at {paused.file}:{paused.line} "
            out.append(Problem(line, taken, qual, PARTIAL_PACKAGE, why + f"and binds {taken} only after it)"))
    return out


RUNNING = "running"  # a read of a module still running through its parent's attribute
PENDING = "pending"  # a read of a submodule its package still running imports only later


def _taken(
    tree: ast.Module, name: str, package: bool, stack: Mapping[str, Paused]
) -> list[tuple[tuple[str, str], int, str, str]]:
    """_from_partial and _partial_attributes, each with whether it is a read of a module still running
    (this very one, or one on the import stack) through its parent's attribute (`import pkg`, then
    `pkg.mod` in pkg/mod.py: AttributeError at import), RUNNING, or of a submodule that a package on
    the stack imports only below the statement it is paused at, PENDING; else ""."""
    return [
        *((*found, "") for found in _from_partial(tree, name, package, stack)),
        *_partial_attributes(tree, name, package, stack),
    ]


def _partial(name: str, stack: Mapping[str, Paused]) -> set[str]:
    """The modules that may still be running when `name` runs: its parent packages and the import stack."""
    return {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)} | set(stack)


def _from_partial(
    tree: ast.Module, name: str, package: bool, stack: Mapping[str, Paused]
) -> list[tuple[tuple[str, str], int, str]]:
    """((module, name), line, scope) of each import-time `from <a parent package, or a module on the
    import stack> import name`."""
    parents = _partial(name, stack)
    out: list[tuple[tuple[str, str], int, str]] = []
    for node, qual in unguarded_imports(tree):
        if not isinstance(node, ast.ImportFrom) or qual != "<module>":
            continue
        base = _from_base(node, name, package)
        if base in parents and base != name:
            out.extend(((base, a.name), node.lineno, qual) for a in node.names if a.name != "*")
    return out


def _from_base(node: ast.ImportFrom, name: str, package: bool) -> str:
    """The module `from ... import` reads in module `name` (relative ones resolved); "" when none."""
    if not node.level:
        return node.module or ""
    own = name.split(".") if package else name.split(".")[:-1]
    if node.level - 1 > len(own):
        return ""
    return ".".join([*own[: len(own) - (node.level - 1)], *([node.module] if node.module else [])])


def _partial_attributes(
    tree: ast.Module, name: str, package: bool, stack: Mapping[str, Paused]
) -> list[tuple[tuple[str, str], int, str, str]]:
    """((parent package or module on the import stack, attribute), line, scope) of each read at
    import time of an attribute of one, through a name a module-level import binds to it (`import
    pkg` or `import pkg.sub`: `pkg`; `import pkg.sub as s`, `from pkg import sub as s`: `s`; `from .
    import sub`: `sub`). Code in a function or lambda body is not run at import time; a class body,
    a decorator, a default is."""
    parents, running = _partial(name, stack), {name, *stack}
    bound: dict[str, str] = {}  # local name -> the parent package it is bound to
    for imp, qual in unguarded_imports(tree):
        if qual != "<module>":
            continue
        for a in imp.names:
            if isinstance(imp, ast.Import):
                target = a.name if a.asname else a.name.split(".")[0]
                local = a.asname or target
            elif a.name != "*" and (base := _from_base(imp, name, package)):
                target, local = f"{base}.{a.name}", a.asname or a.name
            else:
                continue
            if target in parents:
                bound[local] = target
    out: list[tuple[tuple[str, str], int, str, str]] = []
    if not bound:
        return out
    imported = cycles.tree_edges(tree.body, name, package)  # what it imports at import time
    for node in import_time(tree):
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
        while depth < len(chain) and f"{base}.{chain[depth]}" in parents - running:
            base, depth = f"{base}.{chain[depth]}", depth + 1
        if depth < len(chain) and f"{base}.{chain[depth]}" in running:  # `pkg.a` while pkg.a still runs
            out.append(((base, chain[depth]), node.lineno, "<module>", RUNNING))
        elif depth < len(chain) and base in stack and chain[depth] in stack[base].pending:
            if f"{base}.{chain[depth]}" not in imported:  # the module does not import it itself
                out.append(((base, chain[depth]), node.lineno, "<module>", PENDING))
        elif len(chain) == depth + 1:  # `parent.X` itself, not a longer chain through it
            out.append(((base, chain[depth]), node.lineno, "<module>", ""))
    return out


def _new_reads(old: ast.Module, new: ast.Module) -> bool:
    """Does `new` have an import-time import or attribute read `old` does not (compared as ast.dump,
    as often)? Only then can it take something new from a module still running."""
    had: dict[str, int] = {}
    for n in import_time(old):
        if isinstance(n, (ast.Import, ast.ImportFrom, ast.Attribute)):
            had[ast.dump(n)] = had.get(ast.dump(n), 0) + 1
    for n in import_time(new):
        if isinstance(n, (ast.Import, ast.ImportFrom, ast.Attribute)):
            if not had.get(ast.dump(n), 0):
                return True
            had[ast.dump(n)] -= 1
    return False


def import_time(tree: ast.Module) -> list[ast.AST]:
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

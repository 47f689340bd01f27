"""Attribute reads of an imported module (`import enum` ... `enum.StrEnum`, `typing.Self`), for
the names step to ask of the target as it asks a `from enum import StrEnum`.

A read counts when it runs unguarded, as an import does for target_stdlib.unguarded_imports: not
under an `if` (a version test is decided for the target), not in a `try` that catches
AttributeError, not in a conditional expression or a boolean operation (`hasattr(m, "x") and m.x`),
and not in an annotation that is never evaluated (a function's local annotations, every annotation
under `from __future__ import annotations`). The name must be bound only by imports of one module
anywhere in the module (so `enum.X` is that module's X; `from xml import dom` names xml.dom, which
the caller reads as a module only when it is one), and the module must not assign the attribute
itself (`enum.X = ...`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .scope_bindings import FUNCS
from .version_guard import OPEN, aliases, catches, decide, flags

_ATTRIBUTE_ERRORS = frozenset({"AttributeError", "Exception", "BaseException"})
_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def attribute_reads(
    tree: ast.Module, version: tuple[int, int] | None, branches: bool = False
) -> list[tuple[str, str, int, str]]:
    """(module, attribute, line, scope) of each unguarded read of an imported module's attribute.
    `branches`: also the reads under an `if` that is not a version test nor an attribute probe
    (`if sys.platform == ...:`, `hasattr`/`getattr` are probes): such a read may run, which is enough
    to ask whether a submodule it goes through is imported (never whether the attribute exists)."""
    modules = _module_names(tree)
    if not modules:
        return []
    stored = {
        (n.value.id, n.attr)
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
    }
    lazy = any(
        isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    ) or (version is not None and version >= (3, 14))
    out: list[tuple[str, str, int, str]] = []
    for expr, qual in _unguarded_expressions(tree, version, lazy, branches):
        for n in _reads(expr):
            if n.value.id in modules and (n.value.id, n.attr) not in stored:  # type: ignore[attr-defined]
                out.append((modules[n.value.id], n.attr, n.lineno, qual))  # type: ignore[attr-defined]
    return out


def _module_names(tree: ast.Module) -> dict[str, str]:
    """Name -> module, for each name the module binds only by importing one module."""
    imported: dict[str, set[str]] = {}
    other: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                name, module = (a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0])
                imported.setdefault(name, set()).add(module)
        elif isinstance(n, ast.ImportFrom) and not n.level and n.module:  # `from xml import dom`: maybe a module
            for a in n.names:
                imported.setdefault(a.asname or a.name, set()).add(f"{n.module}.{a.name}")
        elif isinstance(n, ast.ImportFrom):
            other.update(a.asname or a.name for a in n.names)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            other.add(n.id)
        elif isinstance(n, (*FUNCS, ast.ClassDef)):
            other.add(n.name)
        elif isinstance(n, ast.arg):
            other.add(n.arg)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            other.update(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            other.add(n.name)
        elif type(n).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):  # 3.9 has no match statement
            other.update(v for v in (getattr(n, "name", None), getattr(n, "rest", None)) if isinstance(v, str))
    return {k: next(iter(v)) for k, v in imported.items() if len(v) == 1 and k not in other}


def _reads(expr: ast.AST) -> Iterator[ast.Attribute]:
    """`name.attr` loads in `expr`, outside conditional expressions and boolean operations."""
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.IfExp, ast.BoolOp)):
            continue
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name):
            yield n
        stack.extend(ast.iter_child_nodes(n))


def _unguarded_expressions(
    tree: ast.Module, version: tuple[int, int] | None, lazy: bool, branches: bool = False
) -> Iterator[tuple[ast.AST, str]]:
    """(expression, scope) of the expressions of each statement that runs unguarded."""
    stack: list[tuple[ast.AST, str, bool]] = [(s, "<module>", False) for s in reversed(tree.body)]
    renamed, flagged = aliases(tree), flags(tree)
    while stack:
        node, qual, local = stack.pop()
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            handlers = getattr(node, "handlers", [])
            parts = [getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            if not any(catches(h, _ATTRIBUTE_ERRORS) for h in handlers):
                parts = [getattr(node, "body", []), *(h.body for h in handlers), *parts]
            for part in reversed(parts):
                stack.extend((x, qual, local) for x in reversed(part))
            continue
        if isinstance(node, ast.If):
            taken = decide(node.test, version, renamed, flagged) if version is not None else None
            if taken == OPEN:
                stack.extend((x, qual, local) for x in reversed([*node.body, *node.orelse]))
            elif taken is not None:
                stack.extend((x, qual, local) for x in reversed(node.body if taken else node.orelse))
            elif branches and not _probes(node.test):
                stack.extend((x, qual, local) for x in reversed([*node.body, *node.orelse]))
            continue
        if isinstance(node, FUNCS):
            yield from ((e, qual) for e in node.decorator_list)
            yield from ((e, qual) for e in [*node.args.defaults, *node.args.kw_defaults] if e is not None)
            if not lazy:
                args = node.args
                every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                yield from ((a.annotation, qual) for a in every if a is not None and a.annotation is not None)
                if node.returns is not None:
                    yield node.returns, qual
            inner = node.name if qual == "<module>" else f"{qual}.{node.name}"
            stack.extend((x, inner, True) for x in reversed(node.body))
            continue
        if isinstance(node, ast.ClassDef):
            yield from ((e, qual) for e in [*node.decorator_list, *node.bases, *node.keywords])
            inner = node.name if qual == "<module>" else f"{qual}.{node.name}"
            stack.extend((x, inner, local) for x in reversed(node.body))
            continue
        for field, value in ast.iter_fields(node):
            if field in _BODIES or (field == "annotation" and (lazy or local)):
                continue
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, ast.AST):
                    yield v, qual
        for field in ("body", "orelse", "finalbody"):
            stack.extend((x, qual, local) for x in reversed(getattr(node, field, None) or []))
        for case in getattr(node, "cases", None) or []:
            if case.guard is not None:
                yield case.guard, qual
            stack.extend((x, qual, local) for x in reversed(case.body))


def _probes(test: ast.expr) -> bool:
    """Whether an `if` test asks what a module has (`hasattr(m, "x")`, `getattr`, `"x" in dir(m)`)."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("hasattr", "getattr", "dir", "vars")
        for n in ast.walk(test)
    )

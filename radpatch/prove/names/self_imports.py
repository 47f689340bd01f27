"""Self-imports: a module importing from itself while it is being imported (a circular import).

The module's dotted name comes from the caller (`module_of`); while the module runs it sits half
done in sys.modules, so `from itself import x` fails unless x is bound already (ImportError), and
an import of the whole of itself is a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Container

from .problem import SELF_IMPORT, Problem


def module_of(module: str | None, filename: str) -> tuple[str, bool] | None:
    """(dotted name, is a package) of the module `filename` holds, or None when unknown."""
    if not module or module == "<patched>":
        return None
    return module, filename.replace("\\", "/").rsplit("/", 1)[-1] == "__init__.py"


def self_import(module: tuple[str, bool], node: ast.Import | ast.ImportFrom) -> list[tuple[str, str, bool]]:
    """What `node` imports of the module itself: (name, how, the module as a whole) for each; empty
    when nothing. `import pkg.mod` in pkg/mod.py, `from pkg import mod`, `from . import mod`, or a
    name from it: `from pkg.mod import x`, `from .mod import x`."""
    name, package = module
    if isinstance(node, ast.Import):
        return [(a.asname or a.name.split(".")[0], f" (`import {a.name}`)", True) for a in node.names if a.name == name]
    if node.level:
        parts = name.split(".") if package else name.split(".")[:-1]
        if node.level - 1 > len(parts):
            return []
        base = parts[: len(parts) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    how = "." * node.level + (node.module or "")
    if source == name:  # a package's own names may be its submodules, which the import loads: not judged
        return [] if package else [(a.name, f" (`from {how} import {a.name}`)", a.name == "*") for a in node.names]
    return [(a.name, f" (`from {how} import {a.name}`)", True) for a in node.names if f"{source}.{a.name}" == name]


def self_import_problems(
    module: tuple[str, bool], s: ast.Import | ast.ImportFrom, bound: Container[str], scope: str
) -> list[Problem]:
    """What import `s` (run while the module is imported, in `scope`) takes of the module itself that
    is not there yet: a name not `bound` by the module so far, or the whole of it."""
    return [
        Problem(s.lineno, name, scope, SELF_IMPORT, how)
        for name, how, whole in self_import(module, s)
        if whole or name not in bound
    ]

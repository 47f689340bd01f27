"""The values in a typing-only block (`if TYPE_CHECKING:`) that only a run would read, and where
the module binds a name at run time: what the reachability proof needs to refuse a patch that
changes `X: int = 600` there (type checkers read the annotation; the running module never sees
the value) and to name the binding that runs instead (or the module's `__getattr__`). Standard
library only: served to target interpreters as old as 3.9, like the rest of the package."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .shadowing import DEFS


def binds_of(x: ast.stmt) -> list[str]:
    """The names a statement of a typing-only block binds: a def's or class's, an assignment's."""
    if isinstance(x, DEFS):
        return [x.name]
    targets = x.targets if isinstance(x, ast.Assign) else [x.target] if isinstance(x, ast.AnnAssign) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def runtime_value(x: ast.stmt) -> str:
    """The dump of a typing-only assignment's value that only a run would read: an annotated
    variable's (`X: int = 600`; not a `TypeAlias`), or a plain assignment's literal number, bool or
    bytes (`X = 600`; `Alias = int` and `Mode = Literal[1]` are for type checkers). "" otherwise."""
    if isinstance(x, ast.AnnAssign) and x.value is not None:
        ann = x.annotation
        name = ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name) else ""
        return "" if name == "TypeAlias" else ast.dump(x.value)
    if isinstance(x, ast.Assign) and _data(x.value):
        return ast.dump(x.value)
    return ""


def _data(value: ast.expr) -> bool:
    """Does the value hold a literal number or bytes outside any subscript (`Literal[1, 2]` is a
    type)?"""
    stack = [value]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, complex, bytes)):  # bool is an int
            return True
        if not isinstance(n, ast.Subscript):
            stack.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))
    return False


def module_bindings(tree: ast.Module, truth: Callable[[ast.expr], bool | None]) -> dict[str, int]:
    """Where the module's own code binds each name at run time (the first line; defs, classes,
    assignments, imports, in blocks that can run; not inside a def or class)."""
    out: dict[str, int] = {}
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        s = stack.pop()
        if isinstance(s, (ast.If, ast.While)):
            known = truth(s.test)
            kids = s.body if known is None or known else []
            kids = kids + (s.orelse if known is None or not known else [])
            stack.extend(reversed(kids))
            continue
        names: list[str] = []
        if isinstance(s, DEFS):
            names = [s.name]
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if not isinstance(s, ast.AnnAssign) or s.value is not None:
                names = binds_of(s) if not isinstance(s, ast.AugAssign) else []
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).partition(".")[0] for a in s.names if a.name != "*"]
        for n in names:
            out.setdefault(n, s.lineno)
        for f in ("body", "orelse", "finalbody"):
            if not isinstance(s, DEFS):
                stack.extend(reversed([x for x in getattr(s, f, None) or () if isinstance(x, ast.stmt)]))
        for h in getattr(s, "handlers", ()):
            stack.extend(reversed(h.body))
    return out

"""`if TYPE_CHECKING:` bodies never run: what they bind serves annotations only. A use of such a
name where it runs is a NameError (reported per use); a use in an annotation that is never
evaluated (`from __future__ import annotations`, Python 3.14+) is fine.
"""

from __future__ import annotations

import ast

from .scopes import FUNCS, import_name


def type_checking(test: ast.expr) -> bool | None:
    """True for `if TYPE_CHECKING:`, False for `if not TYPE_CHECKING:`, None otherwise."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    if (isinstance(inner, ast.Name) and inner.id == "TYPE_CHECKING") or (
        isinstance(inner, ast.Attribute) and inner.attr == "TYPE_CHECKING"
    ):
        return not negated
    return None


def typing_only(stmts: list[ast.stmt], typing: dict[str, int]) -> None:
    """Bindings in a block that never runs (`if TYPE_CHECKING:`): known, never bound. Adds each
    name's first line to `typing`."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                if a.name != "*":
                    typing.setdefault(import_name(a), s.lineno)
        elif isinstance(s, (*FUNCS, ast.ClassDef)):
            typing.setdefault(s.name, s.lineno)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            for t in s.targets if isinstance(s, ast.Assign) else [s.target]:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        typing.setdefault(n.id, s.lineno)
        else:
            for f in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(s, f, ()))

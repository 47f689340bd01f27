"""Shadowing: a definition the patch adds at module level must not share its name with anything the
target binds there (import, assignment, def, class): one of the two would silently replace the other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import Placement

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Binding:
    name: str
    line: int
    kind: str  # import | assignment | def | class | loop variable | with target | except target


def module_bindings(tree: ast.Module) -> Iterator[Binding]:
    """What the module binds at its top level (including inside module-level if/try/with/for)."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        s = stack.pop()
        yield from binds(s)
        if not isinstance(s, DEFS):
            for f in ("finalbody", "orelse", "handlers", "body"):
                stack.extend(reversed([x for x in getattr(s, f, ()) if isinstance(x, ast.stmt)]))
            for h in getattr(s, "handlers", ()):
                stack.extend(reversed(h.body))
            for case in getattr(s, "cases", ()):
                stack.extend(reversed(case.body))


def binds(s: ast.stmt) -> Iterator[Binding]:
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield Binding(s.name, s.lineno, "def")
    elif isinstance(s, ast.ClassDef):
        yield Binding(s.name, s.lineno, "class")
    elif isinstance(s, (ast.Import, ast.ImportFrom)):
        yield from (Binding(a.asname or a.name.split(".")[0], s.lineno, "import") for a in s.names if a.name != "*")
    elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        yield from (Binding(n.id, s.lineno, "assignment") for t in targets for n in _stored(t))
    elif isinstance(s, (ast.For, ast.AsyncFor)):
        yield from (Binding(n.id, s.lineno, "loop variable") for n in _stored(s.target))
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        yield from (
            Binding(n.id, s.lineno, "with target") for i in s.items if i.optional_vars for n in _stored(i.optional_vars)
        )
    elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":  # `except E as f:` binds f, then deletes it
        yield from (Binding(h.name, h.lineno, "except target") for h in getattr(s, "handlers", ()) if h.name)
    yield from (Binding(n.target.id, s.lineno, "assignment") for n in walrus(s) if isinstance(n.target, ast.Name))


def walrus(s: ast.stmt) -> Iterator[ast.NamedExpr]:
    """The assignment expressions `s` itself runs in its scope: in its own expressions (an `if` or
    `while` test, a comprehension, a decorator), not in its bodies nor in a lambda."""
    stack: list[ast.AST] = [s]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.NamedExpr):
            yield n
        if isinstance(n, ast.Lambda) or (n is not s and isinstance(n, ast.stmt)):
            continue
        stack.extend(x for x in ast.iter_child_nodes(n) if not isinstance(x, ast.stmt))


def _stored(target: ast.expr) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from _stored(e)
    elif isinstance(target, ast.Starred):
        yield from _stored(target.value)


def shadowed(before: Placement, after: Placement) -> list[str]:
    """A def/class the patch adds at module level under a name the original already binds."""
    old: dict[str, list[Binding]] = {}
    for b in before.bindings:
        old.setdefault(b.name, []).append(b)
    count_old: dict[str, int] = {}
    for bs in old.values():
        for b in bs:
            if b.kind in ("def", "class"):
                count_old[b.name] = count_old.get(b.name, 0) + 1
    now: dict[str, list[Binding]] = {}
    for b in after.bindings:
        if b.kind in ("def", "class") and b.name in old:
            now.setdefault(b.name, []).append(b)
    out = []
    for name, defs in now.items():  # which of them is the added one the trees cannot say: all are named
        if len(defs) > count_old.get(name, 0):
            first = old[name][0]
            lines = " and ".join(str(b.line) for b in defs) if len(defs) > 1 else str(defs[0].line)
            out.append(
                f"the {defs[-1].kind} `{name}` it adds would share its name with the {first.kind} `{name}` the "
                f"module has at line {first.line} (the patched module binds it at line{'s' if len(defs) > 1 else ''} "
                f"{lines}): one would replace the other"
            )
    return out

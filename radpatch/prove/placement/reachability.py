"""Reachability: nothing the patch adds or changes may follow, in its block, a statement control
never gets past (return, raise, continue, break, an if/else or try whose every path leaves,
`while True:` without a break, a `with` whose body returns).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .shadowing import DEFS

if TYPE_CHECKING:
    from . import Placement


@dataclass(frozen=True)
class Unreachable:
    """A statement after one that never falls through (return, raise, continue, break, or an
    if/else or try whose every path does): it never runs."""

    scope: str
    dump: str
    line: int
    after: int  # the line of the statement control cannot get past


def unreachable(tree: ast.Module) -> Iterator[Unreachable]:
    stack: list[tuple[str, ast.AST]] = [("<module>", tree)]
    while stack:
        qual, node = stack.pop()
        parts = [getattr(node, f, None) for f in ("body", "orelse", "finalbody")]
        for stmts in parts:
            if not (isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt)):
                continue
            for i, s in enumerate(stmts[:-1]):
                if not _falls(s):
                    yield from (Unreachable(qual, ast.dump(x), x.lineno, s.lineno) for x in stmts[i + 1 :])
                    break
        for child in ast.iter_child_nodes(node):
            if isinstance(child, DEFS):
                stack.append((child.name if qual == "<module>" else f"{qual}.{child.name}", child))
            elif isinstance(child, (ast.stmt, ast.ExceptHandler)) or type(child).__name__ == "match_case":
                stack.append((qual, child))


def _falls(s: ast.stmt) -> bool:
    """Can control get past `s` to the next statement of its block?"""
    if isinstance(s, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return False
    if isinstance(s, ast.If):
        return not s.orelse or _block_falls(s.body) or _block_falls(s.orelse)
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        t: ast.Try = s  # type: ignore[assignment]
        if t.finalbody and not _block_falls(t.finalbody):
            return False
        return (_block_falls(t.body) and _block_falls(t.orelse)) or any(_block_falls(h.body) for h in t.handlers)
    if isinstance(s, (ast.With, ast.AsyncWith)):  # a context manager may swallow an exception, not a return
        return not (s.body and isinstance(s.body[-1], (ast.Return, ast.Continue, ast.Break)))
    if isinstance(s, ast.While):  # `while True:` without a break of its own never ends
        forever = isinstance(s.test, ast.Constant) and bool(s.test.value)
        return not forever or _breaks(s.body)
    return True


def _block_falls(stmts: list[ast.stmt]) -> bool:
    return all(_falls(s) for s in stmts)


def _breaks(stmts: list[ast.stmt]) -> bool:
    """Does a `break` of this loop (not of a nested one) occur in its body?"""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While, *DEFS)):
            continue
        for f in ("body", "orelse", "finalbody"):
            stack.extend(x for x in getattr(s, f, None) or () if isinstance(x, ast.stmt))
        stack.extend(x for h in getattr(s, "handlers", ()) for x in h.body)
        stack.extend(x for c in getattr(s, "cases", ()) for x in c.body)
    return False


def unreachable_changes(before: Placement, after: Placement) -> list[str]:
    """Code the patch adds or changes where it can never run: after a return/raise/continue/break."""
    old: dict[tuple[str, str], int] = {}
    for u in before.unreachable:
        old[u.scope, u.dump] = old.get((u.scope, u.dump), 0) + 1
    out = []
    for u in after.unreachable:
        if old.get((u.scope, u.dump), 0):
            old[u.scope, u.dump] -= 1
            continue
        block = "at module level" if u.scope == "<module>" else f"in {u.scope}"
        out.append(
            f"its code at line {u.line} ({block}) is unreachable: line {u.after} returns, raises, breaks or "
            "continues before it, so it never runs"
        )
    return out

"""Fallbacks of a guarded import: a `try:` whose body only imports (`try: from fast
import f`) and a handler that catches the import's failure (`except ImportError: def f(...)`, `x =
None`). The handler runs only where the import fails, so code a patch changes there, with the try's
body left alone, runs only on an install that lacks what the body imports. Whether the body's imports
succeed on the target is asked of the target interpreter (prove/guarded_imports), never here.

Anywhere in the module: at module level, in an `if`/`else`, loop or `with` block, and in a def or
class body (`def get(): try: import fast`). Standard library only and relative imports, as the rest
of the placement package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

_IMPORTS = (ast.Import, ast.ImportFrom)


@dataclass(frozen=True)
class Fallback:
    """One handler of a guarded import, as the proof compares it between the original and the patch."""

    line: int  # the try's
    handler_line: int
    caught: tuple[str, ...]  # the exception names the handler catches, by their last dotted part; () = bare
    imports: tuple[str, ...]  # the try body's statements (imports, plain bindings of them), as written
    levels: tuple[tuple[int, str | None], ...]  # each from-import's (level, module); (0, None) for the others
    body: str  # ast.dump of the try's body
    handler: str  # ast.dump of the handler's body
    binds: tuple[str, ...]  # the names the handler binds itself (its defs, classes, assignments)


def fallbacks(tree: ast.Module) -> tuple[Fallback, ...]:
    return tuple(_walk(tree.body))


def _walk(stmts: list[ast.stmt]) -> Iterator[Fallback]:
    for s in stmts:
        if isinstance(s, (ast.If, ast.For, ast.AsyncFor, ast.While)):
            yield from _walk(s.body)
            yield from _walk(s.orelse)
        elif isinstance(s, (ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _walk(s.body)  # a def's guarded import (`def get(): try: import fast`) too
        elif type(s).__name__ == "Match":  # a case's (3.10+; served to older targets by name, not ast.Match)
            for case in s.cases:  # type: ignore[attr-defined]
                yield from _walk(case.body)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            yield from _guarded(s)  # type: ignore[arg-type]
            for part in (s.body, s.orelse, s.finalbody):  # type: ignore[attr-defined]
                yield from _walk(part)
            for h in s.handlers:  # type: ignore[attr-defined]
                yield from _walk(h.body)


def _guarded(t: ast.Try) -> Iterator[Fallback]:
    body = [s for s in t.body if not _inert(s)]
    if not body or not isinstance(body[0], _IMPORTS) or not all(_guarded_statement(s) for s in body):
        return  # other code in the body may raise what the handler catches for other reasons
    imports = tuple(ast.unparse(s) for s in body)
    levels = tuple((s.level, s.module) if isinstance(s, ast.ImportFrom) else (0, None) for s in body)
    for h in t.handlers:
        yield Fallback(
            t.lineno,
            h.lineno,
            _caught(h),
            imports,
            levels,
            ast.dump(ast.Module(body=t.body, type_ignores=[])),
            ast.dump(ast.Module(body=h.body, type_ignores=[])),
            tuple(_binds(h.body)),
        )


def _guarded_statement(s: ast.stmt) -> bool:
    """An import, or a plain binding of what one imports (`f = _fast.f`): the target runs these to tell."""
    if isinstance(s, _IMPORTS):
        return True
    if isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets):
        return all(isinstance(n, (ast.Name, ast.Attribute, ast.Load, ast.Constant)) for n in ast.walk(s.value))
    return False


def _inert(s: ast.stmt) -> bool:
    return isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))


def _caught(h: ast.ExceptHandler) -> tuple[str, ...]:
    if h.type is None:
        return ()
    names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return tuple(n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "?" for n in names)


def _binds(stmts: list[ast.stmt]) -> Iterator[str]:
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield s.name
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            yield from (t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(s, _IMPORTS):
            yield from (a.asname or a.name.split(".")[0] for a in s.names if a.name != "*")


def changed_fallbacks(before: tuple[Fallback, ...], after: tuple[Fallback, ...]) -> list[Fallback]:
    """The handlers of `after` the patch changed while leaving their try's imports as they were: a
    handler whose try body `before` has, but not with this handler's code. A new guarded import (its
    try body not in `before`) is the patch's own choice of both, and not counted."""
    had: dict[tuple[str, str], int] = {}
    bodies = {f.body for f in before}
    for f in before:
        had[f.body, f.handler] = had.get((f.body, f.handler), 0) + 1
    out = []
    for f in after:
        if had.get((f.body, f.handler), 0):
            had[f.body, f.handler] -= 1
        elif f.body in bodies:
            out.append(f)
    return out

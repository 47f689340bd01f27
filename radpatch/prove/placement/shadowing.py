"""Shadowing: a definition the patch adds at module level must not share its name with anything the
target binds there (import, assignment, def, class) where both may run: one of the two would
silently replace the other. Bindings in branches that never both run (branches.exclusive: an
if/elif/else, a try's body and its fallback handlers, match cases, a stable version guard and its
negation) do not replace each other, so a definition added in a new exclusive branch is no clash.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from .branches import Branch, exclusive

if TYPE_CHECKING:
    from . import Placement

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Binding:
    name: str
    line: int
    kind: str  # import | assignment | def | class | loop variable | with target | except target
    branch: Branch = field(default=Branch(), compare=False)  # the module-level blocks it sits in


def module_bindings(tree: ast.Module) -> Iterator[Binding]:
    """What the module binds at its top level (including inside module-level if/try/with/for/match),
    in source order, each with its branch."""
    yield from _block(tree.body, Branch())


def _block(body: list[ast.stmt], branch: Branch) -> Iterator[Binding]:
    for s in body:
        yield from (replace(b, branch=branch) for b in binds(s) if b.kind != "except target")
        if isinstance(s, DEFS):
            continue
        for block, stmts in _blocks(s):
            yield from _block(stmts, branch.into(s, block))
        for k, h in enumerate(getattr(s, "handlers", ())):
            if h.name:  # `except E as f:` binds f in its handler, then deletes it
                yield Binding(h.name, h.lineno, "except target", branch.into(s, f"handler:{k}"))


def _blocks(s: ast.stmt) -> Iterator[tuple[str, list[ast.stmt]]]:
    """The statement lists of compound statement `s`, each with its block's name (branches.Branch.into)."""
    if isinstance(s, ast.If):
        yield from (("body", s.body), ("orelse", s.orelse))
    elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
        yield from (("loop", s.body), ("loop-else", s.orelse))
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        yield "with", s.body
    elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":  # try/except* (3.11): a try's fields
        t = cast(ast.Try, s)
        yield "try", t.body
        yield from ((f"handler:{k}", h.body) for k, h in enumerate(t.handlers))
        yield from (("try-else", t.orelse), ("finally", t.finalbody))
    elif type(s).__name__ == "Match":  # 3.10
        yield from ((f"case:{k}", c.body) for k, c in enumerate(cast(Any, s).cases))


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
    """A def/class the patch adds at module level under a name the original already binds, where
    both may run: definitions in branches that never both run (if/else, a try and its fallback, a
    version guard and its negation: branches.exclusive) do not replace each other."""
    old = _by_name(before.bindings)
    now = {name: bs for name, bs in _by_name(after.bindings).items() if name in old}
    out = []
    for name, bs in now.items():  # which of them is the added one the trees cannot say: all are named
        if _defs(bs) <= _defs(old[name]):
            continue
        clashes = _clashes(bs, _import_only(after.bindings))
        if len(clashes) <= len(_clashes(old[name], _import_only(before.bindings))):
            continue
        defs = sorted({b for pair in clashes for b in pair if b.kind in ("def", "class")}, key=lambda b: b.line)
        first = old[name][0]
        lines = " and ".join(str(b.line) for b in defs) if len(defs) > 1 else str(defs[0].line)
        out.append(
            f"the {defs[-1].kind} `{name}` it adds would share its name with the {first.kind} `{name}` the "
            f"module has at line {first.line} (the patched module binds it at line{'s' if len(defs) > 1 else ''} "
            f"{lines}): one would replace the other"
        )
    return out


def _by_name(bindings: tuple[Binding, ...]) -> dict[str, list[Binding]]:
    out: dict[str, list[Binding]] = {}
    for b in bindings:
        out.setdefault(b.name, []).append(b)
    return out


def _defs(bs: list[Binding]) -> int:
    return sum(b.kind in ("def", "class") for b in bs)


def _clashes(bs: list[Binding], import_only: frozenset[str]) -> list[tuple[Binding, Binding]]:
    """The pairs of bindings of one name, one of them a def or class, that may both run."""
    return [
        (a, b)
        for i, a in enumerate(bs)
        for b in bs[i + 1 :]
        if "def" in (a.kind, b.kind) or "class" in (a.kind, b.kind)
        if not exclusive(a.branch, b.branch, import_only)
    ]


def _import_only(bindings: tuple[Binding, ...]) -> frozenset[str]:
    """The names the module binds by import and by nothing else (a test reading only those is stable)."""
    kinds: dict[str, set[str]] = {}
    for b in bindings:
        kinds.setdefault(b.name, set()).add(b.kind)
    return frozenset(name for name, k in kinds.items() if k == {"import"})

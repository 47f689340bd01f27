"""Statements as the importer's rewrite chooser compares them (importing.rewrites): the scope a
change is in, what makes two statements the same one changed, which names a statement binds, where
add_import puts a line, a compound statement's header and blocks, and the runs of statements a
`find` or `with` is written from (never splitting a line two statements share)."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import TypeVar

from radpatch.errors import RadpatchError
from radpatch.importing.scope_walk import blocks, one_line_suite
from radpatch.importing.statements import AFTER, DEFS, Sources, key, text_of


class NoUniqueRun(RadpatchError):
    """No run of statements around the change matches once in the patched code, so apply's
    proof could not find it to undo: the enclosing statement is replaced instead. Internal, under
    the one root, never shown."""

    def __init__(self) -> None:
        super().__init__("no run of statements around the change matches once")


@dataclass
class DiffScope:
    qualname: str  # "<module>", "f", "Class.method"
    body: list[ast.stmt]  # the scope's body in the current (simulated) tree
    kind: str  # "module", "class", "function"
    elif_: bool = False  # the statement at hand is an `elif` (libcst holds it inside its if, not in a block)

    def child(self, name: str) -> str:
        return name if self.qualname == "<module>" else f"{self.qualname}.{name}"


_N = TypeVar("_N", bound=ast.AST)


def mark_after(node: _N) -> _N:
    for n in ast.walk(node):
        setattr(n, AFTER, True)
    return node


def ident(stmt: ast.stmt) -> tuple[str, ...]:
    """What makes two statements 'the same statement, changed': a definition's name, a compound
    statement's kind, an assignment's target, a call's callee."""
    if isinstance(stmt, DEFS):
        return ("def", stmt.name)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return (type(stmt).__name__, *(key(t) for t in targets))
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return ("call", key(stmt.value.func))
    return (type(stmt).__name__,)


def line_rest(src: Sources, stmt: ast.stmt) -> str | None:
    """What follows a simple statement on its last line (a comment), None for a compound one: the
    rewrites keep that text of a replaced run's last line, so it must be the same on both sides."""
    if any(isinstance(getattr(stmt, f, None), list) for f in BLOCK_FIELDS):
        return None
    line = src.lines_of(stmt)[(stmt.end_lineno or stmt.lineno) - 1].encode()
    return line[stmt.end_col_offset or 0 :].decode("utf-8", "surrogateescape").strip()


def multiline_string(stmt: ast.stmt) -> bool:
    """Whether a string literal (or f-string) of the statement spans lines."""
    return any(
        isinstance(n, (ast.Constant, ast.JoinedStr))
        and (isinstance(n, ast.JoinedStr) or isinstance(n.value, (str, bytes)))
        and (n.end_lineno or n.lineno) > n.lineno
        for n in ast.walk(stmt)
    )


def after_imports(body: list[ast.stmt]) -> int:
    """Where add_import puts a line: after the last import before the first def/class (else after
    the docstring), as rewrite.ops.common.import_lines.after_imports counts top-level statements."""
    at = 0
    for i, s in enumerate(body):
        if isinstance(s, DEFS) or binds(s) and not isinstance(s, (ast.Import, ast.ImportFrom)):
            break
        if isinstance(s, (ast.Import, ast.ImportFrom)) or (
            i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
        ):
            at = i + 1
    return at


def _aliases(s: ast.stmt) -> set[tuple[str | None, int, str, str | None]]:
    if isinstance(s, ast.Import):
        return {(None, 0, a.name, a.asname) for a in s.names}
    if isinstance(s, ast.ImportFrom):
        return {(s.module, s.level, a.name, a.asname) for a in s.names}
    return set()


def already_imports(body: list[ast.stmt], s: ast.stmt) -> bool:
    have: set[tuple[str | None, int, str, str | None]] = set()
    for t in body:
        have |= _aliases(t)
    names = {n for t in body if not isinstance(t, (ast.Import, ast.ImportFrom)) for n in binds(t)}
    return _aliases(s) <= have or bool(names & binds(s))


def binds(s: ast.stmt) -> set[str]:
    if isinstance(s, DEFS):
        return {s.name}
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in s.names}
    if isinstance(s, ast.Assign):
        return {t.id for t in s.targets if isinstance(t, ast.Name)}
    if isinstance(s, (ast.AnnAssign, ast.AugAssign)) and isinstance(s.target, ast.Name):
        return {s.target.id}
    return set()


def is_constant(s: ast.stmt) -> bool:
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)


def atomic(src: Sources, body: list[ast.stmt], lo: int, hi: int) -> tuple[int, int]:
    """Widen [lo, hi) so no statement outside it shares a line with one inside (`a = 1; b = 2`)."""
    lo, hi = max(lo, 0), min(hi, len(body))
    while lo > 0 and lo < len(body) and body[lo - 1].end_lineno == _first_line(body[lo]) and not _mixed(body, lo):
        lo -= 1
    while 0 < hi < len(body) and body[hi - 1].end_lineno == _first_line(body[hi]) and not _mixed(body, hi):
        hi += 1
    return lo, hi


def _mixed(body: list[ast.stmt], i: int) -> bool:
    """Statements from the two files never share a line of text."""
    return bool(getattr(body[i - 1], AFTER, False)) != bool(getattr(body[i], AFTER, False))


def _first_line(s: ast.stmt) -> int:
    decorators = getattr(s, "decorator_list", [])
    return min([s.lineno, *(int(d.lineno) for d in decorators)])


def join_runs(src: Sources, head: list[ast.stmt], new: list[ast.stmt], tail: list[ast.stmt], flat: set[int]) -> str:
    parts = [
        ast.unparse(run[0]) + "\n" if id(run[0]) in flat else text_of(src, run)
        for run in _runs([*head, *new, *tail], flat)
    ]
    return "".join(parts)


def _runs(stmts: list[ast.stmt], alone: set[int]) -> list[list[ast.stmt]]:
    """Consecutive statements from the same file (their text comes from one place); those in
    `alone` each on their own."""
    out: list[list[ast.stmt]] = []
    for s in stmts:
        if (
            out
            and bool(getattr(out[-1][-1], AFTER, False)) == bool(getattr(s, AFTER, False))
            and s.lineno > (out[-1][-1].end_lineno or 0)
            and id(s) not in alone
            and id(out[-1][-1]) not in alone
        ):
            out[-1].append(s)
        else:
            out.append([s])
    return out


BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def header(s: ast.stmt) -> ast.stmt:
    h = copy.copy(s)
    for f in BLOCK_FIELDS:
        if hasattr(h, f):
            setattr(h, f, [])
    return h


def copy_header(b: ast.stmt, a: ast.stmt) -> None:
    for f in b._fields:
        if f not in BLOCK_FIELDS:
            value = getattr(a, f)
            setattr(b, f, mark_after(value) if isinstance(value, ast.AST) else value)


def blocks_of_same_shape(b: ast.stmt, a: ast.stmt) -> bool:
    if (
        type(b) is not type(a)
        or isinstance(b, DEFS)
        or not isinstance(b, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match))
    ):
        return False
    if one_line_suite(b) or one_line_suite(a):
        return False
    if isinstance(b, ast.Match) and isinstance(a, ast.Match):
        # as many cases, each on lines of its own: their statements change, and a case's pattern or
        # guard only where one expression of it does (the chooser's `replace`: case_heads)
        if len(b.cases) != len(a.cases) or any(c.body[0].lineno == c.pattern.lineno for m in (b, a) for c in m.cases):
            return False
    lb, la = blocks(b), blocks(a)
    if [len(x) > 0 for x in lb] != [len(x) > 0 for x in la]:
        return False
    return not (
        isinstance(b, ast.Try)
        and isinstance(a, ast.Try)
        and [key(_handler_head(h)) for h in b.handlers] != [key(_handler_head(h)) for h in a.handlers]
    )


def case_head(c: ast.match_case) -> ast.match_case:
    """A case without its statements: its pattern and guard."""
    h = copy.copy(c)
    h.body = []
    return h


def _handler_head(h: ast.excepthandler) -> ast.AST:
    c = copy.copy(h)
    c.body = []  # type: ignore[attr-defined]
    return c


def elif_flags(src: Sources, b: ast.stmt, a: ast.stmt) -> list[bool]:
    """Which of the blocks are an `elif` on both sides (one If standing for the rest of the chain)."""
    flags = [False] * len(blocks(b))
    if isinstance(b, ast.If) and isinstance(a, ast.If) and len(flags) > 1:
        flags[1] = _is_elif(src, b) and _is_elif(src, a)
        if _is_elif(src, b) != _is_elif(src, a):
            flags[1] = False
    return flags


def chain_reshaped(src: Sources, b: ast.stmt, a: ast.stmt) -> bool:
    """An `elif` added where the chain had an `else:` (or taken out, leaving its else): the block
    after the If is an elif on one side only. Entering it would say the new elif as an `if` wrapping
    the else's statements, a `replace` whose `find` is still in the patched code (not idempotent on
    GNU patch's result, and printed from the tree): the whole statement is replaced instead."""
    return isinstance(b, ast.If) and isinstance(a, ast.If) and _is_elif(src, b) != _is_elif(src, a)


def _is_elif(src: Sources, s: ast.If) -> bool:
    if len(s.orelse) != 1 or not isinstance(s.orelse[0], ast.If):
        return False
    line = src.lines_of(s.orelse[0])[s.orelse[0].lineno - 1].lstrip()
    return line.startswith("elif")

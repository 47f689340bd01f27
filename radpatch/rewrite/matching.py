"""Structural matching: find the statements and expressions in a scope that are AST-equal to a
pattern, and the failures a match gives (`MatchFailure`: none, several, a clash, not undoable).

Equality is decided on Python's `ast` (formatting and comments play no part: rewrite.patterns);
positions and edits are done on the libcst tree so every byte outside the edit is preserved
(`replace_on_path`, `lines_of`). The scope a rewrite names is found by rewrite.scopes.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import re
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from radpatch.errors import RefusedError
from radpatch.registry.code import expression_text
from radpatch.rewrite.patterns import code_key, expr_key, parse_statements, pretty, stmt_key
from radpatch.rewrite.tree import (
    Path_,
    block_body,
    expression_holders,
    nodes_of,
    statement_slots,
    walk,
)


class MatchFailure(RefusedError):
    """A pattern matched zero or several times, or a scope does not exist. `hint` says what to do.
    Under the one error root: rewrite.runner words it with the patch, rewrite and file it concerns."""

    hint = "the installed code differs from what the rewrite expects: check the version range and the rewrite"

    def __init__(self, message: str, hint: str = "", *, scope_gone: bool = False) -> None:
        super().__init__(message, hint or type(self).hint)
        self.scope_gone = scope_gone  # the rewrite's scope (a definition it needs) is not in the module


class NotFound(MatchFailure):
    hint = (
        "this version's code does not contain it: check the version range, or declare a `versions:` variant "
        "of the rewrite for this version"
    )


class NearMiss(NotFound):
    hint = (
        "`find` is close to the code shown but not equal: "
        "fix `find` (layout, quotes and comments do not matter, the code does)"
    )


SCOPE_NEAR = (
    "fix the name in `scope:`/`function:` (a definition with a similar name is shown; names are case-sensitive)"
)
SCOPE_MISSING = (
    "this version defines no such function or class: check the name in `scope:`/`function:` and the version "
    "range, or declare a `versions:` variant of the rewrite"
)


class Ambiguous(MatchFailure):
    hint = (
        "narrow it with `within:` (an enclosing statement, e.g. `for x in y:`), pick one with `occurrence: N`, "
        "or change every one with `occurrence: all`"
    )


class Clash(MatchFailure):
    hint = "rename it in the payload (e.g. a `_yourpatch_` prefix) so it takes over nothing the module defines"


class LaterChange(MatchFailure):
    """A literal edit (set_item, add_element, set_keyword, ...) later code of the module may undo."""


class NotUndoable(MatchFailure):
    hint = "the file does not carry this rewrite's result as radpatch would write it"


_EXPLAIN = contextvars.ContextVar("radpatch_explain", default=True)


@contextlib.contextmanager
def unexplained(really: bool = True) -> Iterator[None]:
    """While active, a pattern that matches nowhere is refused without the search for the
    closest candidate (the costly part of the message): for a refusal nobody will read, which
    the caller re-raises from another run (runner.forward reports a rewrite's refusal on the
    file's own lines, not on what the rewrites before it made of them)."""
    token = _EXPLAIN.set(False) if really else None
    try:
        yield
    finally:
        if token is not None:
            _EXPLAIN.reset(token)


def explaining() -> bool:
    return _EXPLAIN.get()


def code_of(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


def find_statements(module: cst.Module, scope: Path_, code: str) -> list[tuple[Path_, int]]:
    """Slots where a run of consecutive statements equals the statements of `code` (compared as
    `ast` statements, so `a = 1; b = 2` typed on one line matches the two lines upstream has)."""
    want = flat(parse_statements(code))
    hits = []
    for block, i in statement_slots(scope):
        body = block_body(block[-1])
        n = _covering(body, i, len(want))
        if n is not None and flat(body[i : i + n]) == want and _run_key(module, body[i : i + n]) == code_key(code):
            hits.append(
                (block, i)
            )  # flat first: a cheap pre-filter, generating code for every statement is the slow part
    return hits


def statement_count(code: str) -> int:
    """How many `ast` statements `code` is (a line `a; b` is two)."""
    return len(flat(parse_statements(code)))


def run_length(module: cst.Module, body: Sequence[cst.BaseStatement], i: int, code: str) -> int:
    """How many statements from body[i] the match of `code` there spans."""
    n = _covering(body, i, len(flat(parse_statements(code))))
    assert n is not None
    return n


def flat(stmts: Sequence[cst.BaseStatement]) -> list[type]:
    """Node types of the `ast` statements that `stmts` are (a line `a; b` is two); any AST-equal
    code shares them, whatever its layout and comments."""
    return [type(s) for st in stmts for s in (st.body if isinstance(st, cst.SimpleStatementLine) else (st,))]


def _covering(body: Sequence[cst.BaseStatement], i: int, count: int) -> int | None:
    """The number of statements from body[i] that hold exactly `count` ast statements, if any."""
    total = 0
    for j in range(i, len(body)):
        st = body[j]
        total += len(st.body) if isinstance(st, cst.SimpleStatementLine) else 1
        if total >= count:
            return j - i + 1 if total == count else None
    return None


def _run_key(module: cst.Module, stmts: Sequence[cst.BaseStatement]) -> str | None:
    try:
        return stmt_key("".join(textwrap.dedent(code_of(module, s)) for s in stmts))
    except SyntaxError:
        return None


def find_expressions(module: cst.Module, scope: Path_, pattern: str) -> list[Path_]:
    key = expr_key(pattern)
    kind = type(cst.parse_expression(expression_text(pattern)))
    out = []
    for p in nodes_of(scope, kind):
        try:
            if expr_key(code_of(module, p[-1])) == key:
                out.append(p)
        except SyntaxError:
            continue
    return out


def enclosing_expression(module: cst.Module, scope: Path_, pattern: str) -> cst.CSTNode | None:
    """The smallest expression of the scope whose code (as ast.unparse writes it) holds the
    expression `pattern` without `pattern` being one of its sub-expressions: `a and b` in
    `a and b and c` (one operation over three operands to ast), `timeout` in `self.timeout` (an
    attribute's name). Searched only for a refusal."""
    want = pretty(pattern)
    if isinstance(ast.parse(f"(\n{pattern}\n)", mode="eval").body, ast.Tuple) and want.startswith("("):
        want = want[1:-1]  # `a, b` typed alone: the arguments of a call, the items of a list
    bounded = re.compile(
        ("\\b" if want[:1].isidentifier() else "")
        + re.escape(want)
        + ("\\b" if want[-1:].isalnum() or want[-1:] == "_" else "")
    )
    squeezed = "".join(want.split())
    best: tuple[int, cst.CSTNode] | None = None
    for p in walk(scope, lambda n: isinstance(n, cst.BaseExpression), expression_holders):
        code = code_of(module, p[-1])
        if squeezed.replace('"', "").replace("'", "") not in "".join(code.split()).replace('"', "").replace("'", ""):
            continue  # a cheap test before parsing: the pattern's characters, whatever its layout and quotes
        try:
            norm = pretty(code)
        except (SyntaxError, RecursionError):
            continue
        if norm != want and bounded.search(norm) and (best is None or len(norm) < best[0]):
            best = (len(norm), p[-1])
    return best[1] if best else None


def calls_to(module: cst.Module, scope: Path_, pattern: str) -> list[cst.CSTNode]:
    """The calls of the scope to the callee of the call `pattern` (AST-compared), in source order."""
    try:
        tree = ast.parse(f"(\n{pattern}\n)", mode="eval").body
    except SyntaxError:
        return []
    if not isinstance(tree, ast.Call):
        return []
    key = ast.dump(tree.func)
    out: list[cst.CSTNode] = []
    for p in nodes_of(scope, cst.Call):
        call = p[-1]
        assert isinstance(call, cst.Call)
        try:
            if expr_key(code_of(module, call.func)) == key:
                out.append(call)
        except SyntaxError:
            continue
    return out


def replace_on_path(path: Path_, new: cst.CSTNode) -> cst.CSTNode:
    """Rebuild the ancestors of path[-1] with `new` in its place; return the new root."""
    for parent, old in zip(reversed(path[:-1]), reversed(path[1:])):
        new = _swap_child(parent, old, new)
    return new


def _swap_child(parent: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    for f in dataclasses.fields(parent):
        value = getattr(parent, f.name)
        if value is old:
            return parent.with_changes(**{f.name: new})
        if isinstance(value, (tuple, list)) and any(v is old for v in value):
            seq = [new if v is old else v for v in value]
            return parent.with_changes(**{f.name: type(value)(seq) if isinstance(value, tuple) else seq})
    raise AssertionError(f"{type(old).__name__} is not a child of {type(parent).__name__}")


def line_of(module: cst.Module, node: cst.CSTNode) -> int:
    return lines_of(module, [node])[0]


def lines_of(module: cst.Module, nodes: Sequence[cst.CSTNode], offset: int = 0) -> list[int]:
    """1-based first line of each node (plus `offset`: where `module` starts in the file)."""
    pos = starts(module)
    return [(pos[n][0] if n in pos else 0) + offset for n in nodes]


class Shown:
    """Text a message may show, made only when shown (`f"{shown}"`): a node's line costs a codegen
    pass of its module (starts), and most edits succeed and show none."""

    def __init__(self, make: Callable[[], str]) -> None:
        self._make = make

    def __str__(self) -> str:
        return self._make()

    def __format__(self, spec: str) -> str:
        return format(self._make(), spec)


def shown_line(module: cst.Module, node: cst.CSTNode, offset: int = 0) -> Shown:
    """lines_of(module, [node], offset)[0], as text, worked out only when shown."""
    return Shown(lambda: str(lines_of(module, [node], offset)[0]))


_STARTS: list[tuple[cst.Module, Mapping[cst.CSTNode, tuple[int, int]]]] = []  # the last few modules asked about


def starts(module: cst.Module) -> Mapping[cst.CSTNode, tuple[int, int]]:
    """(line, column) where each node of `module` starts. Resolving positions is a whole
    codegen pass; a refusal asks for several nodes of the same scope (the hits, the closest
    candidate), so the last few modules' answers are kept (the module itself with them, so
    an identity is never reused for another)."""
    for m, pos in _STARTS:
        if m is module:
            return pos
    pos = {n: (r.start.line, r.start.column) for n, r in _positions(module).items()}
    _STARTS[:] = [(module, pos), *_STARTS[:2]]
    return pos


def _positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """libcst's PositionProvider on `module`: its codegen pass alone. MetadataWrapper.resolve runs
    the same pass, then walks the whole tree once more for the batchable providers asked with it
    (none here: half its time); libcst versions without the provider's `_gen_impl` take that road."""
    provider = PositionProvider()
    gen = getattr(provider, "_gen_impl", None)
    computed = getattr(provider, "_computed", None)
    if gen is None or not isinstance(computed, dict):
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    gen(module)
    return cast(Mapping[cst.CSTNode, CodeRange], provider._computed)

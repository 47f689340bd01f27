"""Structural matching: find the one node in a scope that is AST-equal to a pattern.

Equality is decided on Python's `ast` (formatting and comments play no part); positions and
edits are done on the libcst tree so every byte outside the edit is preserved.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import functools
import textwrap
from collections.abc import Callable, Iterator, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from radpatch.source import expression_text

Path_ = tuple[cst.CSTNode, ...]  # ancestors from the scope root down to (and including) a node
_DEFS = (cst.FunctionDef, cst.ClassDef)


class MatchFailure(Exception):
    """A pattern matched zero or several times, or a scope does not exist. `hint` says what to do."""

    hint = "the installed code differs from what the rewrite expects: check the version range and the rewrite"

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint or type(self).hint


class NotFound(MatchFailure):
    hint = ("this version's code does not contain it: check the version range, or declare a `versions:` variant "
            "of the rewrite for this version")


class NearMiss(NotFound):
    hint = "`find` is close to the code shown but not equal: fix `find` (layout, quotes and comments do not matter, the code does)"


class Ambiguous(MatchFailure):
    hint = "narrow it with `within:` (an enclosing statement, e.g. `for x in y:`) or pick one with `occurrence: N`"


class Clash(MatchFailure):
    hint = "rename it in the payload (e.g. a `_yourpatch_` prefix) so it takes over nothing the module defines"


class NotUndoable(MatchFailure):
    hint = "the file does not carry this rewrite's result as radpatch would write it"


PLAUSIBLE = 0.75  # similarity from which a candidate is shown as probably the intended code


@functools.lru_cache(maxsize=1024)
def stmt_key(code: str) -> str:
    return ast.dump(ast.parse(textwrap.dedent(code)))


def expr_key(code: str) -> str:
    return ast.dump(ast.parse(f"(\n{code}\n)", mode="eval").body)


def pretty(code: str) -> str:
    try:
        return ast.unparse(ast.parse(textwrap.dedent(code)))
    except SyntaxError:
        return ast.unparse(ast.parse(f"(\n{code}\n)", mode="eval").body)


def parse_statements(code: str) -> list[cst.BaseStatement]:
    return list(_parse_statements(code))


@functools.lru_cache(maxsize=256)
def _parse_statements(code: str) -> tuple[cst.BaseStatement, ...]:
    text = textwrap.dedent(code).strip("\n") + "\n"
    ast.parse(text)  # fails fast (RecursionError) where libcst's parser takes seconds on deep nesting
    return tuple(cst.parse_module(text).body)


def find_scope(module: cst.Module, qualname: str, offset: int = 0) -> Path_:
    """Resolve '<module>', 'func' or 'Class.method' to the path of its node."""
    path: Path_ = (module,)
    if qualname == "<module>":
        return path
    for part in qualname.split("."):
        body = _body(path[-1])
        hits = [s for s in body if isinstance(s, _DEFS) and s.name.value == part]
        block = path[-1].body if isinstance(path[-1], _DEFS) else None
        if len(hits) != 1:
            where = "module" if len(path) == 1 else _name(path[-1])
            if not hits:
                names = [s.name.value for s in body if isinstance(s, _DEFS)]
                close = difflib.get_close_matches(part, names, n=3)
                tip = f"; closest: {', '.join(close)}" if close else ""
                raise (NearMiss if close else NotFound)(f"scope {qualname!r}: {where} defines no function or class {part!r}{tip}")
            raise Ambiguous(f"scope {qualname!r}: {where} defines {part!r} {len(hits)} times (lines {', '.join(str(n) for n in lines_of(module, hits, offset))})",
                            "the module redefines it; the later definition is the one that runs: patch that one by a rewrite on its own module or narrow the scope")
        path = (*path, block, hits[0]) if block is not None else (*path, hits[0])
    return path


def _name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, _DEFS) else "<module>"


def _body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    if isinstance(node, cst.Module):
        return node.body
    assert isinstance(node, _DEFS)
    body = node.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def walk(path: Path_, keep: Callable[[cst.CSTNode], bool]) -> Iterator[Path_]:
    """Every node below the scope at `path` (nested defs are entered only as nodes, not walked)."""
    root = path[-1]
    children = [root.body] if isinstance(root, _DEFS) else list(root.children)
    stack: list[Path_] = [(*path, c) for c in reversed(children)]
    while stack:
        p = stack.pop()
        node = p[-1]
        if keep(node):
            yield p
        if not isinstance(node, _DEFS):
            stack.extend((*p, c) for c in reversed(node.children))


def statement_slots(path: Path_) -> Iterator[tuple[Path_, int]]:
    """(path to a block, index) for every statement in the scope, at any depth."""
    root = path[-1]
    if isinstance(root, cst.Module):
        for i in range(len(root.body)):
            yield path, i
    for p in walk(path, lambda n: isinstance(n, cst.IndentedBlock)):
        block = p[-1]
        assert isinstance(block, cst.IndentedBlock)
        for i in range(len(block.body)):
            yield p, i


def block_body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    if isinstance(node, (cst.Module, cst.IndentedBlock)):
        return node.body
    raise TypeError(node)


def code_of(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


def find_statements(module: cst.Module, scope: Path_, pattern: Sequence[str]) -> list[tuple[Path_, int]]:
    """Slots where the consecutive statements equal `pattern` (each a statement's code)."""
    keys = [stmt_key(p) for p in pattern]
    shapes = [_shape(s) for p in pattern for s in parse_statements(p)[:1]]
    hits = []
    for block, i in statement_slots(scope):
        body = block_body(block[-1])
        if i + len(keys) > len(body):
            continue
        if any(_shape(body[i + j]) != shape for j, shape in enumerate(shapes)):
            continue  # cheap pre-filter: generating code for every statement is the slow part
        if all(_stmt_matches(module, body[i + j], k) for j, k in enumerate(keys)):
            hits.append((block, i))
    return hits


def _shape(node: cst.BaseStatement) -> tuple[type, ...]:
    """Node types that any AST-equal statement must share (comments and layout aside)."""
    if isinstance(node, cst.SimpleStatementLine):
        return (cst.SimpleStatementLine, *(type(s) for s in node.body))
    return (type(node),)


def _stmt_matches(module: cst.Module, node: cst.BaseStatement, key: str) -> bool:
    try:
        return stmt_key(code_of(module, node)) == key
    except SyntaxError:
        return False


def find_expressions(module: cst.Module, scope: Path_, pattern: str) -> list[Path_]:
    key = expr_key(pattern)
    kind = type(cst.parse_expression(expression_text(pattern)))
    out = []
    for p in walk(scope, lambda n: type(n) is kind):
        try:
            if expr_key(code_of(module, p[-1])) == key:
                out.append(p)
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


def closest(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str, offset: int = 0) -> tuple[str, bool]:
    """('closest candidate (line N, 80% similar): <code>', plausible) for a no-match message;
    the candidate is shown only when it is plausibly what `find` meant (PLAUSIBLE)."""
    if not candidates:
        return "nothing in the scope is similar to it", False
    want = pretty(pattern)
    scored = []
    for node in candidates:
        text = code_of(module, node).strip()
        try:
            norm = pretty(text)
        except (SyntaxError, RecursionError):
            norm = text
        scored.append((difflib.SequenceMatcher(None, want, norm).ratio(), norm, node))
    ratio, norm, node = max(scored, key=lambda s: s[0])
    if ratio < PLAUSIBLE:
        return "nothing in the scope is similar to it", False
    line = line_of(module, node) + offset
    shown = norm if len(norm) < 400 else norm[:400] + " ..."
    return f"closest candidate (line {line}, {ratio:.0%} similar):\n{textwrap.indent(shown, '      ')}", True


def line_of(module: cst.Module, node: cst.CSTNode) -> int:
    return lines_of(module, [node])[0]


def lines_of(module: cst.Module, nodes: Sequence[cst.CSTNode], offset: int = 0) -> list[int]:
    """1-based first line of each node (plus `offset`: where `module` starts in the file)."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    return [(positions[n].start.line if n in positions else 0) + offset for n in nodes]

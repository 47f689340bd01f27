"""The `within:` anchors that enclose a line of a scope (issue 20, att56 F10), innermost first, as
apply's `within:` names them (rewrite.ops.common.within_clause): at each compound statement, the
clause holding the line (`elif x:`, `else:`, `except E:`, `finally:`, `case P:`, a `try:` body)
and then the statement by its header (`if x:`, `for ...:`, `while ...:`, `with ...:`, `match x:`,
an `async for`/`async with`). A header that does not stand on a line of its own (a one-line suite,
a header over several lines) is not offered: its text is not one line of the source. Nested
definitions are not walked: the rewrites do not search them."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from radpatch.importing.scope_walk import blocks_of, scope_body
from radpatch.registry.within_keys import key_of

HEADERS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Match)


@dataclasses.dataclass(frozen=True)
class Anchor:
    text: str  # the `within:` value
    span: range  # the lines of the whole compound statement it is in


def enclosing(tree: ast.Module, scope: str, line: int, lines: list[str]) -> Iterator[Anchor]:
    """The anchors around `line` in `scope`, innermost first: a clause before its statement."""
    body = scope_body(tree, scope) if scope != "<module>" else tree.body
    found: list[Anchor] = []
    parent_elif: ast.stmt | None = None
    while body:
        inner = next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        if inner is None:
            break
        blocks = [b for b in blocks_of(inner) if b[0].lineno <= line]
        if not blocks:
            break
        block = max(blocks, key=lambda b: b[0].lineno)
        span = range(inner.lineno, (inner.end_lineno or inner.lineno) + 1)
        here = [a for a in (_statement(inner, lines, parent_elif), _clause(inner, block, lines)) if a]
        found += [Anchor(t, span) for t in here]
        elif_chain = isinstance(inner, ast.If) and block is inner.orelse and _is_elif(block, lines)
        parent_elif = block[0] if elif_chain else None
        body = block
    return reversed(found)


def _is_elif(block: list[ast.stmt], lines: list[str]) -> bool:
    first = block[0]
    return len(block) == 1 and isinstance(first, ast.If) and lines[first.lineno - 1].lstrip().startswith("elif")


def _statement(node: ast.stmt, lines: list[str], elif_of: ast.stmt | None) -> str | None:
    """The header naming the whole statement (an `elif` as the `if` it is, with its later clauses)."""
    if not isinstance(node, HEADERS):
        return None
    text = _line(lines, node.lineno, _first_line(node))
    if text is not None and node is elif_of and text.startswith("elif "):
        return text[2:]
    return text


def _clause(node: ast.stmt, block: list[ast.stmt], lines: list[str]) -> str | None:
    """The clause of `node` whose block is `block`, by the header apply's `within:` reads."""
    if isinstance(node, ast.If) and block is node.body:
        text = _line(lines, node.lineno, block[0].lineno)
        return text if text is not None and text.startswith("elif ") else None
    if block is getattr(node, "orelse", None) and not (isinstance(node, ast.If) and _is_elif(block, lines)):
        return "else:"
    if block is getattr(node, "finalbody", None):
        return "finally:"
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        if block is getattr(node, "body", None):
            return "try:"
        for h in getattr(node, "handlers", []):
            if block is h.body:
                return _line(lines, h.lineno, block[0].lineno)
    for case in node.cases if isinstance(node, ast.Match) else []:
        if block is case.body:
            return _line(lines, case.pattern.lineno, block[0].lineno)
    return None


def _first_line(node: ast.stmt) -> int:
    blocks = blocks_of(node)
    return min(b[0].lineno for b in blocks) if blocks else node.lineno


def _line(lines: list[str], header: int, first: int) -> str | None:
    """The header's line as written (a trailing comment cut), where it is one line of its own."""
    if first <= header or header > len(lines):
        return None
    text = lines[header - 1].strip()
    for cut in (text, text.split("#")[0].rstrip()):
        if not cut.endswith(":"):
            continue
        try:
            key_of(cut)
        except SyntaxError:
            continue
        return cut
    return None

"""A pattern's code as the matching compares it and as a rewrite writes it: statements and
expressions keyed by their `ast` dump (formatting and comments play no part), parsed into libcst
statements (with the comment lines above the first), and written as `ast.unparse` writes them."""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Sequence

import libcst as cst

from radpatch.registry.code import MAX_DEPTH, depth_over


@functools.lru_cache(maxsize=1024)
def stmt_key(code: str) -> str:
    return ast.dump(ast.parse(textwrap.dedent(code)))


@functools.lru_cache(maxsize=1024)  # matching keys every call's callee of a scope again per step and probe
def expr_key(code: str) -> str:
    return ast.dump(ast.parse(f"(\n{code}\n)", mode="eval").body)


def pretty(code: str) -> str:
    """`code` as ast.unparse writes it: as an expression when it is one (a module of one string
    would be written as a docstring), else as statements."""
    try:
        return ast.unparse(ast.parse(f"(\n{code}\n)", mode="eval").body)
    except SyntaxError:
        return ast.unparse(ast.parse(textwrap.dedent(code)))


def parse_statements(code: str) -> list[cst.BaseStatement]:
    return list(_parse_statements(code))


@functools.lru_cache(maxsize=256)
def _parse_statements(code: str) -> tuple[cst.BaseStatement, ...]:
    text = textwrap.dedent(code).strip("\n") + "\n"
    # fails fast where libcst's parser takes seconds on deep nesting: ast.parse raises RecursionError
    # on 3.11 and 3.12, and on 3.10 and 3.13, which parse it, the depth the loader refuses does
    if depth_over(ast.parse(text)):
        raise RecursionError(f"nested deeper than {MAX_DEPTH} levels")
    return tuple(cst.parse_module(text).body)


def parse_code(code: str) -> list[cst.BaseStatement]:
    """The statements of `code` a rewrite writes into a module: parse_statements', with the comment
    lines above the first statement (libcst keeps them apart, as the module's header) moved above
    it, so `code: "# why\\nx = 1"` writes the comment too. Blank lines above a statement carry no
    indentation (written into a block, they stay empty lines)."""
    return list(_parse_code(code))


@functools.lru_cache(maxsize=256)
def _parse_code(code: str) -> tuple[cst.BaseStatement, ...]:
    body = list(_parse_statements(code))
    header = list(cst.parse_module(textwrap.dedent(code).strip("\n") + "\n").header)
    if body and any(e.comment is not None for e in header):
        body[0] = body[0].with_changes(leading_lines=[*header, *body[0].leading_lines])  # type: ignore[attr-defined]
    return tuple(
        s.with_changes(leading_lines=[_unindented(e) for e in s.leading_lines])  # type: ignore[attr-defined]
        for s in body
    )


def _unindented(line: cst.EmptyLine) -> cst.EmptyLine:
    return line.with_changes(indent=False) if line.comment is None and not line.whitespace.value else line


def own_comments(lines: Sequence[cst.EmptyLine]) -> list[str]:
    """The comments of the lines above a statement, as text: what a `find` or `with` says there."""
    return [e.comment.value for e in lines if e.comment is not None]


def code_key(code: str) -> str:
    return stmt_key(textwrap.dedent(code).strip("\n") + "\n")

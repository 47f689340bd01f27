"""A function's body as libcst holds it: its docstring apart from the statements after it (a
docstring sharing its line with them too), and the function given a new body with the docstring
first: what wrap_body and replace_body both edit around."""

from __future__ import annotations

import textwrap

import libcst as cst


def split_body(fn: cst.FunctionDef) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement], bool]:
    """(docstring statement or nothing, the rest of the body, whether the docstring shares its line
    with the rest's first statements: `'doc'; return 1`); a one-line body becomes a block."""
    body = fn.body
    stmts: list[cst.BaseStatement] = (
        list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body=body.body)]  # type: ignore[arg-type]
    )
    first = stmts[0] if stmts else None
    if (
        isinstance(first, cst.SimpleStatementLine)
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        if len(first.body) == 1:
            return stmts[:1], stmts[1:], False
        doc = first.with_changes(body=first.body[:1], trailing_whitespace=cst.TrailingWhitespace())
        beside = cst.SimpleStatementLine(body=first.body[1:], trailing_whitespace=first.trailing_whitespace)
        return [doc], [beside, *stmts[1:]], True
    return [], stmts, False


def with_statements(
    fn: cst.FunctionDef, doc: list[cst.BaseStatement], stmts: list[cst.BaseStatement], shared: bool = False
) -> cst.FunctionDef:
    """`fn` with the body `doc` + `stmts`. A docstring that shared its line (split_body) shares it with the
    first line of `stmts` when that is a line of simple statements (so undoing gives the line back),
    else it stands alone."""
    if doc and shared:
        line = doc[0]
        assert isinstance(line, cst.SimpleStatementLine)
        if stmts and isinstance(stmts[0], cst.SimpleStatementLine):
            merged = line.with_changes(
                body=[*line.body, *stmts[0].body], trailing_whitespace=stmts[0].trailing_whitespace
            )
            doc, stmts = [merged], stmts[1:]
        else:
            alone = line.body[0].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            doc = [line.with_changes(body=[alone])]
    body = fn.body
    block = (
        body.with_changes(body=[*doc, *stmts])
        if isinstance(body, cst.IndentedBlock)
        else cst.IndentedBlock(body=[*doc, *stmts])
    )
    return fn.with_changes(body=block)


def statements(code: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(textwrap.dedent(code).strip("\n") + "\n").body)

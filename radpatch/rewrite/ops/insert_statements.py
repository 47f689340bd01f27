"""insert_before / insert_after: new statements next to the one statement equal to `find`.

The inverse finds the same anchor and removes exactly the statements that follow (or precede) it.
"""

from __future__ import annotations

import libcst as cst

from radpatch.registry.model import InsertStatements
from radpatch.rewrite.matching import (
    NotUndoable,
    block_body,
    code_of,
    find_scope,
    find_statements,
    parse_statements,
    run_length,
    stmt_key,
)
from radpatch.rewrite.ops.common import (
    in_scope,
    select,
    slot_of,
    statement_candidates,
    statement_paths,
    with_body,
)
from radpatch.rewrite.source import Source


def _anchor(module: cst.Module, op: InsertStatements, offset: int) -> tuple[tuple[cst.CSTNode, ...], int]:
    """(block, index) where the new statements go: before the first statement `find` names, or
    after its last (`find` may be several statements)."""
    scope = find_scope(module, op.scope, offset)
    hits = statement_paths(find_statements(module, scope, op.find))
    block, i = slot_of(
        select(
            module, hits, "statement `find`", op.scope, op, offset, statement_candidates(module, scope, op.find, offset)
        )
    )
    return block, i + run_length(module, block_body(block[-1]), i, op.find) if op.where == "after" else i


def forward(src: Source, op: InsertStatements) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        block, i = _anchor(module, op, offset)
        body = list(block_body(block[-1]))
        body[i:i] = parse_statements(op.code)
        return with_body(block, body)

    return in_scope(src, op.scope, edit)


def inverse(src: Source, op: InsertStatements) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        block, i = _anchor(module, op, offset)
        body = list(block_body(block[-1]))
        n = len(parse_statements(op.code))
        start = i if op.where == "after" else i - n
        got = body[start : start + n] if start >= 0 else []
        keys = [stmt_key(code_of(module, s)) for s in got]
        if keys != [stmt_key(code_of(module, s)) for s in parse_statements(op.code)]:
            raise NotUndoable(f"the inserted statements are not {op.where} `find` in {op.scope}")
        del body[start : start + n]
        return with_body(block, body)

    return in_scope(src, op.scope, edit)

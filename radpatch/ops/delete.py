"""delete: remove the statement(s) equal to `find`, leaving a comment where they were.

The comment (`# radpatch: deleted: <code>`) tells a reader of the patched file what went, and
tells the inverse where to put it back: it becomes the first comment line above the next
statement (or the block's trailing comment when the deleted code was last). A deletion that
would empty a block is refused (replace the code with `pass` instead).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence

import libcst as cst

from radpatch.matching import (
    MatchFailure,
    NotUndoable,
    Path_,
    block_body,
    code_of,
    find_scope,
    find_statements,
    parse_statements,
    walk,
)
from radpatch.model import Delete
from radpatch.ops.common import candidates, in_scope, scope_statements, select, slot_of, statement_paths
from radpatch.matching import replace_on_path
from radpatch.source import Source

PREFIX = "# radpatch: deleted: "


def marker(op: Delete) -> str:
    code = "; ".join(ast.unparse(s) for s in ast.parse(textwrap.dedent(op.find)).body)
    code = " ".join(code.split())
    return PREFIX + (code if len(code) <= 70 else code[:67] + "...")


def forward(src: Source, op: Delete) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        scope = find_scope(module, op.scope, offset)
        n = len(parse_statements(op.find))
        hits = statement_paths(find_statements(module, scope, [code_of(module, s) for s in parse_statements(op.find)]))
        block, i = slot_of(select(module, hits, "statement `find`", op.scope, op, offset,
                                  candidates(module, scope_statements(scope), op.find, offset)))
        holder = block[-1]
        body = list(block_body(holder))
        if len(body) == n:
            raise MatchFailure(f"deleting `find` would leave an empty block in {op.scope}",
                               "replace it with `pass` instead (a `replace` rewrite), or delete the enclosing statement")
        mark = cst.EmptyLine(indent=True, comment=cst.Comment(marker(op)))
        kept = [*body[i].leading_lines, mark]
        del body[i:i + n]
        if i < len(body):
            body[i] = body[i].with_changes(leading_lines=[*kept, *body[i].leading_lines])
            return replace_on_path(block, holder.with_changes(body=body))
        return replace_on_path(block, holder.with_changes(body=body, footer=[*kept, *_footer(holder)]))
    return in_scope(src, op.scope, edit)


def _footer(node: cst.CSTNode) -> Sequence[cst.EmptyLine]:
    return getattr(node, "footer", ())  # type: ignore[no-any-return]


def inverse(src: Source, op: Delete) -> Source:
    text = marker(op)

    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        scope = find_scope(module, op.scope, offset)
        found = [(p, None) for p in _blocks(scope) if any(_is(e, text) for e in _footer(p[-1]))]
        found += [(b, i) for b, i in _slots(scope) if any(_is(e, text) for e in block_body(b[-1])[i].leading_lines)]
        if len(found) != 1:
            raise NotUndoable(f"{len(found)} `{text}` comments in {op.scope}; expected exactly one where the code was deleted")
        block, i = found[0]
        holder = block[-1]
        body = list(block_body(holder))
        lines = list(_footer(holder) if i is None else body[i].leading_lines)
        k = next(j for j, e in enumerate(lines) if _is(e, text))
        restored = parse_statements(op.find)
        restored[0] = restored[0].with_changes(leading_lines=lines[:k])
        at = len(body) if i is None else i
        if i is not None:
            body[i] = body[i].with_changes(leading_lines=lines[k + 1:])
        body[at:at] = restored
        changes: dict[str, object] = {"body": body}
        if i is None:
            changes["footer"] = lines[k + 1:]
        return replace_on_path(block, holder.with_changes(**changes))
    return in_scope(src, op.scope, edit)


def _is(line: cst.EmptyLine, text: str) -> bool:
    return line.comment is not None and line.comment.value == text


def _blocks(scope: Path_) -> list[Path_]:
    out = [scope] if isinstance(scope[-1], cst.Module) else []
    return out + list(walk(scope, lambda n: isinstance(n, cst.IndentedBlock)))


def _slots(scope: Path_) -> list[tuple[Path_, int]]:
    return [(b, i) for b in _blocks(scope) for i in range(len(block_body(b[-1])))]

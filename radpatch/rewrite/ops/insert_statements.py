"""insert_before / insert_after: new statements next to the one statement equal to `find`.

The inverse finds the same anchor and removes exactly the statements that follow (or precede) it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from radpatch import source_lines
from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Fail, Field, Occurrence, Operation, code_key
from radpatch.registry.touch import Touch, boundary, code_trees, on_find
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import NotUndoable, code_of, run_length
    from radpatch.rewrite.ops.common import in_scope, slot_of, with_body
    from radpatch.rewrite.ops.common.selection import statement_match
    from radpatch.rewrite.patterns import own_comments, parse_code, parse_statements, stmt_key
    from radpatch.rewrite.tree import block_body


@dataclass(frozen=True)
class InsertStatements(Operation):
    """Insert `code` right before/after the one statement in `scope` equal to `find`."""

    scope: str
    find: str
    code: str
    side: Literal["before", "after"]
    within: str | None = None
    occurrence: Occurrence = None

    KEY: ClassVar[str] = "insert_after"  # and insert_before (keys())
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        Field("find", "code", "the statement(s) next to which to insert, AST-compared: any layout, quotes, comments"),
        Field("code", "code", "the statement(s) to insert"),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: _get_kv_cache_groups_uniform_page_size\nfind: |\n  if max_num_layers < min_num_layers * 1.5:\n"
        "      group_size = max_num_layers\n"
        "code: group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, vllm_config)"
    )
    REPEATABLE: ClassVar[bool] = True  # its anchor stays: applied again, it inserts the code a second time

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return ("insert_before", "insert_after")

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        return cls(**values, side="after" if key == "insert_after" else "before")  # type: ignore[arg-type]

    def describe(self) -> str:
        return f"insert statements {self.side} a statement in {self.scope}"

    def scope_name(self) -> str:
        return self.scope

    def present_hint(self) -> str:
        # undoing an insert removes the code next to its anchor: a statement the code is meant to
        # sit beside reads as the insert (att20 F1), which only another anchor tells apart
        return (
            "; if the code is meant to go next to an identical statement, anchor the insert on that "
            "statement (its `find` with a neighbour, or `occurrence:`), which reads the two files apart"
        )

    def touches(self) -> tuple[Touch, ...]:
        """The anchor: its side of the statement its `find` matches (of the first statement of a
        several-statement `find` for `before`, of the last for `after`), and the code it writes."""
        key = f"{self.side} {boundary(self.find, self.side)}"
        return (on_find(self, self.find, "anchor", key, code_trees(self.code)),)

    def match_key(self) -> tuple[object, ...] | None:
        return ("find", self.scope, code_key(self.find), self.within)

    def may_be_present(self, text: str) -> bool:
        return source_lines.every_line_in(self.code, text)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return _forward(src, self)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return _inverse(src, self)


def _anchor(module: cst.Module, op: InsertStatements, offset: int) -> tuple[tuple[cst.CSTNode, ...], int]:
    """(block, index) where the new statements go: before the first statement `find` names, or
    after its last (`find` may be several statements)."""
    block, i = slot_of(statement_match(module, op.scope, op.find, op, offset))
    return block, i + run_length(module, block_body(block[-1]), i, op.find) if op.side == "after" else i


def _blank_lead(block: tuple[cst.CSTNode, ...], body: list[cst.BaseStatement], i: int) -> int:
    """How many blank lines above the module-level anchor body[i] go above the new code: its
    leading blank lines, when the statement before it is a def or class (else 0)."""
    if not isinstance(block[-1], cst.Module) or i == 0 or i >= len(body):
        return 0
    if not isinstance(body[i - 1], (cst.FunctionDef, cst.ClassDef)):
        return 0
    lead = list(getattr(body[i], "leading_lines", ()))
    return next((k for k, e in enumerate(lead) if e.comment is not None), len(lead))


def _forward(src: Source, op: InsertStatements) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        block, i = _anchor(module, op, offset)
        body = list(block_body(block[-1]))
        new = parse_code(op.code)
        blank = _blank_lead(block, body, i) if op.side == "before" else 0
        if blank:
            # at module level the blank lines above the anchor stay above the new code (PEP 8's two
            # after a def), instead of gluing it to the end of the statement before
            anchor = body[i]
            lead = list(anchor.leading_lines)  # type: ignore[attr-defined]
            new[0] = new[0].with_changes(leading_lines=[*lead[:blank], *new[0].leading_lines])  # type: ignore[attr-defined]
            body[i] = anchor.with_changes(leading_lines=lead[blank:])
        body[i:i] = new
        return with_body(block, body)

    return in_scope(src, op.scope, edit)


def _inverse(src: Source, op: InsertStatements) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        block, i = _anchor(module, op, offset)
        body = list(block_body(block[-1]))
        code = parse_code(op.code)
        n = len(code)
        start = i if op.side == "after" else i - n
        got = body[start : start + n] if start >= 0 else []
        keys = [stmt_key(code_of(module, s)) for s in got]
        if keys != [stmt_key(code_of(module, s)) for s in parse_statements(op.code)]:
            raise NotUndoable(f"the inserted statements are not {op.side} `find` in {op.scope}")
        if op.side == "before" and start >= 0 and isinstance(block[-1], cst.Module) and start + n < len(body):
            own = len(code[0].leading_lines)  # type: ignore[attr-defined]
            lead = list(got[0].leading_lines)  # type: ignore[attr-defined]
            moved = lead[: len(lead) - own]
            if moved and all(e.comment is None for e in moved):  # the blank lines forward moved above the code
                anchor = body[start + n]
                body[start + n] = anchor.with_changes(leading_lines=[*moved, *anchor.leading_lines])  # type: ignore[attr-defined]
        del body[start : start + n]
        if start == 0 and isinstance(block[-1], cst.Module):
            return _without_own_header(block[-1].with_changes(body=body), code[0])
        return with_body(block, body)

    return in_scope(src, op.scope, edit)


def _without_own_header(module: cst.Module, first: cst.BaseStatement) -> cst.Module:
    """Code inserted above a module's first statement: its own comment lines, re-read, are the
    tail of the module's header (libcst reads every line above the first statement as the header),
    so they go with the code (and the header lines above them stay)."""
    own = list(first.leading_lines)  # type: ignore[attr-defined]
    at = next((k for k, e in enumerate(own) if e.comment is not None), len(own))
    own = own[at:]
    header = list(module.header)
    if not own or len(header) < len(own):
        return module
    tail = header[len(header) - len(own) :]
    if own_comments(tail) != own_comments(own) or [e.comment is None for e in tail] != [e.comment is None for e in own]:
        return module
    return module.with_changes(header=header[: len(header) - len(own)])

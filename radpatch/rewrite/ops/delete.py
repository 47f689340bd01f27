"""delete: remove the statement(s) equal to `find`, leaving a comment where they were.

The comment (`# radpatch: deleted: <code>`) tells a reader of the patched file what went, and
tells the inverse where to put it back: it becomes a comment line above the next statement.
Code that ends its block becomes `pass  # radpatch: deleted: <code>` instead (a comment after
the block's last line would belong to whatever follows the block, and a block cannot be empty).
With `marker: comment` (what `radpatch import` writes), code that ends a block which keeps other
statements leaves the comment as the block's last line, at its indentation (libcst holds it in the
block's footer), so the patched code is what deleting the lines gives: GNU `patch` of a diff that
drops a class's last method. The default stays `pass`: entries already applied wrote that form,
and their files must still read as what the entry writes. The inverse reads both forms.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Field, Occurrence, Operation, code_key
from radpatch.registry.touch import Touch, norm, on_find
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import NotUndoable, replace_on_path, run_length
    from radpatch.rewrite.ops.common import in_scope, slot_of
    from radpatch.rewrite.ops.common.selection import statement_match
    from radpatch.rewrite.patterns import parse_statements
    from radpatch.rewrite.scopes import find_scope
    from radpatch.rewrite.tree import Path_, block_body, blocks, statement_slots


@dataclass(frozen=True)
class Delete(Operation):
    """Delete the statement(s) in `scope` equal to `find`; a `# radpatch: deleted ...` comment marks the place."""

    scope: str
    find: str
    within: str | None = None
    occurrence: Occurrence = None
    marker: str = "pass"

    KEY: ClassVar[str] = "delete"
    CONSUMES: ClassVar[bool] = True
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        Field("find", "code", "the statement(s) to delete, AST-compared"),
        WITHIN,
        OCCURRENCE,
        Field(
            "marker",
            "choice",
            "optional: what marks code deleted from the end of a block that keeps other statements: `pass` "
            "(default: `pass  # radpatch: deleted: ...`) or `comment` (the comment line alone, closing the block, "
            "so the code is what deleting the lines gives; `radpatch import` writes it); a block left empty "
            "always gets `pass`",
            required=False,
            choices=("pass", "comment"),
        ),
    )
    EXAMPLE: ClassVar[str] = (
        'scope: EngineCoreProc.startup_handshake\nfind: logger.debug("Waiting for init message from front-end.")'
    )

    def describe(self) -> str:
        return f"delete a statement in {self.scope}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The statement its `find` matches."""
        return (on_find(self, self.find, "node", f"code {norm(self.find)}", ""),)

    def match_key(self) -> tuple[object, ...] | None:
        return ("find", self.scope, code_key(self.find), self.within)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return _forward(src, self)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return _inverse(src, self)


def _lines(stmt: cst.BaseStatement) -> list[cst.EmptyLine]:
    return list(stmt.leading_lines)  # type: ignore[attr-defined]


PREFIX = "# radpatch: deleted: "


def deleted_comment(op: Delete) -> str:
    """The comment that marks where `op` deleted its code: `# radpatch: deleted: <code>`."""
    code = "; ".join(ast.unparse(s) for s in ast.parse(textwrap.dedent(op.find)).body)
    code = " ".join(code.split())
    return PREFIX + (code if len(code) <= 70 else code[:67] + "...")


def _forward(src: Source, op: Delete) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        block, i = slot_of(statement_match(module, op.scope, op.find, op, offset))
        holder = block[-1]
        body = list(block_body(holder))
        n = run_length(module, body, i, op.find)
        lines = _lines(body[i])
        del body[i : i + n]
        mark = cst.EmptyLine(indent=True, comment=cst.Comment(deleted_comment(op)))
        if i < len(body):
            body[i] = body[i].with_changes(leading_lines=[*lines, mark, *_lines(body[i])])
        elif op.marker == "comment" and (body or isinstance(holder, cst.Module)):  # a module may end empty
            footer = [*lines, mark, *holder.footer]  # type: ignore[attr-defined]
            return replace_on_path(block, holder.with_changes(body=body, footer=footer))
        else:
            body.append(
                cst.SimpleStatementLine(
                    body=[cst.Pass()],
                    leading_lines=lines,
                    trailing_whitespace=cst.TrailingWhitespace(
                        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(deleted_comment(op))
                    ),
                )
            )
        return replace_on_path(block, holder.with_changes(body=body))

    return in_scope(src, op.scope, edit)


def _inverse(src: Source, op: Delete) -> Source:
    text = deleted_comment(op)

    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        scope = find_scope(_unheaded(module, text), op.scope, offset)
        found = [(b, i) for b, i in _slots(scope) if _marks(block_body(b[-1])[i], text)]
        if not found:
            return _from_footer(scope, op, text)
        # Several: rewrites that deleted equal statements (undone last first). Each comment puts back
        # the same code, so any order restores the same module; the proof checks that it does.
        block, i = found[-1]
        holder = block[-1]
        body = list(block_body(holder))
        restored = parse_statements(op.find)
        stmt = body[i]
        if _is_pass(stmt, text):
            restored[0] = restored[0].with_changes(leading_lines=_lines(stmt))
            body[i : i + 1] = restored
        else:
            lines = _lines(stmt)
            k = next(j for j, e in enumerate(lines) if _is(e, text))
            restored[0] = restored[0].with_changes(leading_lines=lines[:k])
            body[i] = stmt.with_changes(leading_lines=lines[k + 1 :])
            body[i:i] = restored
        return replace_on_path(block, holder.with_changes(body=body))

    def once(src: Source) -> Source:
        try:
            return in_scope(src, op.scope, edit)
        except NotUndoable:
            # a deleted comment that closes a top-level definition lies below its last statement, outside
            # the lines the definition is parsed from: look in the whole module
            return in_scope(src, "<module>", edit)

    src = once(src)
    while op.occurrence == "all":  # every statement it deleted, each marked by its comment
        try:
            src = once(src)
        except NotUndoable:
            break
    return src


def _unheaded(module: cst.Module, text: str) -> cst.Module:
    """`module` with its header (the comment and blank lines above its first statement, which libcst
    parses apart from that statement) given back to the first statement as its leading lines, when the
    header holds `text`: code deleted from the module's top left its comment there. The same bytes."""
    if not module.body or not any(_is(e, text) for e in module.header):
        return module
    first = module.body[0]
    lines = [*module.header, *_lines(first)]
    return module.with_changes(header=[], body=[first.with_changes(leading_lines=lines), *module.body[1:]])


def _from_footer(scope: Path_, op: Delete, text: str) -> cst.CSTNode:
    """Put back code deleted from a block's end: its deleted comment closes that block (its footer)."""
    top = scope[-1]
    if isinstance(top, cst.Module) and not top.body and any(_is(e, text) for e in top.header):
        # a module the deletion left empty: libcst reads its comment lines back as the header
        scope = (*scope[:-1], top.with_changes(header=[], footer=[*top.header, *top.footer]))
    holders = [scope] if isinstance(scope[-1], cst.Module) else []
    found = [b for b in [*holders, *blocks(scope)] if any(_is(e, text) for e in b[-1].footer)]  # type: ignore[attr-defined]
    if not found:
        raise NotUndoable(f"no `{text}` comment in {op.scope}, where the code was deleted")
    block = found[-1]
    holder = block[-1]
    footer: list[cst.EmptyLine] = list(holder.footer)  # type: ignore[attr-defined]
    k = max(j for j, e in enumerate(footer) if _is(e, text))
    restored = parse_statements(op.find)
    restored[0] = restored[0].with_changes(leading_lines=footer[:k])
    body = [*block_body(holder), *restored]
    return replace_on_path(block, holder.with_changes(body=body, footer=footer[k + 1 :]))


def _is(line: cst.EmptyLine, text: str) -> bool:
    return line.comment is not None and line.comment.value == text


def _is_pass(stmt: cst.BaseStatement, text: str) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Pass)
        and stmt.trailing_whitespace.comment is not None
        and stmt.trailing_whitespace.comment.value == text
    )


def _marks(stmt: cst.BaseStatement, text: str) -> bool:
    return _is_pass(stmt, text) or any(_is(e, text) for e in _lines(stmt))


def _slots(scope: Path_) -> list[tuple[Path_, int]]:
    return list(statement_slots(scope))

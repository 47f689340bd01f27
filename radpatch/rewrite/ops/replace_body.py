"""replace_body: a function's whole body (docstring aside), AST-equal to `find`, becomes `with`;
the inverse is the same edit from `with` back to `find`."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import NotFound, NotUndoable, code_of, replace_on_path
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.function_body import split_body, statements, with_statements
    from radpatch.rewrite.ops.common.selection import function


@dataclass(frozen=True)
class ReplaceBody(Operation):
    """Replace a function's whole body (AST-equal to `find`) by `with_`; its docstring stays."""

    function: str
    find: str
    with_: str

    KEY: ClassVar[str] = "replace_body"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function or method"),
        Field("find", "code", "its current body without the docstring (AST-compared: any layout)"),
        Field("with", "code", "the new body"),
    )
    EXAMPLE: ClassVar[str] = (
        "function: EngineCore.abort_requests\n"
        "find: self.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)\n"
        "with: self.scheduler.finish_requests(list(request_ids), RequestStatus.FINISHED_ABORTED)"
    )

    def describe(self) -> str:
        return f"replace the body of {self.function}()"

    def scope_name(self) -> str:
        return self.function

    def touches(self) -> tuple[Touch, ...]:
        """The function's whole body: every node inside it."""
        return (Touch("body", self.function, "body"),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return replace_body(src, self, undo=False)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return replace_body(src, self, undo=True)


def _body_key(module: cst.Module, stmts: Sequence[cst.BaseStatement]) -> str:
    return ast.dump(ast.parse(textwrap.dedent("".join(code_of(module, s) for s in stmts))))


def replace_body(src: Source, op: ReplaceBody, undo: bool) -> Source:
    old, new = (op.with_, op.find) if undo else (op.find, op.with_)

    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, fn = function(module, op.function, offset)
        doc, rest, shared = split_body(fn)
        if _body_key(module, rest) != ast.dump(ast.parse(textwrap.dedent(old))):
            raise (NotUndoable if undo else NotFound)(
                f"the body of {op.function}() (docstring aside) is not {'the replacement' if undo else '`find`'}"
            )
        stmts = statements(new)
        if rest:
            stmts[0] = stmts[0].with_changes(leading_lines=rest[0].leading_lines)  # type: ignore[attr-defined]
        return replace_on_path(path, with_statements(fn, doc, stmts, shared))

    return in_scope(src, op.function, edit)

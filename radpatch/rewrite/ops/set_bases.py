"""set_bases: a class's bases and class keywords (`metaclass=`) change, and nothing else of it.

The class header is written as a call of the class's name: `A(B)` for `class A(B):`, `A(B,
metaclass=M)` for `class A(B, metaclass=M):`, `A` for `class A:`. `from` is AST-compared with the
installed header (a class whose bases differ is not a match); the header becomes `to`, written as
`to` is laid out, and the inverse puts `from` back. The body and the decorators keep every byte.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import expression_text
from radpatch.registry.model import Fail, Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import MatchFailure, NotFound, NotUndoable, code_of, replace_on_path
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.later_definition import refuse_later_definition
    from radpatch.rewrite.scopes import find_scope

HEADER = (
    "the class header as a call of its name: `A(B, metaclass=M)` for `class A(B, metaclass=M):`, `A` for `class A:`"
)


@dataclass(frozen=True)
class SetBases(Operation):
    """Change the bases and class keywords of the class `scope` from `from_` to `to` (each the class
    header written as a call of its name: `A(B)`; `A` for none)."""

    scope: str
    from_: str
    to: str

    KEY: ClassVar[str] = "set_bases"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("scope", "qualname", "the class: `Engine` or `Outer.Inner`"),
        Field("from", "expression", f"{HEADER}, as the installed code has it (AST-compared)"),
        Field("to", "expression", f"the new header, {HEADER.split(': ', 1)[0]}"),
    )
    EXAMPLE: ClassVar[str] = "scope: Worker\nfrom: Worker(Base)\nto: Worker(Base, Mixin, metaclass=Registered)"

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        name = str(values["scope"]).rsplit(".", 1)[-1]
        for k, v in (("from", values.get("from_")), ("to", values.get("to"))):
            if _header(str(v)) is None or _header(str(v))[0] != name:  # type: ignore[index]
                raise fail(k, f"write the header of class `{name}` as a call of its name: `{name}(...)`, or `{name}`")
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        return f"change the bases of class {self.scope}: {self.from_} -> {self.to}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The class header's arguments."""
        return (Touch("node", self.scope, "bases", beside_body=True),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        out = in_scope(src, self.scope, lambda m, offset: _set(m, self, self.from_, self.to, offset, False))
        refuse_later_definition(src.text, self.scope, "set_bases")
        return out

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _set(m, self, self.to, self.from_, offset, True))


def _header(text: str) -> tuple[str, str] | None:
    """(the class name, the AST of its bases and keywords) of a header written as a call, or None."""
    try:
        node = ast.parse(expression_text(text).strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Name):
        return node.id, ast.dump(ast.Call(ast.Name(node.id, ast.Load()), [], []))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id, ast.dump(ast.Call(ast.Name(node.func.id, ast.Load()), node.args, node.keywords))
    return None


def _installed(module: cst.Module, cls: cst.ClassDef) -> str:
    """The installed header's AST, as _header gives it."""
    bare = cls.with_changes(leading_lines=(), decorators=(), body=cst.SimpleStatementSuite([cst.Pass()]))
    node = ast.parse(code_of(module, bare).strip()).body[0]
    assert isinstance(node, ast.ClassDef)
    return ast.dump(ast.Call(ast.Name(node.name, ast.Load()), node.bases, node.keywords))


def _set(module: cst.Module, op: SetBases, old: str, new: str, offset: int, undo: bool) -> cst.CSTNode:
    path = find_scope(module, op.scope, offset)
    cls = path[-1]
    if not isinstance(cls, cst.ClassDef):
        raise NotFound(f"{op.scope} is not a class", "set_bases changes a class's header; `scope:` names the class")
    have, want = _installed(module, cls), _header(old)
    if want is None or have != want[1]:
        bare = cls.with_changes(leading_lines=(), decorators=(), body=cst.SimpleStatementSuite([cst.Pass()]))
        shown = code_of(module, bare).strip().removesuffix("pass").rstrip()
        raise (NotUndoable if undo else NotFound)(
            f"class {op.scope} reads `{shown}`, not the header `from:` gives ({old})",
            "" if undo else "fix `from:` to the header the code has now, as a call of the class's name",
        )
    call = cst.parse_expression(expression_text(new).strip())
    if isinstance(call, cst.Name):
        changed = cls.with_changes(
            bases=(),
            keywords=(),
            lpar=cst.MaybeSentinel.DEFAULT,
            rpar=cst.MaybeSentinel.DEFAULT,
            whitespace_after_name=cst.SimpleWhitespace(""),
        )
        return replace_on_path(path, changed)
    assert isinstance(call, cst.Call)
    bases = [a for a in call.args if a.keyword is None and a.star != "**"]
    keywords = [a for a in call.args if a.keyword is not None or a.star == "**"]
    if call.args and list(call.args) != [*bases, *keywords]:
        raise MatchFailure(f"`to:` of set_bases on {op.scope} passes a base after a keyword", "write the bases first")
    changed = cls.with_changes(
        bases=bases,
        keywords=keywords,
        lpar=cst.LeftParen(whitespace_after=call.whitespace_before_args),
        rpar=cst.RightParen(),
        whitespace_after_name=call.whitespace_after_func,
    )
    return replace_on_path(path, changed)

"""set_keyword: one keyword argument of one call changes value, `keyword=from` -> `keyword=to`.

The call is named by its callee as the code writes it (`threading.Thread`, AST-compared), the
keyword by its name, and the value it has now by `from`: a call whose keyword holds anything else
is not a match. A keyword argument is not an expression (`daemon=True` alone would read as an
assignment statement), so `replace` cannot find one; this operation can, and leaves every other
byte of the call alone. The inverse is the same edit from `to` back to `from`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import expression_text
from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Field, Occurrence, Operation, code_key
from radpatch.registry.touch import Touch, norm
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import code_of, lines_of, replace_on_path
    from radpatch.rewrite.merge import enclosed, merge
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.selection import Explanation, nested_matches, select, undo_pick
    from radpatch.rewrite.patterns import expr_key
    from radpatch.rewrite.scopes import find_scope
    from radpatch.rewrite.tree import Path_, nodes_of


@dataclass(frozen=True)
class SetKeyword(Operation):
    """Change one keyword argument of one call in `scope`: in the call to `call` (the callee as the
    code writes it) passing `keyword` with the value `from_`, the value becomes `to`."""

    scope: str
    call: str
    keyword: str
    from_: str
    to: str
    within: str | None = None
    occurrence: Occurrence = None

    KEY: ClassVar[str] = "set_keyword"
    CONSUMES: ClassVar[bool] = True
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        Field("call", "expression", "the callee as the code writes it, AST-compared: `threading.Thread`, `self.run`"),
        Field("keyword", "identifier", "the keyword argument's name, e.g. `daemon`"),
        Field("from", "expression", "the value the call passes now (AST-compared); a call passing another is no match"),
        Field("to", "expression", "the new value"),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: EngineCoreProc.__init__\ncall: threading.Thread\nkeyword: daemon\n"
        "from: 'True'\nto: 'False'\noccurrence: 2"
    )

    def describe(self) -> str:
        return f"set {self.keyword}={self.to} (was {self.from_}) in a call to {self.call} in {self.scope}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The keyword argument of the call (a node inside a statement another rewrite may take whole)."""
        part = ("keyword", self.call, self.keyword, self.from_)
        says = f"keyword argument `{self.keyword}=` of a call to `{self.call}`"
        key = f"keyword {self.keyword} of {norm(self.call)}"
        return (Touch("node", self.scope, key, part=part, kind="keyword argument", says=says),)

    def match_key(self) -> tuple[object, ...] | None:
        return ("keyword", self.scope, code_key(self.call), self.keyword, code_key(self.from_), self.within)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _set(m, self, offset, undo=False))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _set(m, self, offset, undo=True))


def _calls(module: cst.Module, scope: Path_, callee: str) -> list[Path_]:
    """The calls in the scope whose callee is AST-equal to `callee`, in source order."""
    key = expr_key(callee)
    out = []
    for p in nodes_of(scope, cst.Call):
        call = p[-1]
        assert isinstance(call, cst.Call)
        try:
            if expr_key(code_of(module, call.func)) == key:
                out.append(p)
        except SyntaxError:
            continue
    return out


def _values(module: cst.Module, calls: list[Path_], keyword: str) -> list[Path_]:
    """The path to the value of each call's `keyword=` argument (a call passes a keyword once at most)."""
    out = []
    for p in calls:
        call = p[-1]
        assert isinstance(call, cst.Call)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                out.append((*p, arg, arg.value))
    return out


def _equal(module: cst.Module, paths: list[Path_], value: str) -> list[Path_]:
    key = expr_key(value)
    return [p for p in paths if expr_key(code_of(module, p[-1])) == key]


def _set(module: cst.Module, op: SetKeyword, offset: int, undo: bool) -> cst.CSTNode:
    scope = find_scope(module, op.scope, offset)
    old, new = (op.to, op.from_) if undo else (op.from_, op.to)
    calls = _calls(module, scope, op.call)
    values = _values(module, calls, op.keyword)
    what = f"keyword argument `{op.keyword}={old}` of a call to `{op.call}`"
    if undo:
        hit = undo_pick(
            module,
            _equal(module, values, op.from_),
            _equal(module, values, op.to),
            op,
            f"keyword argument `{op.keyword}={op.to}` (the rewrite's `to`) of a call to `{op.call}`",
            op.scope,
            offset,
            cst.parse_expression(expression_text(op.from_)),
        )
    else:
        hit = select(
            module,
            _equal(module, values, old),
            what,
            op.scope,
            op,
            offset,
            lambda: _why(module, scope, op, offset),
            nested=nested_matches(
                module,
                scope,
                op.scope,
                lambda p: _equal(module, _values(module, _calls(module, p, op.call), op.keyword), old),
                offset,
            ),
        )
    value = hit[-1]
    assert isinstance(value, cst.BaseExpression)
    merged = merge(
        value,
        enclosed(cst.parse_expression(expression_text(old))),
        enclosed(cst.parse_expression(expression_text(new))),
    )
    return replace_on_path(hit, merged)


def _why(module: cst.Module, scope: Path_, op: SetKeyword, offset: int) -> Explanation:
    """Why no call passes `keyword=from`: no such call, no such keyword, or another value."""
    calls = _calls(module, scope, op.call)
    if not calls:
        callees: dict[str, cst.CSTNode] = {}  # callee as written -> its first call
        for p in nodes_of(scope, cst.Call):
            callees.setdefault(code_of(module, p[-1].func).strip(), p[-1])  # type: ignore[attr-defined]
        want = op.call.strip()
        same_name = [c for c in callees if c.rsplit(".", 1)[-1] == want.rsplit(".", 1)[-1]]  # Thread, threading.Thread
        close = list(dict.fromkeys([*same_name, *difflib.get_close_matches(want, list(callees), n=3, cutoff=0.6)]))[:3]
        shown = ", ".join(f"`{c}` (line {lines_of(module, [callees[c]], offset)[0]})" for c in close)
        return (
            f"it has no call to `{op.call}`" + (f"; calls with a similar callee: {shown}" if close else ""),
            bool(close),
            "fix `call:`: the callee as the code writes it (`threading.Thread` and `Thread` differ), "
            "in the function or class `scope:` names",
        )
    lines = ", ".join(map(str, lines_of(module, [p[-1] for p in calls], offset)))
    values = _values(module, calls, op.keyword)
    if not values:
        return (
            f"the call(s) to `{op.call}` (line {lines}) pass no keyword argument `{op.keyword}`",
            False,
            "set_keyword changes a keyword argument a call passes; to add one, `replace` the call "
            "(an expression) with the call that passes it",
        )
    have = "; ".join(
        f"line {line}: `{op.keyword}={code_of(module, p[-1]).strip()}`"
        for line, p in zip(lines_of(module, [p[-1] for p in values], offset), values)
    )
    return (
        f"the call(s) to `{op.call}` pass {have}",
        True,
        "fix `from:` to the value the code passes now (AST-compared); if it passes `to` already, this version "
        "may carry the change: check it, and declare it `obsolete:` if so",
    )

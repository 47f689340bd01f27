"""set_keyword: one keyword argument of one call changes value, is added or is taken away.

The call is named by its callee as the code writes it (`threading.Thread`, AST-compared), the
keyword by its name, and the value it has now by `from`: a call whose keyword holds anything else
is not a match. A keyword argument is not an expression (`daemon=True` alone would read as an
assignment statement), so `replace` cannot find one; this operation can, and leaves every other
byte of the call alone.

Without `from`, the match is a call that passes no such keyword, and `keyword=to` is added where a
person puts it: after the call's last keyword argument (before `**kwargs` when it has no other), or
right after the keyword `after` names. Without `to`, the keyword passing `from` is taken away; the
inverse puts it back where it was, so it must sit where an added one would go (else `after` names
the keyword before it). The inverse of each is the other direction, of a change `to` back to `from`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import expression_text
from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Fail, Field, Occurrence, Operation, code_key
from radpatch.registry.touch import Touch, norm
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import MatchFailure, code_of, lines_of, replace_on_path
    from radpatch.rewrite.merge import enclosed, merge
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.call_keywords import added, spread, taken
    from radpatch.rewrite.ops.common.selection import Explanation, nested_matches, select, undo_pick
    from radpatch.rewrite.patterns import expr_key
    from radpatch.rewrite.scopes import find_scope
    from radpatch.rewrite.tree import Path_, nodes_of


@dataclass(frozen=True)
class SetKeyword(Operation):
    """Change one keyword argument of one call in `scope`: in the call to `call` (the callee as the
    code writes it) passing `keyword` with the value `from_`, the value becomes `to`. Without `from`,
    `keyword=to` is added to the call that passes no such keyword; without `to`, it is taken away."""

    scope: str
    call: str
    keyword: str
    from_: str | None = None
    to: str | None = None
    after: str | None = None
    within: str | None = None
    before: str | None = None
    occurrence: Occurrence = None

    KEY: ClassVar[str] = "set_keyword"
    CONSUMES: ClassVar[bool] = True
    ANY_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("from", "to"),)
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        Field("call", "expression", "the callee as the code writes it, AST-compared: `threading.Thread`, `self.run`"),
        Field("keyword", "identifier", "the keyword argument's name, e.g. `daemon`"),
        Field(
            "from",
            "expression",
            "the value the call passes now (AST-compared); a call passing another is no match. Without it the "
            "keyword is added to the call that passes none",
            required=False,
        ),
        Field("to", "expression", "the new value; without it the keyword is taken away", required=False),
        Field(
            "after",
            "identifier",
            "optional, for a keyword added or taken away: the keyword argument it follows; without it an added "
            "keyword goes after the call's last keyword argument (before `**kwargs` when it has no other)",
            required=False,
        ),
        Field(
            "before",
            "identifier",
            "optional, instead of `after`, for a keyword added or taken away: the keyword argument it precedes",
            required=False,
        ),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: EngineCoreProc.__init__\ncall: threading.Thread\nkeyword: daemon\n"
        "from: 'True'\nto: 'False'\noccurrence: 2"
    )

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        for k in ("after", "before"):
            if values.get(k) is not None and values.get("from_") is not None and values.get("to") is not None:
                raise fail(k, f"`{k}:` places a keyword added or taken away; to change a value, leave it out")
            if values.get(k) is not None and values.get(k) == values.get("keyword"):
                raise fail(k, f"`{k}:` names another keyword argument of the call, the one next to this one")
        if values.get("after") is not None and values.get("before") is not None:
            raise fail("before", "give `after:` or `before:`, not both")
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        at = "" if self.after is None else f" after {self.after}"
        at = at if self.before is None else f" before {self.before}"
        if self.from_ is None:
            return f"add {self.keyword}={self.to}{at} to a call to {self.call} in {self.scope}"
        if self.to is None:
            return f"take {self.keyword}={self.from_} from a call to {self.call} in {self.scope}"
        return f"set {self.keyword}={self.to} (was {self.from_}) in a call to {self.call} in {self.scope}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The keyword argument of the call (a node inside a statement another rewrite may take whole)."""
        part = ("keyword", self.call, self.keyword, self.from_ or "")
        says = f"keyword argument `{self.keyword}=` of a call to `{self.call}`"
        key = f"keyword {self.keyword} of {norm(self.call)}"
        return (Touch("node", self.scope, key, part=part, kind="keyword argument", says=says),)

    def match_key(self) -> tuple[object, ...] | None:
        was = None if self.from_ is None else code_key(self.from_)
        return ("keyword", self.scope, code_key(self.call), self.keyword, was, self.within)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=False))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=True))


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


def _edit(module: cst.Module, op: SetKeyword, offset: int, undo: bool) -> cst.CSTNode:
    if op.from_ is None or op.to is None:
        return _toggle(module, op, offset, undo)
    return _set(module, op, offset, undo, op.from_, op.to)


def _set(module: cst.Module, op: SetKeyword, offset: int, undo: bool, was: str, to: str) -> cst.CSTNode:
    scope = find_scope(module, op.scope, offset)
    old, new = (to, was) if undo else (was, to)
    calls = _calls(module, scope, op.call)
    values = _values(module, calls, op.keyword)
    what = f"keyword argument `{op.keyword}={old}` of a call to `{op.call}`"
    if undo:
        hit = undo_pick(
            module,
            _equal(module, values, was),
            _equal(module, values, to),
            op,
            f"keyword argument `{op.keyword}={to}` (the rewrite's `to`) of a call to `{op.call}`",
            op.scope,
            offset,
            cst.parse_expression(expression_text(was)),
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
            "set_keyword with `from:` changes a keyword argument a call passes; to add one, leave `from:` out",
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


# --- a keyword added or taken away -------------------------------------------------------------


def _without(calls: list[Path_], keyword: str) -> list[Path_]:
    """The calls that pass no `keyword=` argument, nor the keyword through a `**` dict display
    (`**{"daemon": True}`, `**dict(daemon=True)`): adding it there would pass it twice."""
    return [
        p
        for p in calls
        if not any(a.keyword is not None and a.keyword.value == keyword for a in _args(p[-1]))
        and spread(p[-1], keyword) is None  # type: ignore[arg-type]
    ]


def _passing(module: cst.Module, calls: list[Path_], keyword: str, value: str) -> list[Path_]:
    """The calls passing `keyword=value` (AST-compared)."""
    return [p[:-2] for p in _equal(module, _values(module, calls, keyword), value)]


def _args(node: cst.CSTNode) -> tuple[cst.Arg, ...]:
    assert isinstance(node, cst.Call)
    return tuple(node.args)


def _toggle(module: cst.Module, op: SetKeyword, offset: int, undo: bool) -> cst.CSTNode:
    """Add `keyword=to` to the call passing none (no `from`), or take `keyword=from` away (no `to`);
    undone, the other way round."""
    scope = find_scope(module, op.scope, offset)
    value = op.to if op.from_ is None else op.from_
    assert value is not None  # the loader requires `from` or `to`
    adding = (op.from_ is None) != undo

    def found(p: Path_) -> tuple[list[Path_], list[Path_]]:
        """The calls in `p` passing no such keyword, and those passing it with the value."""
        calls = _calls(module, p, op.call)
        return _without(calls, op.keyword), _passing(module, calls, op.keyword, value)

    def flip(call: cst.CSTNode, line: int = 0) -> cst.Call:
        assert isinstance(call, cst.Call)
        return added(call, op, value, line) if adding else taken(call, op, line, check=not undo)

    missing, passing = found(scope)
    lacking = f"a call to `{op.call}` passing no keyword argument `{op.keyword}`"
    giving = f"keyword argument `{op.keyword}={value}` of a call to `{op.call}`"
    if undo:
        hits, results = (passing, missing) if adding else (missing, passing)
        said = f"{lacking} (the rewrite took it)" if adding else f"{giving} (the rewrite's `to`)"
        hit = undo_pick(module, hits, results, op, said, op.scope, offset, None, lambda h: _or_same(flip, h[-1]))
    else:
        why = (lambda: _why_passed(module, scope, op, offset)) if adding else (lambda: _why(module, scope, op, offset))
        inner = nested_matches(module, scope, op.scope, lambda p: found(p)[0 if adding else 1], offset)
        hit = select(
            module,
            missing if adding else passing,
            lacking if adding else giving,
            op.scope,
            op,
            offset,
            why,
            nested=inner,
        )
    return replace_on_path(hit, flip(hit[-1], lines_of(module, [hit[-1]], offset)[0]))


def _or_same(flip: Callable[[cst.CSTNode], cst.CSTNode], call: cst.CSTNode) -> cst.CSTNode:
    """The call as it was before the rewrite, for judging `within:`; itself where it cannot be."""
    try:
        return flip(call)
    except MatchFailure:
        return call


def _why_passed(module: cst.Module, scope: Path_, op: SetKeyword, offset: int) -> Explanation:
    """Why no call to add the keyword to: none, or every one passes it already."""
    calls = _calls(module, scope, op.call)
    if not calls:
        return (f"it has no call to `{op.call}`", False, "fix `call:`: the callee as the code writes it")
    values = _values(module, calls, op.keyword)
    spreads = [(p, v) for p in calls if (v := spread(p[-1], op.keyword)) is not None]  # type: ignore[arg-type]
    said = [
        *(
            (line, f"`{op.keyword}={code_of(module, p[-1]).strip()}`")
            for line, p in zip(lines_of(module, [p[-1] for p in values], offset), values)
        ),
        *(
            (line, f"`{op.keyword}` through `**` (`{op.keyword}: {code_of(module, v).strip()}`)")
            for line, (_, v) in zip(lines_of(module, [p[-1] for p, _ in spreads], offset), spreads)
        ),
    ]
    have = "; ".join(f"line {line}: {text}" for line, text in sorted(said))
    return (
        f"every call to `{op.call}` passes `{op.keyword}` already ({have})",
        True,
        "to change the value a call passes, give `from:` with it; if it passes `to` already, this version may "
        "carry the change: check it, and declare it `obsolete:` if so",
    )

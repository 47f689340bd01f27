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

`call_occurrence: N` picks the N-th call to the callee, whatever it passes, where `occurrence:`
(counting the calls that match) leaves the inverse unable to tell the call from another passing no
such keyword.

With `header:`, the calls looked among are those in the header of the definition `scope` names (its
decorators, or its parameters' defaults), which run where the definition is made: `scope: f`,
`header: decorators` finds the `lru_cache(...)` of `@functools.lru_cache(maxsize=8) def f`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import expression_text
from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Fail, Field, Occurrence, Operation, code_key
from radpatch.registry.touch import Touch, norm
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import replace_on_path
    from radpatch.rewrite.merge import enclosed, merge
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.bound_literal import refuse_later_keyword
    from radpatch.rewrite.ops.common.keyword_callee import Own, module_callees
    from radpatch.rewrite.ops.common.keyword_calls import calls, equal, values, why_not
    from radpatch.rewrite.ops.common.keyword_headers import or_in_headers
    from radpatch.rewrite.ops.common.keyword_toggle import toggle
    from radpatch.rewrite.ops.common.selection import nested_matches, select, undo_pick
    from radpatch.rewrite.scopes import find_scope


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
    header: str | None = None
    call_occurrence: int | None = None

    KEY: ClassVar[str] = "set_keyword"
    PROVES_LATER: ClassVar[bool] = True
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
        Field(
            "header",
            "choice",
            "optional: look in the header of the definition `scope` names instead of its body: `decorators` (the "
            "calls in its decorators, `@lru_cache(maxsize=8)`) or `defaults` (in its parameters' defaults, "
            "`x=field(default=1)`)",
            required=False,
            choices=("decorators", "defaults"),
        ),
        Field(
            "call_occurrence",
            "index",
            "optional, for a keyword added or taken away, instead of `occurrence:`: the n-th call to `call` in the "
            "scope (or its `header:`) from 1 in source order, whatever it passes; the inverse gives the keyword "
            "back to (or takes it from) that call, where calls passing none look alike",
            required=False,
        ),
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
        if values.get("header") is not None and values.get("scope") == "<module>":
            raise fail("header", "`header:` looks in a definition's header: name the function or class in `scope:`")
        if values.get("call_occurrence") is not None:
            if values.get("from_") is not None and values.get("to") is not None:
                raise fail(
                    "call_occurrence",
                    "`call_occurrence:` picks the call a keyword is added to or taken from; "
                    "to change a value, pick the call with `occurrence:`",
                )
            for k in ("occurrence", "within"):
                if values.get(k) is not None:
                    raise fail(k, f"give `{k}:` or `call_occurrence:`, not both")
        if values.get("after") is not None and values.get("before") is not None:
            raise fail("before", "give `after:` or `before:`, not both")
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        at = "" if self.after is None else f" after {self.after}"
        at = at if self.before is None else f" before {self.before}"
        where = self.scope if self.header is None else f"the {self.header} of {self.scope}"
        which = "a call" if self.call_occurrence is None else f"call {self.call_occurrence}"
        if self.from_ is None:
            return f"add {self.keyword}={self.to}{at} to {which} to {self.call} in {where}"
        if self.to is None:
            return f"take {self.keyword}={self.from_} from {which} to {self.call} in {where}"
        return f"set {self.keyword}={self.to} (was {self.from_}) in a call to {self.call} in {where}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The keyword argument of the call (a node inside a statement another rewrite may take whole).
        With `call_occurrence:` the call is named: two such rewrites of different calls (numbers counted
        alike, whatever the calls pass, and no set_keyword adds or removes a call) are apart; one picked
        otherwise may be any call, and meets them all."""
        part = ("keyword", self.call, self.keyword, self.from_ or "")
        which = "a call" if self.call_occurrence is None else f"call {self.call_occurrence}"
        says = f"keyword argument `{self.keyword}=` of {which} to `{self.call}`"
        key = f"keyword {self.keyword} of {norm(self.call)}"
        # in the definition's header, beside its body: inside its decorator list (replace_decorator's node),
        # or inside one parameter's default, which it does not name: any `default of P` (set_default's)
        inside = self.header or ""
        if self.header is not None:
            says += f" in the {self.header} of `{self.scope}`"
            key += f" in {self.header}"
        # prove.overlaps.touching compares two touches of one `same` by their `occurrence` numbers
        same = "" if self.call_occurrence is None else f"{key} by call"
        return (
            Touch(
                "node",
                self.scope,
                key,
                part=part,
                kind="keyword argument",
                says=says,
                inside=inside,
                beside_body=self.header is not None,
                same=same,
                occurrence=self.call_occurrence,
            ),
        )

    def match_key(self) -> tuple[object, ...] | None:
        was = None if self.from_ is None else code_key(self.from_)
        return (
            "keyword",
            self.scope,
            code_key(self.call),
            self.keyword,
            was,
            self.within,
            self.header,
            self.call_occurrence,
        )

    def forward(self, src: Source) -> Source:
        load(__name__)
        own = module_callees(src) if self.from_ is None else None
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=False, own=own))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=True))


def _edit(module: cst.Module, op: SetKeyword, offset: int, undo: bool, own: Own | None = None) -> cst.CSTNode:
    if op.from_ is None or op.to is None:
        return toggle(module, op, offset, undo, own)
    return _set(module, op, offset, undo, op.from_, op.to)


def _set(module: cst.Module, op: SetKeyword, offset: int, undo: bool, was: str, to: str) -> cst.CSTNode:
    scope = find_scope(module, op.scope, offset)
    old, new = (to, was) if undo else (was, to)
    found = values(module, calls(module, scope, op.call, op.header), op.keyword)
    what = f"keyword argument `{op.keyword}={old}` of a call to `{op.call}`"
    if undo:
        hit = undo_pick(
            module,
            equal(module, found, was),
            equal(module, found, to),
            op,
            f"keyword argument `{op.keyword}={to}` (the rewrite's `to`) of a call to `{op.call}`",
            op.scope,
            offset,
            cst.parse_expression(expression_text(was)),
        )
    else:
        why = lambda: why_not(module, scope, op, offset)  # noqa: E731
        if op.header is None:  # the call is looked for in the body: say where else it is
            why = or_in_headers(module, scope, op.scope, op, offset, lambda c, _: _changed(c, op, old, new), why)
        hit = select(
            module,
            equal(module, found, old),
            what,
            op.scope,
            op,
            offset,
            why,
            nested=nested_matches(
                module,
                scope,
                op.scope,
                lambda p: equal(module, values(module, calls(module, p, op.call, op.header), op.keyword), old),
                offset,
            ),
        )
    if not undo and op.header is None:
        refuse_later_keyword(module, op.scope, offset, hit, op.keyword)
    value = hit[-1]
    assert isinstance(value, cst.BaseExpression)
    merged = merge(
        value,
        enclosed(cst.parse_expression(expression_text(old))),
        enclosed(cst.parse_expression(expression_text(new))),
    )
    return replace_on_path(hit, merged)


def _changed(call: cst.Call, op: SetKeyword, old: str, new: str) -> cst.Call | None:
    """The call in a definition's header with `keyword=new`, if it passes `keyword=old`."""
    hits = equal(cst.Module([]), values(cst.Module([]), [(call,)], op.keyword), old)
    if not hits:
        return None
    value = hits[0][-1]
    return call.deep_replace(value, enclosed(cst.parse_expression(expression_text(new))))  # type: ignore[return-value]

"""A keyword argument added to a call or taken from it, in the call's layout (set_keyword without
`from:` or `to:`): where a new one goes (`place`), the call with it (`added`), and without it
(`taken`, which refuses a keyword its inverse would put back elsewhere)."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from radpatch.registry.code import expression_text
from radpatch.rewrite import commas
from radpatch.rewrite.matching import MatchFailure, NotFound, Shown
from radpatch.rewrite.merge import enclosed


class KeywordOp(Protocol):
    @property
    def call(self) -> str: ...

    @property
    def keyword(self) -> str: ...

    @property
    def after(self) -> str | None: ...

    @property
    def before(self) -> str | None: ...


def spread(call: cst.Call, keyword: str) -> cst.BaseExpression | None:
    """The value `keyword` gets through a `**` argument written as a dict display or `dict(...)` call
    (`f(**{"x": 1})`, `f(**dict(x=1))`): a keyword the call passes already, though not as `x=`."""
    for arg in call.args:
        if arg.star != "**":
            continue
        value = arg.value
        if isinstance(value, cst.Dict):
            for el in value.elements:
                if isinstance(el, cst.DictElement) and _string(el.key) == keyword:
                    return el.value
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
            for a in value.args:
                if a.keyword is not None and a.keyword.value == keyword:
                    return a.value
    return None


def _string(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal (`"x"`, `'x'`), else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        text = node.evaluated_value  # None for a concatenation with an f-string piece
        return text if isinstance(text, str) else None
    return None


def place(args: tuple[cst.Arg, ...], after: str | None, before: str | None = None) -> int | None:
    """Where a new keyword argument goes among `args`: right after the keyword `after`, or right
    before the keyword `before` (None when the call passes no such keyword), else after the last
    keyword argument, else before the first `**mapping`, else at the end."""
    named = [i for i, a in enumerate(args) if a.keyword is not None]
    if after is not None:
        return next((i + 1 for i in named if args[i].keyword.value == after), None)  # type: ignore[union-attr]
    if before is not None:
        return next((i for i in named if args[i].keyword.value == before), None)  # type: ignore[union-attr]
    if named:
        return named[-1] + 1
    return next((i for i, a in enumerate(args) if a.star == "**"), len(args))


def added(call: cst.Call, op: KeywordOp, value: str, line: int | Shown) -> cst.Call:
    """The call with `op.keyword=value` put where `place` says."""
    at = place(tuple(call.args), op.after, op.before)
    if at is None:
        key = "after" if op.after is not None else "before"
        raise NotFound(
            f"the call to `{op.call}` at line {line} passes no keyword argument `{op.after or op.before}` (`{key}:`)",
            f"fix `{key}:` to a keyword argument the call passes, or leave it out to add the keyword after the "
            "call's last one",
        )
    # as the call's other keywords write it (`a = 1` or `a=1`), else `a=1`
    bare = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    equal = next((a.equal for a in call.args if isinstance(a.equal, cst.AssignEqual)), bare)
    arg = cst.Arg(enclosed(cst.parse_expression(expression_text(value))), keyword=cst.Name(op.keyword), equal=equal)
    args = commas.insert(list(call.args), at, arg, call.whitespace_before_args)
    # a generator expression alone in a call borrows its parentheses: beside another argument it needs its own
    args = [
        a.with_changes(value=a.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        if isinstance(a.value, cst.GeneratorExp) and not a.value.lpar
        else a
        for a in args
    ]
    return call.with_changes(args=args)


def taken(call: cst.Call, op: KeywordOp, line: int | Shown, check: bool) -> cst.Call:
    """The call without its `keyword=` argument; with `check`, only where the inverse would put it
    back (after `after`, or where an added keyword goes), so that undoing it gives the call back."""
    args = tuple(call.args)
    i = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == op.keyword)
    rest = tuple(commas.remove(list(args), i))
    if check and place(rest, op.after, op.before) != i:
        before = args[i - 1].keyword if i else None
        then = args[i + 1].keyword if i + 1 < len(args) else None
        where = f"it follows `{before.value}=`" if before is not None else "no keyword argument comes before it"
        fix = (
            f"write `after: {before.value}`, the keyword argument it follows"
            if before is not None
            else f"write `before: {then.value}`, the keyword argument that follows it"
            if then is not None
            else "`replace` the call instead"
        )
        said = (
            f"not after `{op.after}=`"
            if op.after
            else f"not before `{op.before}=`"
            if op.before
            else "not after the call's last keyword argument"
        )
        raise MatchFailure(
            f"`{op.keyword}=` of the call to `{op.call}` at line {line} is {said} ({where}): undoing the rewrite "
            "would put it back elsewhere",
            fix,
        )
    if not check and len(rest) == 1 and isinstance(rest[0].value, cst.GeneratorExp) and len(rest[0].value.lpar) == 1:
        # undoing an added keyword: a generator expression alone again shares the call's parentheses
        rest = (rest[0].with_changes(value=rest[0].value.with_changes(lpar=[], rpar=[])),)
    return call.with_changes(args=rest)

"""The display add_element / remove_element change when it is an argument of a call, not bound to a
name (`parser.add_argument("--x", choices=["a", "b"])`): the call is named as set_keyword names it
(its callee as the code writes it, AST-compared; `within:` and `occurrence:` tell calls of one
callee apart), the argument by its keyword (`keyword: choices`) or its position (`argument: 1`,
the first positional argument). The calls passing that argument are the matches, whatever their
display holds, so the edit leaves the same matches for the inverse to count."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from radpatch.registry.call_address import CallAddress
from radpatch.rewrite.matching import MatchFailure, code_of, lines_of
from radpatch.rewrite.ops.common.keyword_calls import calls, why_not
from radpatch.rewrite.ops.common.no_match import Explanation
from radpatch.rewrite.ops.common.selection import nested_matches, select
from radpatch.rewrite.ops.common.within_clause import within_key
from radpatch.rewrite.scopes import find_scope
from radpatch.rewrite.tree import Path_


class CallArgumentOp(CallAddress, Protocol):
    @property
    def scope(self) -> str: ...


def argument_said(op: CallArgumentOp) -> str:
    """`choices=` or `positional argument 1` (how messages and describe name the argument)."""
    return f"`{op.keyword}=`" if op.keyword is not None else f"positional argument {op.argument}"


def _argument(path: Path_, op: CallArgumentOp) -> Path_ | None:
    """The path to the call's argument value `op` names, if the call passes it."""
    call = path[-1]
    assert isinstance(call, cst.Call)
    if op.keyword is not None:
        return next(
            ((*path, a, a.value) for a in call.args if a.keyword is not None and a.keyword.value == op.keyword), None
        )
    assert op.argument is not None  # call_display checked it
    positional = [a for a in call.args if a.keyword is None and not a.star]
    n = op.argument
    if len(positional) < n:
        return None
    a = positional[n - 1]
    if any(b.star == "*" for b in call.args[: call.args.index(a)]):
        return None  # a `*` argument before it: which position it fills depends on how the code runs
    return (*path, a, a.value)


def call_display(
    module: cst.Module,
    op: CallArgumentOp,
    offset: int,
    kinds: tuple[type[cst.BaseExpression], ...],
    shape: str,
    key: str,
) -> Path_:
    """The path to the display (one of `kinds`) passed as `op`'s argument of the one call `op` means
    in its scope; the call path's node is `path[-3]`. `shape` names the display as messages say it;
    `key` the operation."""
    if op.call is None or (op.keyword is None) == (op.argument is None):  # the loader refuses it (call_address)
        raise MatchFailure(
            f"{key} names its literal by `name:`, or by `call:` with one of `keyword:` or `argument:`",
            "give one of them",
        )
    if op.within is not None and within_key(op.within)[0] == "stmt":
        # the statement holding the call holds the literal too: once changed, the inverse finds it no more
        raise MatchFailure(
            f"{key} with `call:` takes a `within:` that is an enclosing block's header (`for x in xs:`), not the "
            "statement holding the call, which the rewrite changes",
            "pick the call among those to the callee by `occurrence:` (counted in the installed file's order)",
        )
    scope = find_scope(module, op.scope, offset)
    said = argument_said(op)

    def passing(p: Path_) -> list[Path_]:
        return [h for h in (_argument(c, op) for c in calls(module, p, op.call or "")) if h]

    hit = select(
        module,
        passing(scope),
        f"{said} of a call to `{op.call}`",
        op.scope,
        op,
        offset,
        lambda: _why_not(module, scope, op, offset),
        nested=nested_matches(module, scope, op.scope, passing, offset),
    )
    if not isinstance(hit[-1], kinds):
        line = lines_of(module, [hit[-3]], offset)[0]
        raise MatchFailure(
            f"the call to `{op.call}` (line {line}) passes {said} "
            f"{code_of(module, hit[-1]).strip()[:60]}, not `{shape}",
            f"{key} changes an element of such a display; change this code with a `replace` or `set_keyword` rewrite",
        )
    return hit


class _Asked:
    """set_keyword's question, for its explanation of a call that is not there."""

    def __init__(self, call: str, keyword: str) -> None:
        self.call, self.keyword, self.from_ = call, keyword, None


def _why_not(module: cst.Module, scope: Path_, op: CallArgumentOp, offset: int) -> Explanation:
    """No call to the callee (set_keyword's words, with the callees that look alike), or calls that
    do not pass the argument."""
    assert op.call is not None
    found = calls(module, scope, op.call)
    if not found:
        return why_not(module, scope, _Asked(op.call, op.keyword or ""), offset)
    lines = ", ".join(map(str, lines_of(module, [p[-1] for p in found], offset)))
    fix = "fix `keyword:`: the keyword argument" if op.keyword else "fix `argument:`: the positional argument"
    return (
        f"the call(s) to `{op.call}` (line {lines}) pass no {argument_said(op)}",
        False,
        f"{fix} that holds the display, as the call passes it",
    )

"""set_keyword without `from:` (a keyword added to the call passing none) or without `to:` (taken
from the call passing it with the value): the call chosen among those, the edit made in the call's
layout (`call_keywords`), and its inverse. A keyword taken from one call while another call to the
callee passes none either leaves two calls the inverse cannot tell apart: refused, naming the
`within:` that does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import libcst as cst

from radpatch.rewrite.matching import (
    Ambiguous,
    MatchFailure,
    NotFound,
    Shown,
    code_of,
    lines_of,
    replace_on_path,
    shown_line,
)
from radpatch.rewrite.ops.common.bound_literal import refuse_later_keyword
from radpatch.rewrite.ops.common.call_keywords import KeywordOp, added, spread, taken
from radpatch.rewrite.ops.common.keyword_callee import Own, refuse_passed_by_position
from radpatch.rewrite.ops.common.keyword_calls import calls, equal, values, why_not
from radpatch.rewrite.ops.common.keyword_headers import or_in_headers
from radpatch.rewrite.ops.common.match_probe import picked
from radpatch.rewrite.ops.common.no_match import Explanation
from radpatch.rewrite.ops.common.selection import Selecting, nested_matches, select, undo_pick
from radpatch.rewrite.ops.common.within_clause import is_within
from radpatch.rewrite.scopes import find_scope
from radpatch.rewrite.tree import Path_


class ToggleOp(KeywordOp, Selecting, Protocol):
    @property
    def scope(self) -> str: ...

    @property
    def from_(self) -> str | None: ...

    @property
    def to(self) -> str | None: ...


def _without(found: list[Path_], keyword: str) -> list[Path_]:
    """The calls that pass no `keyword=` argument, nor the keyword through a `**` dict display
    (`**{"daemon": True}`, `**dict(daemon=True)`): adding it there would pass it twice."""
    return [
        p
        for p in found
        if not any(a.keyword is not None and a.keyword.value == keyword for a in _args(p[-1]))
        and spread(p[-1], keyword) is None  # type: ignore[arg-type]
    ]


def _passing(module: cst.Module, found: list[Path_], keyword: str, value: str) -> list[Path_]:
    """The calls passing `keyword=value` (AST-compared)."""
    return [p[:-2] for p in equal(module, values(module, found, keyword), value)]


def _args(node: cst.CSTNode) -> tuple[cst.Arg, ...]:
    assert isinstance(node, cst.Call)
    return tuple(node.args)


def toggle(module: cst.Module, op: ToggleOp, offset: int, undo: bool, own: Own | None = None) -> cst.CSTNode:
    """Add `keyword=to` to the call passing none (no `from`), or take `keyword=from` away (no `to`);
    undone, the other way round. `own` says what the module's own names stand for: a keyword is not
    added to a call of the module's own function that passes it by position (keyword_callee)."""
    scope = find_scope(module, op.scope, offset)
    value = op.to if op.from_ is None else op.from_
    assert value is not None  # the loader requires `from` or `to`
    adding = (op.from_ is None) != undo

    def found(p: Path_) -> tuple[list[Path_], list[Path_]]:
        """The calls in `p` passing no such keyword, and those passing it with the value."""
        at = calls(module, p, op.call, getattr(op, "header", None))
        return _without(at, op.keyword), _passing(module, at, op.keyword, value)

    def flip(call: cst.CSTNode, line: int | Shown = 0) -> cst.Call:
        assert isinstance(call, cst.Call)
        return added(call, op, value, line) if adding else taken(call, op, line, check=not undo)

    missing, passing = found(scope)
    nth = getattr(op, "call_occurrence", None)
    if nth is not None:  # the n-th call to the callee, whatever it passes: its inverse finds it again
        hit = _nth_call(module, op, scope, (missing, passing) if adding else (passing, missing), nth, undo, offset)
        return replace_on_path(hit, flip(hit[-1], lines_of(module, [hit[-1]], offset)[0]))
    lacking = f"a call to `{op.call}` passing no keyword argument `{op.keyword}`"
    giving = f"keyword argument `{op.keyword}={value}` of a call to `{op.call}`"
    if undo:
        hits, results = (passing, missing) if adding else (missing, passing)
        said = f"{lacking} (the rewrite took it)" if adding else f"{giving} (the rewrite's `to`)"
        try:
            hit = undo_pick(module, hits, results, op, said, op.scope, offset, None, lambda h: _or_same(flip, h[-1]))
        except Ambiguous as exc:
            if not adding:
                raise
            raise Ambiguous(f"{exc}; {UNTOLD}: {UNTOLD_HINT}", UNTOLD_HINT) from None
    else:
        why = (lambda: _why_passed(module, scope, op, offset)) if adding else lambda: why_not(module, scope, op, offset)
        if getattr(op, "header", None) is None:  # the call is looked for in the body: say where else it is
            why = or_in_headers(
                module, scope, op.scope, op, offset, lambda c, line: _header_flip(c, op, value, line), why
            )
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
        if not adding:
            every = calls(module, scope, op.call, getattr(op, "header", None))
            _refuse_untold(module, op, value, hit, missing, offset, 1 + [p[-1] for p in every].index(hit[-1]))
        else:
            refuse_passed_by_position(module, hit, op.keyword, own, offset)
        if getattr(op, "header", None) is None:  # a later `T.daemon = ...` may undo the keyword added or taken
            refuse_later_keyword(module, op.scope, offset, hit, op.keyword, "add" if adding else "remove")
    return replace_on_path(hit, flip(hit[-1], shown_line(module, hit[-1], offset)))


UNTOLD = (
    "a call the keyword was taken from is like the calls that never passed it (`occurrence:` counts the calls "
    "passing it, so it does not tell them apart)"
)
UNTOLD_HINT = (
    "write `within:` naming the statement the call is in (as it reads before the change) to tell it apart, or "
    "`call_occurrence:` instead of `occurrence:` (the call's number among every call to the callee)"
)


def _nth_call(
    module: cst.Module, op: ToggleOp, scope: Path_, hits: tuple[list[Path_], list[Path_]], nth: int, undo: bool, at: int
) -> Path_:
    """The `nth` call to the callee in the scope (`call_occurrence:`), if it is among `hits[0]`
    (the calls the edit changes), else the refusal that says what it passes."""
    header = getattr(op, "header", None)
    every = calls(module, scope, op.call, header)
    where = op.scope if header is None else f"the {header} of {op.scope}"
    lines = lines_of(module, [p[-1] for p in every], at)
    if nth > len(every):
        shown = f" (lines {', '.join(map(str, lines))})" if every else ""
        raise NotFound(
            f"`call_occurrence: {nth}`: {where} has {len(every)} call(s) to `{op.call}`{shown}",
            f"`call_occurrence:` counts the calls to `{op.call}` from 1 in source order: pick one of 1..{len(every)}"
            if every
            else "fix `call:`: the callee as the code writes it",
        )
    call = every[nth - 1][-1]
    chosen = [p for p in hits[0] if p[-1] is call]
    if chosen:
        return chosen[0]
    value = op.to if op.from_ is None else op.from_
    adds = (op.from_ is None) != undo
    has = f"passes `{op.keyword}` already" if adds else f"does not pass `{op.keyword}={value}`"
    raise NotFound(
        f"call {nth} to `{op.call}` in {where} (line {lines[nth - 1]}) {has}"
        + (" (the rewrite's result is not there)" if undo else ""),
        "check `call_occurrence:`: it counts every call to the callee, from 1 in source order",
    )


def _header_flip(call: cst.Call, op: ToggleOp, value: str, line: int) -> cst.Call | None:
    """The call in a definition's header as the rewrite would leave it, if it is one it changes."""
    if op.from_ is None:
        return added(call, op, value, line) if _without([(call,)], op.keyword) else None
    return taken(call, op, line, check=False) if _passing(cst.Module([]), [(call,)], op.keyword, value) else None


def _refuse_untold(
    module: cst.Module, op: ToggleOp, value: str, hit: Path_, missing: list[Path_], offset: int, nth: int
) -> None:
    """Taking `keyword=value` from the call at `hit` (the `nth` call to the callee) leaves it passing
    none, as the calls `missing` do: when its inverse (without `occurrence:`) would choose among
    them, refuse, and say the `within:` that tells the call apart (the statement it is in as the code
    reads now), else the `call_occurrence:` that does."""
    if op.occurrence is not None or picked():
        return  # a run of `occurrence:`s is undone by its place among them (rewrite.runner)

    def put_back(call: cst.CSTNode) -> cst.CSTNode:
        try:
            return added(call, op, value, 0)  # type: ignore[arg-type]
        except MatchFailure:
            return call

    others = [p for p in missing if not op.within or is_within(module, p, op.within, put_back(p[-1]))]
    if not others:
        return
    line = lines_of(module, [hit[-1]], offset)[0]
    lines = ", ".join(map(str, lines_of(module, [p[-1] for p in others], offset)))
    statement = _statement(module, hit)
    tells = statement is not None and not any(is_within(module, p, statement, put_back(p[-1])) for p in others)
    hint = (
        f"write `within: {statement}` (the statement the call is in) to tell it apart"
        if tells
        else f"no `within:` tells the calls apart (their statements are alike): write `call_occurrence: {nth}` (the "
        f"call's number among the calls to `{op.call}`, whatever they pass)"
    )
    # a take-away a later rewrite undoes with another value (a changed value, said as two steps)
    hint += (
        f"; if a later rewrite gives this call `{op.keyword}=` back with a new value, write the two as one "
        f"set_keyword with `from: {value}` and `to:` that value (it changes the value in place)"
    )
    raise Ambiguous(
        f"taking `{op.keyword}={value}` from the call to `{op.call}` at line {line} leaves it like the call(s) at "
        f"line {lines}, which pass no `{op.keyword}` either: undoing the rewrite could not tell which to give it "
        "back to (`occurrence:` counts the calls passing it, so it does not tell them apart either)",
        hint,
    )


def _statement(module: cst.Module, path: Path_) -> str | None:
    """The one-line statement (or compound statement's header) the node at `path` is in, as written."""
    for node in reversed(path[:-1]):
        if isinstance(node, cst.SimpleStatementLine):
            text = code_of(module, node.with_changes(leading_lines=())).strip()
            return text if "\n" not in text and "#" not in text else None
        if isinstance(node, cst.BaseCompoundStatement):
            header = code_of(module, node.with_changes(leading_lines=())).split("\n", 1)[0].strip()
            return header if header.endswith(":") and "#" not in header else None
    return None


def _or_same(flip: Callable[[cst.CSTNode], cst.CSTNode], call: cst.CSTNode) -> cst.CSTNode:
    """The call as it was before the rewrite, for judging `within:`; itself where it cannot be."""
    try:
        return flip(call)
    except MatchFailure:
        return call


def _why_passed(module: cst.Module, scope: Path_, op: ToggleOp, offset: int) -> Explanation:
    """Why no call to add the keyword to: none, or every one passes it already."""
    found = calls(module, scope, op.call, getattr(op, "header", None))
    if not found:
        return (f"it has no call to `{op.call}`", False, "fix `call:`: the callee as the code writes it")
    passed = values(module, found, op.keyword)
    spreads = [(p, v) for p in found if (v := spread(p[-1], op.keyword)) is not None]  # type: ignore[arg-type]
    said = [
        *(
            (line, f"`{op.keyword}={code_of(module, p[-1]).strip()}`")
            for line, p in zip(lines_of(module, [p[-1] for p in passed], offset), passed)
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
        "to change the value a call passes, give `from:` with it"
        + ("" if not spreads else " (one passed through `**` is changed with `replace` of the call)")
        + "; if it passes `to` already, this version may carry the change: check it, and declare it `obsolete:` if so",
    )

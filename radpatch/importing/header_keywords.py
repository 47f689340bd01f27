"""A keyword argument of a call in a definition's header (`@lru_cache(maxsize=8)` -> `maxsize=16`, a
parameter's default `field(default=1)` -> `field(default=2)`), as the importer says it: one
`set_keyword` with `header: decorators` (or `defaults`) per keyword changed, added or taken away,
instead of a `replace_decorator` or `set_default` of the whole expression. Said where the call
is the header's one call to its callee, before and after the patch (so each step finds it once,
and its inverse too), or picked among the header's calls to it: a keyword added or taken away by
the call's number among them (`call_occurrence:`), a value by `occurrence:` counted within the
header; else None, and the wider rewrite stays."""

from __future__ import annotations

import ast
from typing import Literal

from radpatch.importing import keyword_series
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.keywords import KeywordChange, KeywordToggle, keyword_changes, keyword_toggle
from radpatch.importing.statements import Sources, loose_key, segment

Header = Literal["decorators", "defaults"]


def header_keyword_steps(
    src: Sources, qual: str, header: Header, old: list[ast.expr], new: list[ast.expr], d: ast.expr, e: ast.expr
) -> list[ImportStep] | None:
    """The set_keyword steps turning the header expression `d` (one of `old`, the definition's
    decorators or defaults before the patch) into `e` (one of `new`, after it), or None."""
    changes: list[KeywordChange | KeywordToggle] = list(keyword_changes(d, e))
    if not changes:
        toggle = keyword_toggle(d, e)
        if toggle is not None:
            changes = [toggle]
        else:
            cur: ast.AST = d
            for target in keyword_series.steps(d, e):  # type: ignore[arg-type]
                one = keyword_changes(cur, target)
                step = one[0] if len(one) == 1 else keyword_toggle(cur, target)
                if step is None:
                    return None
                changes.append(step)
                cur = target
    if not changes:
        return None
    picks = _picks(changes, old, new)
    if picks is None:
        return None
    steps = [_step(src, qual, header, c, pick) for c, pick in zip(changes, picks)]
    return None if None in steps else [s for s in steps if s is not None]


Pick = tuple[str, int] | None  # ("occurrence" or "call_occurrence", n), or None: the header's one call


def _picks(changes: list[KeywordChange | KeywordToggle], old: list[ast.expr], new: list[ast.expr]) -> list[Pick] | None:
    """How each step picks its call among the header's calls to the callee (the same call for
    every step): nothing where it is the one; else a keyword added or taken away by the call's
    number among them (`call_occurrence:`, which its inverse finds again whatever the other calls
    pass), a value by its number among the calls passing the old value (`occurrence:`, where no
    other call passes the new one, which its inverse would take for the result). None where the
    patch changes another call to the callee in the header too."""
    call = changes[0].call
    was, now = _header_calls(old, call), _header_calls(new, call)
    if len(was) != len(now) or not any(c is call for c in was):
        return None
    at = next(i for i, c in enumerate(was) if c is call)
    if any(loose_key(b) != loose_key(a) for j, (b, a) in enumerate(zip(was, now)) if j != at):
        return None
    if len(was) == 1:
        return [None] * len(changes)
    out: list[Pick] = []
    for c in changes:
        if isinstance(c, KeywordToggle):
            out.append(("call_occurrence", at + 1))
            continue
        old_value, new_value = loose_key(c.old), loose_key(c.new)
        others = [_passed(x, c.name) for j, x in enumerate(was) if j != at]
        if new_value in others:
            return None
        out.append(("occurrence", 1 + sum(1 for j, x in enumerate(was[:at]) if _passed(x, c.name) == old_value)))
    return out


def _header_calls(exprs: list[ast.expr], call: ast.Call) -> list[ast.Call]:
    """The calls to `call`'s callee in the header's expressions, in source order."""
    callee = loose_key(call.func)
    found = [n for x in exprs for n in ast.walk(x) if isinstance(n, ast.Call) and loose_key(n.func) == callee]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _passed(call: ast.Call, name: str) -> str | None:
    """The key of the value `call` passes as `name=`, or None."""
    return next((loose_key(k.value) for k in call.keywords if k.arg == name), None)


def _step(src: Sources, qual: str, header: Header, c: KeywordChange | KeywordToggle, pick: Pick) -> ImportStep | None:
    callee = segment(src, c.call.func)
    if callee is None:
        return None
    keys: list[tuple[str, Value]] = [("scope", qual), ("call", callee), ("keyword", c.name)]
    if isinstance(c, KeywordChange):
        old, new = segment(src, c.old), segment(src, c.new)
        if old is None or new is None:
            return None
        keys += [("from", old), ("to", new)]
    else:
        value = segment(src, c.value)
        if value is None:
            return None
        keys.append(("to", value) if c.added else ("from", value))
        keys += [(k, v) for k, v in (("after", c.after), ("before", c.before)) if v is not None]
    keys.append(("header", header))
    if pick is not None:
        keys.append(pick)
    return ImportStep("set_keyword", tuple(keys))

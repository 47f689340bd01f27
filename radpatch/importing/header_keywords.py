"""A keyword argument of a call in a definition's header (`@lru_cache(maxsize=8)` -> `maxsize=16`, a
parameter's default `field(default=1)` -> `field(default=2)`), as the importer says it: one
`set_keyword` with `header: decorators` (or `defaults`) per keyword changed, added or taken away,
instead of a `replace_decorator` or `set_default` of the whole expression. Said only where the call
is the header's one call to its callee, before and after the patch (so each step finds it once,
and its inverse too); else None, and the wider rewrite stays."""

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
    if not changes or not _alone(changes[0].call, old, new):
        return None
    steps = [_step(src, qual, header, c) for c in changes]
    return None if None in steps else [s for s in steps if s is not None]


def _alone(call: ast.Call, old: list[ast.expr], new: list[ast.expr]) -> bool:
    """Whether the header has one call to the callee before the patch and one after."""
    callee = loose_key(call.func)

    def count(exprs: list[ast.expr]) -> int:
        return sum(1 for x in exprs for n in ast.walk(x) if isinstance(n, ast.Call) and loose_key(n.func) == callee)

    return count(old) == 1 and count(new) == 1


def _step(src: Sources, qual: str, header: Header, c: KeywordChange | KeywordToggle) -> ImportStep | None:
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
    return ImportStep("set_keyword", tuple(keys))

"""A keyword argument of a call as the importer's rewrite chooser says it (importing.rewrites):
`set_keyword` when a statement's whole difference is the value of keyword arguments of one call
(`Thread(target=f, daemon=True)` -> `daemon=False`), with `occurrence:` when the scope has several
calls passing that value; and when it is one keyword added to one call (`Foo(a, b=1)` ->
`Foo(a, b=1, c=2)`: `set_keyword` without `from:`) or taken from it (without `to:`), with `after:`
(or `before:`) where the keyword does not sit where the operation puts one. What no set_keyword
says (a keyword beside `**mapping` items only, a match the inverse could not tell apart) is named
for the import's note on the wider `replace` it gets."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from radpatch.importing.call_counts import call_number, counted_alike
from radpatch.importing.changed_expressions import difference_path
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.scope_walk import expressions
from radpatch.importing.shapes import DiffScope
from radpatch.importing.statements import Sources, key, loose_key, segment


@dataclass(frozen=True)
class KeywordChange:
    call: ast.Call  # the call in the before-file
    name: str  # the keyword
    old: ast.expr  # its value before and after
    new: ast.expr


def keyword_changes(b: ast.AST, a: ast.AST) -> list[KeywordChange]:
    """The keyword arguments of one call whose values are all that differs between b and a (one, or
    several of the same call: `dict(x=1, y=2)` -> `dict(x=3, y=4)`), else none."""
    path = difference_path(b, a)
    if len(path) >= 3:
        (cb, ca), (kb, ka), (vb, va) = path[-3:]
        if (
            isinstance(cb, ast.Call)
            and isinstance(ca, ast.Call)
            and isinstance(kb, ast.keyword)
            and isinstance(ka, ast.keyword)
            and kb.arg is not None
            and kb.arg == ka.arg
            and vb is kb.value
            and va is ka.value
        ):
            return [KeywordChange(cb, kb.arg, kb.value, ka.value)]
    cb, ca = path[-1]
    if not (isinstance(cb, ast.Call) and isinstance(ca, ast.Call)) or len(cb.keywords) != len(ca.keywords):
        return []
    if key(cb.func) != key(ca.func) or [key(x) for x in cb.args] != [key(x) for x in ca.args]:
        return []
    if any(x.arg is None or x.arg != y.arg for x, y in zip(cb.keywords, ca.keywords)):
        return []
    pairs = zip(cb.keywords, ca.keywords)
    return [KeywordChange(cb, str(x.arg), x.value, y.value) for x, y in pairs if key(x) != key(y)]


def keyword_added_or_removed(src: Sources, b: ast.AST, a: ast.AST) -> str | None:
    """`keyword `daemon` added to a call to `Thread`` when that is the difference, else None."""
    cb, ca = difference_path(b, a)[-1]
    if not (isinstance(cb, ast.Call) and isinstance(ca, ast.Call)) or key(cb.func) != key(ca.func):
        return None
    if [key(x) for x in cb.args] != [key(x) for x in ca.args]:
        return None
    old, new = [key(k) for k in cb.keywords], [key(k) for k in ca.keywords]
    callee = segment(src, cb.func)
    if len(new) > len(old) and all(k in new for k in old):
        added = [k.arg or "**" for k in ca.keywords if key(k) not in old]
        return f"{_keywords(added)} added to a call to `{callee}`"
    if len(old) > len(new) and all(k in old for k in new):
        gone = [k.arg or "**" for k in cb.keywords if key(k) not in new]
        return f"{_keywords(gone)} taken from a call to `{callee}`"
    return None


def _keywords(names: list[str]) -> str:
    """`keyword `a`` or `keywords `a`, `b``."""
    return f"keyword{'s' if len(names) > 1 else ''} {', '.join(f'`{n}`' for n in names)}"


@dataclass(frozen=True)
class KeywordToggle:
    call: ast.Call  # the call in the before-file
    name: str  # the keyword added or taken away
    value: ast.expr  # its value: in the after-file when added, in the before-file when taken
    added: bool
    after: str | None  # the `after:` set_keyword needs to put it there; None where it goes by itself
    before: str | None = None  # else the `before:`: the keyword that follows it


def keyword_toggle(b: ast.AST, a: ast.AST) -> KeywordToggle | None:
    """The one keyword argument added to or taken from one call that is all that differs between b
    and a, placed where set_keyword can say it (its own place, or `after:` the keyword before it)."""
    cb, ca = difference_path(b, a)[-1]
    if not (isinstance(cb, ast.Call) and isinstance(ca, ast.Call)) or key(cb.func) != key(ca.func):
        return None
    if [key(x) for x in cb.args] != [key(x) for x in ca.args]:
        return None
    added = len(ca.keywords) == len(cb.keywords) + 1
    longer, shorter = (ca.keywords, cb.keywords) if added else (cb.keywords, ca.keywords)
    if len(longer) != len(shorter) + 1:
        return None
    want = [key(k) for k in shorter]
    for j, k in enumerate(longer):
        if k.arg is None or [key(x) for x in longer[:j] + longer[j + 1 :]] != want:
            continue
        if any(x.arg == k.arg for x in shorter):
            return None
        if _place(shorter) == j:
            return KeywordToggle(cb, k.arg, k.value, added, None)
        before = longer[j - 1].arg if j else None
        if before is not None:
            return KeywordToggle(cb, k.arg, k.value, added, before)
        then = longer[j + 1].arg if j + 1 < len(longer) else None
        return None if then is None else KeywordToggle(cb, k.arg, k.value, added, None, then)
    return None


def _place(keywords: list[ast.keyword]) -> int:
    """Where set_keyword puts a keyword it adds, as an index of the call's keywords in `ast`: after
    the last `name=value`, else before the first `**mapping`, else last (rewrite.ops.common.call_keywords)."""
    named = [i for i, k in enumerate(keywords) if k.arg is not None]
    if named:
        return named[-1] + 1
    return next((i for i, k in enumerate(keywords) if k.arg is None), len(keywords))


def toggle_keyword(
    src: Sources,
    scope: DiffScope,
    change: KeywordToggle,
    swap: tuple[list[ast.stmt], int, ast.stmt],
    installed: list[ast.stmt] | None,
    earlier: Sequence[ImportStep] = (),
) -> ImportStep | None:
    """The set_keyword step (no `from:`, or no `to:`) for `change`: the call found once among the
    calls it matches (those passing no such keyword when it is added, those passing it with the
    value when it is taken away), or by its `occurrence:` among them in the installed scope; its
    result found once again by the inverse; None where it would not be."""
    callee, value = segment(src, change.call.func), segment(src, change.value)
    if callee is None or value is None or installed is None:
        return None
    look, result = ("missing", "passing") if change.added else ("passing", "missing")
    if change.call not in [c for tag, c in _calls(scope.body, change) if tag == look]:
        return None
    where = (change.call.lineno, change.call.col_offset)
    matches = [(c.lineno, c.col_offset) for tag, c in _calls(installed, change) if tag == look]
    if where not in matches:
        return None
    occurrence = None if len(matches) == 1 else matches.index(where) + 1
    now = [c for tag, c in _calls(scope.body, change) if tag == look]
    said = {"scope": scope.qualname, "call": callee, "keyword": change.name, "from": None if change.added else value}
    # an earlier step of this keyword picked its call by number: apply does not count it as `occurrence:`
    numbered = any(
        s.get("call_occurrence") is not None and all(s.get(k) == said[k] for k in said if k != "from") for s in earlier
    )
    uncounted = occurrence is not None and not counted_alike(
        matches.index(where), now.index(change.call), earlier, said
    )
    block, i, target = swap
    saved = block[i]
    block[i] = target
    after = _calls(scope.body, change)
    block[i] = saved
    pick: tuple[str, int] | None = None if occurrence is None else ("occurrence", occurrence)
    if (
        numbered
        or uncounted
        or occurrence is None
        and sum(1 for tag, _ in after if tag == result) != 1
        or occurrence is not None
        and any(tag == result for tag, _ in _calls(installed, change))
    ):
        # its inverse could not tell the call from another passing no such keyword (taken away), or
        # from another passing it with that value already (added), or apply would count it apart:
        # picked by the call's number among all calls to the callee (`call_occurrence:`)
        nth = call_number(scope.body, installed, change, where)
        if nth is None:
            return None
        pick = ("call_occurrence", nth)
    keys: list[tuple[str, Value]] = [("scope", scope.qualname), ("call", callee), ("keyword", change.name)]
    keys.append(("to", value) if change.added else ("from", value))
    if change.after is not None:
        keys.append(("after", change.after))
    if change.before is not None:
        keys.append(("before", change.before))
    if pick is not None:
        keys.append(pick)
    return ImportStep("set_keyword", tuple(keys))


def _calls(body: list[ast.stmt], change: KeywordToggle) -> list[tuple[str, ast.Call]]:
    """("missing"|"passing", call) of every call in the scope to the callee passing no such keyword,
    or passing it with the value, in the order the rewrites walk them."""
    callee, value = loose_key(change.call.func), loose_key(change.value)
    out: list[tuple[str, ast.Call]] = []
    for e in expressions(body):
        if not isinstance(e, ast.Call) or loose_key(e.func) != callee:
            continue
        passed = [k for k in e.keywords if k.arg == change.name]
        if not passed:
            if not spreads(e, change.name):  # passed through `**{...}`: no call to add it to
                out.append(("missing", e))
        elif loose_key(passed[0].value) == value:
            out.append(("passing", e))
    return out


def spreads(call: ast.Call, name: str) -> bool:
    """Whether `call` passes `name` through a `**` dict display or `dict(...)` call
    (`f(**{"x": 1})`): set_keyword does not add it there (rewrite.ops.common.call_keywords.spread)."""
    for k in call.keywords:
        v = k.value
        if k.arg is None and isinstance(v, ast.Dict):
            if any(isinstance(d, ast.Constant) and d.value == name for d in v.keys):
                return True
        elif k.arg is None and isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "dict":
            if any(x.arg == name for x in v.keywords):
                return True
    return False


def set_keyword(
    src: Sources,
    scope: DiffScope,
    change: KeywordChange,
    swap: tuple[list[ast.stmt], int, ast.stmt],
    installed: list[ast.stmt] | None,
    earlier: Sequence[ImportStep] = (),
) -> ImportStep | None:
    """The set_keyword step for `change`, found once (or by its occurrence) in the scope as the rewrites
    count: `occurrence:` is the call's number among the matches in the installed scope (`installed`,
    the scope's body as the file is installed), whatever this entry's earlier steps changed; and its
    result found once again by the inverse; None where it would not be."""
    callee, old, new = segment(src, change.call.func), segment(src, change.old), segment(src, change.new)
    if callee is None or old is None or new is None or installed is None:
        return None
    block, i, target = swap
    froms = [v for tag, v in _values(scope.body, change) if tag == "from"]
    if change.old not in froms:
        return None
    where = (change.old.lineno, change.old.col_offset)
    matches = [(v.lineno, v.col_offset) for tag, v in _values(installed, change) if tag == "from"]
    if where not in matches:
        return None
    occurrence = None if len(matches) == 1 else matches.index(where) + 1
    said = {"scope": scope.qualname, "call": callee, "keyword": change.name, "from": old}
    if occurrence is not None and not counted_alike(matches.index(where), froms.index(change.old), earlier, said):
        return None
    saved = block[i]
    block[i] = target
    after = _values(scope.body, change)
    block[i] = saved
    # the inverse finds the result: alone in the scope, or, by occurrence, where the installed scope
    # has no call passing the new value already (the undo would take it for this one's result)
    if occurrence is None and sum(1 for tag, _ in after if tag == "to") != 1:
        return None
    if occurrence is not None and any(tag == "to" for tag, _ in _values(installed, change)):
        return None
    keys: list[tuple[str, Value]] = [
        ("scope", scope.qualname),
        ("call", callee),
        ("keyword", change.name),
        ("from", old),
        ("to", new),
    ]
    if occurrence:
        keys.append(("occurrence", occurrence))
    return ImportStep("set_keyword", tuple(keys))


def _values(body: list[ast.stmt], change: KeywordChange) -> list[tuple[str, ast.expr]]:
    """("from"|"to", value) of every call in the scope to the callee passing the keyword with the
    old or the new value, in the order the rewrites walk them."""
    callee = loose_key(change.call.func)
    old, new = loose_key(change.old), loose_key(change.new)
    out: list[tuple[str, ast.expr]] = []
    for e in expressions(body):
        if not isinstance(e, ast.Call) or loose_key(e.func) != callee:
            continue
        for k in e.keywords:
            if k.arg == change.name:
                value = loose_key(k.value)
                if value == old:
                    out.append(("from", k.value))
                elif value == new:
                    out.append(("to", k.value))
    return out

"""Several keyword arguments added to one call, or taken from it, as the importer says them: one
`set_keyword` per keyword, each a step of its own (`Foo(a, b=1)` -> `Foo(a, b=1, c=2, d=3)` is `c`
added, then `d` added after it), where the call's other arguments and keywords stay as they are.
It was a `replace` of the whole call (pegaflow's vLLM 0.13.0 patch: eleven calls each given
`enable_deferred_release=` and `enable_coalescing=`), which breaks on any upstream edit of the
call's other arguments.

One keyword moved (`Foo(a=1, b=2)` -> `Foo(b=2, a=1)`) is two such steps: taken away, then added
back at its new place (`after:`/`before:` its new neighbour), so the other keywords keep every byte.

`steps(b, a)` gives the statements between: b with the first j keywords added (or taken), j = 1..k,
each a copy of b (its nodes keep their before-file positions; an added keyword is the after-file's
node), so that importing.keywords says each step as it says one keyword added or taken."""

from __future__ import annotations

import ast
import copy

from radpatch.importing.changed_expressions import difference_path
from radpatch.importing.statements import key

MOST = 8  # keywords said one by one, at most


def steps(b: ast.stmt, a: ast.stmt) -> list[ast.stmt]:
    """The statements from `b` to `a` one keyword at a time (the last is `a` itself), or [] when the
    difference is not two or more keywords all added to, or all taken from, one call, nor one
    keyword moved; keywords the call keeps with new values come first, each a step of its own."""
    path = difference_path(b, a)
    if not path:
        return []
    cb, ca = path[-1]
    if not (isinstance(cb, ast.Call) and isinstance(ca, ast.Call)) or key(cb.func) != key(ca.func):
        return []
    if [key(x) for x in cb.args] != [key(x) for x in ca.args]:
        return []
    values = _new_values(cb.keywords, ca.keywords)
    if values:  # `h(x=1)` -> `h(x=2, y=3)`: x's value first, then y added
        out = [b]
        for j, value in values:
            out.append(_with_value(out[-1], b, cb, j, value))
        rest = _toggled(out[-1], a)
        return [*out[1:], *rest] if rest else []
    return _toggled(b, a, cb, ca)


def _toggled(b: ast.stmt, a: ast.stmt, cb: ast.Call | None = None, ca: ast.Call | None = None) -> list[ast.stmt]:
    """steps' statements for keywords added, taken away or moved only (`cb`, `ca`: the calls that
    differ, found again when not given); [a] where one keyword is added or taken away."""
    if cb is None or ca is None:
        x, y = difference_path(b, a)[-1]
        if not (isinstance(x, ast.Call) and isinstance(y, ast.Call)):
            return []
        if len(y.keywords) - len(x.keywords) in (-1, 1) and not _new_values(x.keywords, y.keywords):
            return [a]
        cb, ca = x, y
    moved = _moved(cb.keywords, ca.keywords)
    if moved is not None:  # taken away, then added back where the patch puts it
        return [_with_keywords(b, cb, cb.keywords, [moved], set(), False), a]
    added = len(ca.keywords) > len(cb.keywords)
    longer, shorter = (ca.keywords, cb.keywords) if added else (cb.keywords, ca.keywords)
    extra = _extra(longer, shorter)
    if extra is None or not 2 <= len(extra) <= MOST:
        return []
    names = {k.arg for k in shorter}
    if any(longer[j].arg is None or longer[j].arg in names for j in extra):
        return []
    out: list[ast.stmt] = []
    for n in range(1, len(extra)):
        # added: the first n extras in; taken: the first n extras out
        keep = set(extra[:n]) if added else set(extra[n:])
        out.append(_with_keywords(b, cb, longer, extra, keep, added))
    return [*out, a]


def _new_values(old: list[ast.keyword], new: list[ast.keyword]) -> list[tuple[int, ast.expr]]:
    """(index in `old`, the new value) of each `name=value` keyword both calls pass, with another
    value in `new`; [] where they pass a keyword twice or none changes."""
    named = {k.arg: k for k in new if k.arg is not None}
    if len(named) != len([k for k in new if k.arg is not None]):
        return []
    return [(j, named[k.arg].value) for j, k in enumerate(old) if k.arg in named and key(k) != key(named[k.arg])]


def _with_value(cur: ast.stmt, b: ast.stmt, cb: ast.Call, j: int, value: ast.expr) -> ast.stmt:
    """A copy of `cur` (a copy of `b`, or `b`) whose call `cb` passes `value` (the after-file's node)
    as its keyword j."""
    twin = copy.deepcopy(cur)
    call = list(ast.walk(twin))[list(ast.walk(b)).index(cb)]
    assert isinstance(call, ast.Call)
    call.keywords[j].value = value
    return twin


def _moved(old: list[ast.keyword], new: list[ast.keyword]) -> int | None:
    """The index in `old` of the one `name=value` keyword the call passes at another place in `new`
    (the others in their order), else None."""
    if len(old) != len(new) or [key(k) for k in old] == [key(k) for k in new]:
        return None
    for j, k in enumerate(old):
        rest = [key(x) for x in old[:j] + old[j + 1 :]]
        at = [i for i, x in enumerate(new) if key(x) == key(k)]
        if k.arg is not None and len(at) == 1 and [key(x) for i, x in enumerate(new) if i != at[0]] == rest:
            return j
    return None


def _extra(longer: list[ast.keyword], shorter: list[ast.keyword]) -> list[int] | None:
    """The indexes of `longer` not in `shorter`, when `shorter` is `longer` with them left out (the
    other keywords in their order), else None."""
    want = [key(k) for k in shorter]
    got: list[int] = []
    i = 0
    for j, k in enumerate(longer):
        if i < len(want) and key(k) == want[i]:
            i += 1
        else:
            got.append(j)
    return got if i == len(want) else None


def _with_keywords(
    b: ast.stmt, cb: ast.Call, longer: list[ast.keyword], extra: list[int], keep: set[int], added: bool
) -> ast.stmt:
    """A copy of `b` whose call `cb` passes `longer`'s keywords but the extras not in `keep`."""
    nodes = list(ast.walk(b))
    twin = copy.deepcopy(b)
    call = list(ast.walk(twin))[nodes.index(cb)]
    assert isinstance(call, ast.Call)
    mine = iter(call.keywords)  # the copy's own keywords: b's, in order
    out: list[ast.keyword] = []
    for j, k in enumerate(longer):
        if j in extra:
            if j in keep:
                # an added keyword is the after-file's node; one taken away is b's own (its copy)
                out.append(k if added else next(mine))
            elif not added:
                next(mine)  # taken away already
        else:
            out.append(next(mine))
    call.keywords = out
    return twin

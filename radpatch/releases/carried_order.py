"""Whether the statements a change inserts sit where they take effect in a release's scope, for
radpatch.releases.carried: the same statements in the same order among themselves are not enough
when upstream's own spelling of the statement they follow (their anchor) is not one of them, so
its place cannot be read by identity. Read by what the statements compute instead:

- every name an inserted statement reads that the change's result binds before it is bound before
  it in the release too, and not by a statement of the result that the result rebinds before it
  (an older value than the one the change reads);
- every name an inserted statement binds reaches the statements that use it in the result: in the
  release no statement between the two rebinds the name outright (an assignment that does not read
  it) where the result has no such statement.

Statements are a scope's own (compound statements whole; a nested definition by its header), as
carried cuts them, compared as syntax trees.
"""

from __future__ import annotations

import ast
from collections import Counter

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def scopes(source: bytes) -> dict[str, list[ast.stmt]] | None:
    """The module's scopes (named as carried.shape names them) -> their own statements; None when it
    does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: dict[str, list[ast.stmt]] = {}

    def cut(body: list[ast.stmt], scope: str) -> None:
        mine = out.setdefault(scope, [])
        for stmt in body:
            mine.append(stmt)
            if isinstance(stmt, _DEFS):
                name = f"{scope}.{stmt.name}" if scope else stmt.name
                n = 2
                while name in out:
                    name = f"{scope}.{stmt.name}#{n}" if scope else f"{stmt.name}#{n}"
                    n += 1
                cut(stmt.body, name)

    try:
        cut(tree.body, "")
    except RecursionError:
        return None
    return out


def spell(stmt: ast.stmt) -> str:
    """A statement as carried.shape spells it: a definition by its header (without its body)."""
    if not isinstance(stmt, _DEFS):
        return ast.dump(stmt)
    body, stmt.body = stmt.body, []
    try:
        return ast.dump(stmt)
    finally:
        stmt.body = body


def in_effect(scope: str, inserted: set[str], after: bytes, release: bytes) -> bool:
    """Each statement of `inserted` (spelled as `spell` spells it) that the release's scope holds
    reads and feeds the names it reads and binds as it does in the change's result `after` (True
    when either module does not parse: carried has refused it already)."""
    a, r = scopes(after), scopes(release)
    if a is None or r is None or scope not in a or scope not in r:
        return True
    res, rel = a[scope], r[scope]
    res_d, rel_d = [spell(s) for s in res], [spell(s) for s in rel]
    seen: Counter[str] = Counter()
    for i, d in enumerate(res_d):
        if d not in inserted:
            continue
        seen[d] += 1
        j = _nth(rel_d, d, seen[d])
        if j is None:
            continue
        if not _reads_same(res, res_d, i, rel, rel_d, j) or not _feeds_same(res, res_d, i, rel, rel_d, j):
            return False
    return True


def _nth(seq: list[str], item: str, n: int) -> int | None:
    hits = [k for k, x in enumerate(seq) if x == item]
    return hits[n - 1] if len(hits) >= n else None


def _names(stmt: ast.stmt, ctx: type[ast.expr_context]) -> set[str]:
    if isinstance(stmt, _DEFS):
        return {stmt.name} if ctx is ast.Store else set()
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _kills(stmt: ast.stmt, name: str) -> bool:
    """An assignment that rebinds `name` outright (without reading it)."""
    return isinstance(stmt, (ast.Assign, ast.AnnAssign)) and (
        name in _names(stmt, ast.Store) and name not in _names(stmt, ast.Load)
    )


def _last_binding(stmts: list[ast.stmt], upto: int, name: str) -> int | None:
    return next((k for k in range(upto - 1, -1, -1) if name in _names(stmts[k], ast.Store)), None)


def _reads_same(res: list[ast.stmt], res_d: list[str], i: int, rel: list[ast.stmt], rel_d: list[str], j: int) -> bool:
    for name in _names(res[i], ast.Load):
        mine = _last_binding(res, i, name)
        if mine is None:
            continue
        theirs = _last_binding(rel, j, name)
        if theirs is None:
            return False  # the release reads it before anything binds it
        if rel_d[theirs] in res_d[:i] and rel_d[theirs] != res_d[mine]:
            return False  # an older value than the change reads
    return True


def _feeds_same(res: list[ast.stmt], res_d: list[str], i: int, rel: list[ast.stmt], rel_d: list[str], j: int) -> bool:
    for name in _names(res[i], ast.Store):
        for k in range(i + 1, len(res)):
            if name in _names(res[k], ast.Load):
                use = next((m for m in range(j + 1, len(rel)) if rel_d[m] == res_d[k]), None)
                between = set(res_d[i + 1 : k])
                if use is not None and any(_kills(rel[m], name) and rel_d[m] not in between for m in range(j + 1, use)):
                    return False  # the release overwrites it before the use the change feeds
            if _kills(res[k], name):
                break
    return True

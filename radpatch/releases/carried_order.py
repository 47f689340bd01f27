"""Whether the statements a change inserts sit where they take effect in a release's scope, for
radpatch.releases.carried: the same statements in the same order among themselves are not enough
when upstream's own spelling of the statement they follow (their anchor) is not one of them, so
its place cannot be read by identity. Read by what the statements compute instead:

- every name an inserted statement reads that the change's result binds before it is bound before
  it in the release too, and not by a statement of the result that the result rebinds before it
  (an older value than the one the change reads);
- every name an inserted statement binds reaches the statements that use it in the result: in the
  release no statement between the two may store the name (any store, at any depth: a for or
  with target, a walrus, an augmented or read-and-store assignment, `del`, an `except ... as`, a
  nested definition declaring it `nonlocal`) where the result has no such statement, and none may
  leave the scope (return, raise) where the result does not; nor may the release's scope declare
  the name `global`/`nonlocal` more often than the result (any call may then store it);
- no statement between the inserted one and the release's last statement before it that the
  result has before it (where upstream's spelling of the anchor stands) may leave the scope:
  the inserted statement may then not run.

"When unsure, not carried": each check reads syntax only and errs on the side of a store or an exit.

Statements are a scope's own (compound statements whole; a nested definition by its header), as
carried cuts them, compared as syntax trees.
"""

from __future__ import annotations

import ast
from collections import Counter

from radpatch.releases.compared import Compared, scope_name

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
                cut(stmt.body, scope_name(out, scope, stmt.name))

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


def in_effect(scope: str, inserted: set[str], c: Compared) -> bool:
    """Each statement of `inserted` (spelled as `spell` spells it) that the release's scope holds
    reads and feeds the names it reads and binds as it does in the change's result `c.after` (True
    when either module does not parse: carried has refused it already)."""
    a, r = scopes(c.after), scopes(c.release)
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


def _stores(stmt: ast.stmt, name: str) -> bool:
    """`stmt` may store (or delete) `name`: any Store or Del of it at any depth, nested definitions
    included (read conservatively), a definition, import or `except ... as` binding it, a match
    capture, a `global`/`nonlocal` naming it."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, _DEFS) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name).split(".")[0] == name for a in node.names
        ):
            return True
        if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name == name:
            return True
        if isinstance(node, ast.MatchMapping) and node.rest == name:
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def _exits(stmt: ast.stmt) -> bool:
    """`stmt` may leave the scope it stands in: a `return` or `raise` in its own code (nested
    definitions left out), a `break`/`continue` outside any loop of its own."""

    def walk(node: ast.AST, in_loop: bool) -> bool:
        if isinstance(node, (ast.Return, ast.Raise)):
            return True
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return True
        if isinstance(node, (*_DEFS, ast.Lambda)):
            return False  # its own code runs when called, not here
        loop = in_loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        return any(walk(c, loop) for c in ast.iter_child_nodes(node))

    return walk(stmt, False)


def _declared(stmts: list[ast.stmt], name: str) -> int:
    """How often `global`/`nonlocal` names `name` in the statements, at any depth."""
    return sum(1 for s in stmts for n in ast.walk(s) if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names)


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
    if _leaves_before(res_d, i, rel, rel_d, j):
        return False  # the release may leave the scope before the inserted statement runs
    for name in _names(res[i], ast.Store):
        if _declared(rel, name) > _declared(res, name):
            return False  # a `global`/`nonlocal` the result lacks: any call may store it
        for k in range(i + 1, len(res)):
            if name in _names(res[k], ast.Load):
                use = next((m for m in range(j + 1, len(rel)) if rel_d[m] == res_d[k]), len(rel))
                between = Counter(res_d[i + 1 : k])
                for m in range(j + 1, use):
                    if between[rel_d[m]] > 0:
                        between[rel_d[m]] -= 1  # the result has the same statement there
                    elif _stores(rel[m], name) or _exits(rel[m]):
                        return False  # the release may overwrite it (or leave) before the use the change feeds
            if _stores(res[k], name) and name not in _names(res[k], ast.Load):
                break
    return True


def _leaves_before(res_d: list[str], i: int, rel: list[ast.stmt], rel_d: list[str], j: int) -> bool:
    """Between the release's last statement before `j` that the result has before `i` (upstream's
    anchor stands after it) and `j`, a statement that may leave the scope and that the result does
    not have before `i`."""
    mine = set(res_d[:i])
    p = next((m for m in range(j - 1, -1, -1) if rel_d[m] in mine), -1)
    return any(_exits(rel[m]) and rel_d[m] not in mine for m in range(p + 1, j))

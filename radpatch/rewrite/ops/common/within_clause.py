"""`within:`: the enclosing statement a match must lie in, keyed as `ast` reads it (a compound
statement by its header), and whether a node lies in one.

A compound statement's header (`if x:`, `for y in ys:`, `with lock:`, `try:` ... as the statement
starts) names the whole statement, its `elif`/`else`/`except` clauses too; an `if x:` names an
`elif x:` clause as well, with the clauses after it. A clause's header names that clause alone:
`elif x:` (an `elif` clause, not an `if`), `else:`, `finally:`, `except E:` / `except* E:` (a
handler of that type), `case P:` (a `match` case, with its guard), and `try:` the body of a `try`
(not its handlers, `else:` or `finally:`).

A match lies in the INNERMOST statement or clause `within:` names that encloses it (`innermost`).
Where the key names statements or clauses nested in one another (an `else:` in an `else:`, a
`try:` in a `try:` body, the same `except E:` in a handler of its own), the matches lie in
different ones: `occurrence:` counts inside one of them only (`nested_regions` tells them), else a
copy the next release adds to the outer one shifts the count onto another clause's copy (att57 F5).
Side by side (two `else:` clauses of two statements) the count runs across them in source order."""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Sequence

import libcst as cst

from radpatch.registry.within_keys import clause_key, compound, header_key, key_of
from radpatch.rewrite.matching import MatchFailure, code_of, replace_on_path
from radpatch.rewrite.tree import Path_

_PASS = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


@functools.lru_cache(maxsize=256)
def within_key(pattern: str) -> tuple[str, str]:
    """The key of `within:` (registry.within_keys.key_of), or the refusal saying what to write."""
    try:
        return key_of(pattern)
    except SyntaxError as exc:
        raise MatchFailure(
            f"`within` is not a statement or a compound statement's header: {exc.msg}",
            "write an enclosing statement or clause, e.g. `for layer in layers:`, `with lock:`, `elif fast:`, "
            "`except KeyError:`",
        ) from None


def is_within(module: cst.Module, path: Path_, pattern: str, undo: cst.CSTNode | None) -> bool:
    """Whether the node at `path` (judged as `undo` where given: the code as it was) lies in a
    statement or clause `within:` names."""
    return innermost(module, path, pattern, undo) is not None


def nested_regions(
    module: cst.Module, hits: Sequence[tuple[Path_, cst.CSTNode | None]], pattern: str
) -> list[cst.CSTNode]:
    """The statements or clauses `within:` names that hold the `hits` (each hit's innermost; a hit
    judged as its `undo` where given), where one of them lies inside another: `occurrence:` cannot
    tell which one it counts in. [] where they lie in one, or side by side."""
    clause = within_key(pattern)[0] == "clause"
    found: dict[tuple[int, ...], tuple[cst.CSTNode, set[tuple[int, ...]]]] = {}
    for hit, undo in hits:
        k = innermost(module, hit, pattern, undo)
        if k is not None:
            found[_region(hit, k, clause)] = (hit[k], {_region(hit, j, clause) for j in range(k)})
    if any(outer in above for _, above in found.values() for outer in found):
        return [node for node, _ in found.values()]
    return []


def _region(path: Path_, k: int, clause: bool) -> tuple[int, ...]:
    """A clause by its statement and the block on the path (a `try:` body is not its `finally:`), a
    statement by itself."""
    return (id(path[k]), id(path[k + 1])) if clause else (id(path[k]),)


def innermost(module: cst.Module, path: Path_, pattern: str, undo: cst.CSTNode | None) -> int | None:
    """The index in `path` of the innermost statement or clause `within:` names that holds the node
    at its end; None where none does."""
    kind, key = within_key(pattern)
    for k in range(len(path) - 2, -1, -1):
        anc = path[k]
        if kind == "clause":
            if _clause(module, path, k, undo) == key:
                return k
            continue
        if not isinstance(anc, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            continue
        node = replace_on_path(path[k:], undo) if undo is not None else anc
        try:
            tree = ast.parse(textwrap.dedent(code_of(module, node))).body[0]
        except SyntaxError:
            continue
        if kind == "header" and compound(tree) and header_key(tree) == key:
            return k
        if kind == "stmt" and not compound(tree) and ast.dump(tree) == key:
            return k
    return None


def _clause(module: cst.Module, path: Path_, k: int, undo: cst.CSTNode | None) -> str | None:
    """The key of the clause `path[k]` is, where the node at the path's end lies in that clause
    (for an `elif` and a `try`: in its own body, or an `elif`'s condition); None otherwise."""
    anc, child = path[k], path[k + 1]
    if isinstance(anc, cst.Else):
        return "else"
    if isinstance(anc, cst.Finally):
        return "finally"
    if isinstance(anc, (cst.Try, cst.TryStar)):
        return "try" if child is anc.body else None
    parent = path[k - 1] if k > 0 else None
    elif_ = isinstance(anc, cst.If) and isinstance(parent, cst.If) and parent.orelse is anc
    if not (elif_ or isinstance(anc, (cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase))):
        return None
    if isinstance(anc, cst.If) and child is anc.orelse:
        return None  # in a later clause of the chain
    node = replace_on_path(path[k:], undo) if undo is not None else anc
    bare = node.with_changes(body=_PASS, leading_lines=(), **({"orelse": None} if isinstance(node, cst.If) else {}))
    code = textwrap.dedent(code_of(module, bare))
    kind = "elif" if elif_ else "case" if isinstance(anc, cst.MatchCase) else "except"
    try:
        return clause_key(kind, code.replace("if", "elif", 1) if elif_ else code)
    except SyntaxError:
        return None

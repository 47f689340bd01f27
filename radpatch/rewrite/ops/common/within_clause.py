"""`within:`: the enclosing statement a match must lie in, keyed as `ast` reads it (a compound
statement by its header), and whether a node lies in one.

A compound statement's header (`if x:`, `for y in ys:`, `with lock:`, `try:` ... as the statement
starts) names the whole statement, its `elif`/`else`/`except` clauses too; an `if x:` names an
`elif x:` clause as well, with the clauses after it. A clause's header names that clause alone:
`elif x:` (an `elif` clause, not an `if`), `else:`, `finally:`, `except E:` / `except* E:` (a
handler of that type), `case P:` (a `match` case, with its guard), and `try:` the body of a `try`
(not its handlers, `else:` or `finally:`)."""

from __future__ import annotations

import ast
import functools
import textwrap

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
    return _is_within(module, path, pattern, undo)


def _is_within(module: cst.Module, path: Path_, pattern: str, undo: cst.CSTNode | None) -> bool:
    kind, key = within_key(pattern)
    for k in range(len(path) - 2, -1, -1):
        anc = path[k]
        if kind == "clause":
            if _clause(module, path, k, undo) == key:
                return True
            continue
        if not isinstance(anc, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            continue
        node = replace_on_path(path[k:], undo) if undo is not None else anc
        try:
            tree = ast.parse(textwrap.dedent(code_of(module, node))).body[0]
        except SyntaxError:
            continue
        if kind == "header" and compound(tree) and header_key(tree) == key:
            return True
        if kind == "stmt" and not compound(tree) and ast.dump(tree) == key:
            return True
    return False


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

"""Whether a release's module already carries an entry's change, in whatever layout upstream wrote it.

The entry's change is read off a release it was written for (the base): its module before the
rewrites and after them. Both, and the release's module, are cut into scopes as radpatch names
them (`Class.method`; "" for the module), each scope a list of its own statements compared as
syntax trees (comments, quotes, parentheses and line breaks do not count), with a nested
definition standing in its parent's list by its header alone (name, decorators, signature or
bases) and its body under its own scope.

The release carries the change when, in every scope the rewrites changed, every statement whose
count the change altered occurs in the release's scope as often as in the result (an inserted or
replaced statement is there, a deleted one is gone), and the result's statements that the release
has come in the same order (the change is where the rewrites put it; imports excepted: their
order is the module author's). Other statements of the scope, and every scope the rewrites did
not touch, may differ: upstream changed them too. A scope the change only removes statements from
needs positive evidence, since a release lacking them may just have moved them: the release's scope
keeps the statements next to each removed one, and the module holds the removed statements nowhere
else, at any depth (a wrapper that now calls a helper still running them, inside a `with` block or
not, is not the change), nor a removed call with other arguments (a call moved into another
function, given what that function has at hand). A statement the change removes, deleted or
replaced, is no removal either where the module still holds it elsewhere, or still makes the
binding it made in another spelling, or may make it from code it calls in another module
(radpatch.releases.bindings: "cannot tell", so not carried).

The check needs no undo, so it holds where undoing the rewrites cannot run: radpatch marks what it
deleted, and the import it added, with a comment that upstream's file does not have. A module whose
code is unchanged by the rewrites (an entry that only reformats) carries nothing.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter

from radpatch.releases import bindings, carried_order
from radpatch.releases.compared import Compared, scope_name

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = ("Import(", "ImportFrom(")  # how ast.dump begins an import statement
Shape = dict[str, list[str]]  # scope -> its own statements (nested definitions by their header)


def shape(source: bytes) -> Shape | None:
    """The module cut into scopes; None when it does not parse (or is too deep to walk)."""
    try:
        tree = ast.parse(source)
        out: Shape = {}
        _cut(tree.body, "", out)
        return out
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _cut(body: list[ast.stmt], scope: str, out: Shape) -> None:
    mine = out.setdefault(scope, [])
    for stmt in body:
        if isinstance(stmt, _DEFS):
            name = scope_name(out, scope, stmt.name)
            mine.append(_header(stmt))
            _cut(stmt.body, name, out)
        else:
            mine.append(ast.dump(stmt))


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The definition without its body: what the parent scope holds of it."""
    body, node.body = node.body, []
    try:
        return ast.dump(node)
    finally:
        node.body = body


def carries(c: Compared) -> bool:
    """`c.release` holds the change the rewrites make of `c.before` (giving `c.after`), wherever the
    rest of it differs. False when any of the three does not parse, or the rewrites change no code.
    `c.me` and `c.sources` tell what a decorator imported from another module of the release's
    package is (radpatch.releases.imported_decorators)."""
    b, a, r = shape(c.before), shape(c.after), shape(c.release)
    if b is None or a is None or r is None:
        return False
    changed = False
    for scope in sorted(b.keys() | a.keys()):
        old, new = b.get(scope, []), a.get(scope, [])
        if old == new:
            continue
        changed = True
        if scope not in a:
            continue  # the rewrites removed the definition: its header's count in the parent decides
        theirs = r.get(scope)
        if theirs is None:
            return False
        counts_old, counts_new, counts_r = Counter(old), Counter(new), Counter(theirs)
        if any(
            counts_r[s] != counts_new[s]
            for s in counts_old.keys() | counts_new.keys()
            if counts_old[s] != counts_new[s]
        ):
            return False
        if not _in_order(_shared(_placed(new), counts_r), _placed(theirs)):
            return False
        if not carried_order.in_effect(scope, {s for s in counts_new if counts_new[s] > counts_old[s]}, c):
            return False  # an inserted statement sits where it reads or feeds other values than in the result
        only_removes = not any(counts_new[s] > counts_old[s] for s in counts_new)
        if only_removes and not _removed_here(old, new, theirs, c):
            return False
        if only_removes and _called_still(scope, c):
            return False
        if any(counts_old[s] > counts_new[s] for s in counts_old) and (
            _held_elsewhere(old, new, c) or bindings.bound_still(scope, c)
        ):
            return False  # a statement the change removes (deletes or replaces) is still run, moved
    return changed


def _called_still(scope: str, c: Compared) -> bool:
    """A scope the change only removes statements from: a call the change removed from it (by its
    callee: `f(a, b)` and `f(c)` alike) that the release still makes in some function more often
    than the change's result makes it there (upstream moved the call into a caller, with other
    arguments, say) is no removal upstream. Calls of builtins do not count."""
    b, a, r = calls(c.before), calls(c.after), calls(c.release)
    if b is None or a is None or r is None:
        return True
    removed = set(b.get(scope, Counter()) - a.get(scope, Counter()))
    return any(theirs[c] > a.get(name, Counter())[c] for name, theirs in r.items() for c in removed)


_BUILTINS = frozenset(dir(builtins))


def calls(source: bytes) -> dict[str, Counter[str]] | None:
    """Per scope (named as `shape` names them), the callees of the calls its own code makes (nested
    blocks included, nested definitions under their own scope); None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: dict[str, Counter[str]] = {}

    def visit(body: list[ast.stmt], scope: str) -> None:
        mine = out.setdefault(scope, Counter())
        todo: list[ast.AST] = list(body)
        while todo:
            node = todo.pop()
            if isinstance(node, _DEFS):
                visit(node.body, scope_name(out, scope, node.name))
                continue
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _BUILTINS):
                mine[ast.dump(node.func)] += 1
            todo.extend(ast.iter_child_nodes(node))

    try:
        visit(tree.body, "")
    except RecursionError:
        return None
    return out


def _removed_here(old: list[str], new: list[str], theirs: list[str], c: Compared) -> bool:
    """A scope the change only removes statements from: the release's scope lacking them is no evidence
    by itself (a scope upstream emptied, or turned into a call of a helper that still runs them,
    lacks them too). The release must keep the statements around each removed one (its nearest kept
    neighbours in the base), and hold the removed statements nowhere in the module, at any depth
    (inside a `with`, `if`, `try` or loop body too, of any scope), more often than the change's
    result does."""
    gone = Counter(old) - Counter(new)
    left, removed = Counter(gone), []
    for i, s in enumerate(old):
        if left[s] > 0:
            left[s] -= 1
            removed.append(i)
    dropped = set(removed)
    have = Counter(theirs)
    for i in removed:
        before = next((old[j] for j in range(i - 1, -1, -1) if j not in dropped), None)
        after = next((old[j] for j in range(i + 1, len(old)) if j not in dropped), None)
        if any(n is not None and have[n] == 0 for n in (before, after)):
            return False
    return not _held_elsewhere(old, new, c)


def _held_elsewhere(old: list[str], new: list[str], c: Compared) -> bool:
    """A statement the change removes from the scope that the release's module holds somewhere, at
    any depth, more often than the change's result does (True too when either does not parse)."""
    everywhere_after, everywhere_release = statements(c.after), statements(c.release)
    if everywhere_after is None or everywhere_release is None:
        return True
    return any(everywhere_release[s] > everywhere_after[s] for s in Counter(old) - Counter(new))


def statements(source: bytes) -> Counter[str] | None:
    """Every statement of the module, at any depth (the bodies of compound statements and of
    definitions included), as `shape` spells it (a definition by its header); None when it does
    not parse."""
    try:
        tree = ast.parse(source)
        out: Counter[str] = Counter()
        for node in ast.walk(tree):
            if isinstance(node, _DEFS):
                out[_header(node)] += 1
            elif isinstance(node, ast.stmt):
                out[ast.dump(node)] += 1
        return out
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _placed(statements: list[str]) -> list[str]:
    """The statements whose place counts: all but imports (the order of a module's imports is its
    author's, not the change's)."""
    return [s for s in statements if not s.startswith(_IMPORTS)]


def _shared(new: list[str], theirs: Counter[str]) -> list[str]:
    """The statements of `new` the release has, in `new`'s order, each as often as the release has it."""
    left, out = Counter(theirs), []
    for s in new:
        if left[s] > 0:
            left[s] -= 1
            out.append(s)
    return out


def _in_order(wanted: list[str], seq: list[str]) -> bool:
    """`wanted` is a subsequence of `seq`."""
    it = iter(seq)
    return all(any(s == x for x in it) for s in wanted)

"""Reachability: nothing the patch adds or changes may follow, in its block, a statement control
never gets past (return, raise, continue, break, a call that never returns (`sys.exit()`, a function
annotated `-> NoReturn`: no_return), an if/else, try or match (with a `case _:`)
whose every path leaves, a loop without a break whose `else` leaves, `while True:` without a
break, a `with` whose body returns), nor sit in a block that never runs:
the body of `if TYPE_CHECKING:` (False at run time; the imports there are for type checkers and
pass), of `if False:`/`if 0:`/`while False:`, or the `else` of `if True:`/`while True:`, and, when the
target's version is known, the branch a test on the Python version makes dead there
(`target_version`: `if sys.version_info < (3, 11):` on 3.12, in any spelling names.version_guard decides). A test
counts as constant only when it is one by itself (a literal, TYPE_CHECKING, `not`/`and`/`or` of
those); `__debug__` is not (`python -O` runs the other branch).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .falls_through import _falls, constant_truth
from .guards import names_type_checking, type_checking_names
from .no_return import never_returns, stopping_names
from .shadowing import DEFS
from .target_version import version_truth
from .typing_values import binds_of, module_bindings, runtime_value

if TYPE_CHECKING:
    from . import Placement
    from .falls_through import Decider


@dataclass(frozen=True)
class Unreachable:
    """A statement after one that never falls through (return, raise, continue, break, or an
    if/else or try whose every path does): it never runs."""

    scope: str
    dump: str
    line: int
    after: int  # the line of the statement control cannot get past, or of the block's `if`/`while`
    block: str = ""  # the block that never runs (`if TYPE_CHECKING:`), when that is why
    stub: tuple[str, ...] = ()  # in a typing-only block (`if TYPE_CHECKING:`): its head and the names it binds
    stop: str = ""  # the callee that never returns (`sys.exit`), when the statement at `after` is its call
    twin: int = 0  # a typing-only def with code whose name the branch that runs binds too: that binding's line
    value: str = ""  # a typing-only assignment of a value a type checker does not read (`X: int = 600`): its dump
    getattr_line: int = 0  # no binding runs for a `value`'s name, and the module's `__getattr__` (this line) gives it


def unreachable(tree: ast.Module, version: tuple[int, int] | None = None) -> Iterator[Unreachable]:
    """`version`: the target's major.minor, for which a test on the Python version is decided
    (target_version); None: such a test may vary."""
    aliases = type_checking_names(tree)
    decided = version_truth(tree, version) if version is not None else None
    stops = stopping_names(tree)
    runs = module_bindings(tree, lambda test: constant_truth(test, aliases, decided))
    stack: list[tuple[str, ast.AST]] = [("<module>", tree)]
    while stack:
        qual, node = stack.pop()
        yield from _dead_block(qual, node, aliases, decided, version, runs if qual == "<module>" else {})
        parts = [getattr(node, f, None) for f in ("body", "orelse", "finalbody")]
        for stmts in parts:
            if not (isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt)):
                continue
            for i, s in enumerate(stmts[:-1]):
                if not _falls(s, False, aliases, decided, stops):
                    stop = never_returns(s, stops) or ""
                    yield from (Unreachable(qual, ast.dump(x), x.lineno, s.lineno, stop=stop) for x in stmts[i + 1 :])
                    break
        for child in ast.iter_child_nodes(node):
            if isinstance(child, DEFS):
                stack.append((child.name if qual == "<module>" else f"{qual}.{child.name}", child))
            elif isinstance(child, (ast.stmt, ast.ExceptHandler)) or type(child).__name__ == "match_case":
                stack.append((qual, child))


def _dead_block(
    qual: str,
    node: ast.AST,
    aliases: Collection[str],
    decided: Decider | None,
    version: tuple[int, int] | None,
    runs: dict[str, int],
) -> Iterator[Unreachable]:
    """The statements of a block of `node` that never runs: an `if`/`while` body whose test is
    always false at run time (on the target's `version`, for a test `decided` reads the version
    of), or the `else` of one whose test is always true. `runs`: where the module binds a name
    outside such blocks (_module_bindings), for a typing-only value's twin."""
    if not isinstance(node, (ast.If, ast.While)):
        return
    truth = constant_truth(node.test, aliases, decided)
    if truth is None:
        return
    stmts = node.orelse if truth else node.body
    head = f"{'if' if isinstance(node, ast.If) else 'while'} {ast.unparse(node.test)}:"
    typing_only = any(names_type_checking(n, aliases) for n in ast.walk(node.test) if isinstance(n, ast.expr))
    block = f"the {'else of `' + head + '`' if truth else '`' + head + '` block'} at line {node.lineno}"
    if version is not None and constant_truth(node.test, aliases) is None:  # the target's version decides it
        block += f" ({'true' if truth else 'false'} on Python {version[0]}.{version[1]})"
    live = {n: x.lineno for x in (node.body if truth else node.orelse) for n in binds_of(x)}
    for x in stmts:
        if typing_only and isinstance(x, (ast.Import, ast.ImportFrom)):
            continue  # an import for type checkers: what the block is for
        binds = tuple(binds_of(x))
        stub = (head, *binds) if typing_only and binds else ()
        twin = next((live[n] for n in binds if n in live), 0) if stub and _has_code(x) else 0
        value = runtime_value(x) if stub else ""
        if value:
            twin = next((where[n] for where in (live, runs) for n in binds if n in where), 0)
        dynamic = runs.get("__getattr__", 0) if value and not twin else 0
        yield Unreachable(
            qual, ast.dump(x), x.lineno, node.lineno, block, stub, twin=twin, value=value, getattr_line=dynamic
        )


def _has_code(x: ast.stmt) -> bool:
    """Does a def or class (its methods) run code when called: a statement other than a docstring,
    `...` or `pass`? A typing stub's body does not."""
    if not isinstance(x, DEFS):
        return False
    for fn in ast.walk(x):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for s in fn.body:
                if not (isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))):
                    return True
    return False


def statements_in(tree: ast.Module, scopes: set[str]) -> dict[tuple[str, str], int]:
    """How often each statement (ast.dump) occurs in each of `scopes` (a def's own blocks, as
    `unreachable` names them; nested defs are scopes of their own)."""
    out: dict[tuple[str, str], int] = {}
    stack: list[tuple[str, ast.AST]] = [("<module>", tree)]
    while stack:
        qual, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and qual in scopes:
                key = (qual, ast.dump(child))
                out[key] = out.get(key, 0) + 1
            if isinstance(child, DEFS):
                stack.append((child.name if qual == "<module>" else f"{qual}.{child.name}", child))
            elif isinstance(child, (ast.stmt, ast.ExceptHandler)) or type(child).__name__ == "match_case":
                stack.append((qual, child))
    return out


def unreachable_changes(before: Placement, after: Placement) -> list[str]:
    """Code the patch adds or changes where it can never run: after a return/raise/continue/break.
    A statement of the original that the patch leaves behind a new return or raise is the patch's
    meaning (an early exit), not code it adds: it counts only when the original does not have it
    in that scope (the original is parsed again only on this path)."""
    old: dict[tuple[str, str], int] = {}
    for u in before.unreachable:
        old[u.scope, u.dump] = old.get((u.scope, u.dump), 0) + 1
    kept = [not _take(old, (u.scope, u.dump)) for u in after.unreachable]
    new = [u for u, k in zip(after.unreachable, kept) if k]
    # a changed typing-only definition (a stub in `if TYPE_CHECKING:` the original has, by name): the
    # code it changes never ran either, so the patch means it; a new one there is still refused
    stubs: dict[tuple[str, str], int] = {}
    values: dict[tuple[str, str], list[str]] = {}  # the runtime values (_runtime_value) of the original's stubs
    for u in before.unreachable:
        if u.stub:
            stubs[u.scope, repr(u.stub)] = stubs.get((u.scope, repr(u.stub)), 0) + 1
            values.setdefault((u.scope, repr(u.stub)), []).append(u.value)
    for u, k in zip(after.unreachable, kept):
        if u.stub and not k:
            _take(stubs, (u.scope, repr(u.stub)))
            _take_value(values, (u.scope, repr(u.stub)), u.value)
    # but not a stub with code whose name the branch that runs binds too: that code never runs, its twin does;
    # nor a new value of a typing-only variable (`X: int = 600` -> 1800): type checkers do not read it
    new = [u for u in new if not (u.stub and (u.value or not u.twin) and _meant(stubs, values, u))]
    if new and before.source is not None:
        try:
            had = statements_in(ast.parse(before.source), {u.scope for u in new})
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            had = {}
        for u in before.unreachable:  # already matched above: not available again
            if (u.scope, u.dump) in had:
                had[u.scope, u.dump] -= 1
        new = [u for u in new if not _take(had, (u.scope, u.dump))]
    out = []
    for u in new:
        block = "at module level" if u.scope == "<module>" else f"in {u.scope}"
        twin = f"; the `{u.stub[1]}` that runs is the one at line {u.twin}: change that one" if u.twin else ""
        if u.value and u.getattr_line:
            gives = f"the module's `__getattr__` (line {u.getattr_line}) gives `{u.stub[1]}`"
            twin = f"; at run time {gives}: change what it reads"
        elif u.value and not u.twin:
            twin = f"; nothing the module runs binds `{u.stub[1]}`"
        value = ": type checkers read its annotation, not its value" if u.value else ""
        why = (
            f"it is in {u.block}, which never runs at run time{value}{twin}"
            if u.block
            else f"line {u.after} calls {u.stop}, which never returns, so it never runs"
            if u.stop
            else f"line {u.after} returns, raises, breaks or continues before it, so it never runs"
        )
        out.append(f"its code at line {u.line} ({block}) is unreachable: {why}")
    return out


def _take_value(values: dict[tuple[str, str], list[str]], key: tuple[str, str], value: str) -> None:
    if value in values.get(key, ()):
        values[key].remove(value)


def _meant(stubs: dict[tuple[str, str], int], values: dict[tuple[str, str], list[str]], u: Unreachable) -> bool:
    """A changed stub the patch means (a typing-only definition the original has, by name), not a
    new runtime value of one: its value is one the original's stub of that name had, or it has
    none and neither did that stub."""
    key = (u.scope, repr(u.stub))
    if not _take(stubs, key):
        return False
    left = values.get(key, [])
    if u.value in left:
        left.remove(u.value)
        return True
    old = left.pop(0) if left else ""
    return not u.value and not old


def _take(counts: dict[tuple[str, str], int], key: tuple[str, str]) -> bool:
    if counts.get(key, 0) > 0:
        counts[key] -= 1
        return True
    return False

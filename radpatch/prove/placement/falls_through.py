"""Whether control gets past a statement to the next one of its block (`_falls`: a return, raise,
break or continue, a call that never returns, an if/try/match whose every path leaves, a loop that
never ends), and the truth of a test that is the same on every run (`constant_truth`): for
`reachability`."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from .guards import names_type_checking, type_checking
from .no_return import never_returns
from .shadowing import DEFS

try:
    from ..names.branch_statements import irrefutable
except ImportError:  # served to the target interpreter: no parent package (target_version)
    from radpatch_names.branch_statements import irrefutable  # type: ignore[import-not-found,no-redef]

if TYPE_CHECKING:  # an alias for the checker only: this module also runs in targets as old as 3.9
    Decider = Callable[[ast.expr], bool | None]  # a version test's truth on the target (target_version)


def constant_truth(test: ast.expr, aliases: Collection[str] = (), decided: Decider | None = None) -> bool | None:
    """The truth of a test that is the same on every run (a literal, TYPE_CHECKING or an alias of it
    (`aliases`: guards.type_checking_names), a test on the Python version when `decided` (the
    target's version: target_version) decides it, and `not`, `and`, `or` of those), or None when it may vary."""
    if isinstance(test, ast.Constant) and not isinstance(test.value, type(...)):
        return bool(test.value)
    if names_type_checking(test, aliases):
        return False
    if isinstance(test, (ast.Compare, ast.Call)):  # `TYPE_CHECKING is True`, `bool(TYPE_CHECKING)`: the one predicate
        guard = type_checking(test, aliases)
        if guard is not None:
            return not guard
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = constant_truth(test.operand, aliases, decided)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [constant_truth(v, aliases, decided) for v in test.values]
        decides = isinstance(test.op, ast.Or)  # `or`: one true decides; `and`: one false does
        if decides in values:
            return decides
        return None if None in values else not decides
    return None if decided is None else decided(test)


def _falls(
    s: ast.stmt,
    swallowed: bool,
    aliases: Collection[str],
    decided: Decider | None = None,
    stops: Collection[str] = (),
) -> bool:
    """Can control get past `s` to the next statement of its block? `swallowed`: inside a `with`,
    whose context manager may swallow an exception (a raise falls through it, a return does not).
    `aliases`: the module's other names for TYPE_CHECKING; `decided`: version tests on the target;
    `stops`: the callees that never return (no_return), a call of which is a raise."""
    if isinstance(s, (ast.Return, ast.Continue, ast.Break)):
        return False
    if isinstance(s, ast.Raise) or never_returns(s, stops):
        return swallowed
    if isinstance(s, ast.If):
        truth = constant_truth(s.test, aliases, decided)
        if truth is not None:  # only one branch ever runs
            return _block_falls(s.body if truth else s.orelse, swallowed, aliases, decided, stops)
        return (
            not s.orelse
            or _block_falls(s.body, swallowed, aliases, decided, stops)
            or _block_falls(s.orelse, swallowed, aliases, decided, stops)
        )
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        t: ast.Try = s  # type: ignore[assignment]
        if t.finalbody and not _block_falls(t.finalbody, swallowed, aliases, decided, stops):
            return False
        return (
            _block_falls(t.body, swallowed, aliases, decided, stops)
            and _block_falls(t.orelse, swallowed, aliases, decided, stops)
        ) or any(_block_falls(h.body, swallowed, aliases, decided, stops) for h in t.handlers)
    if isinstance(s, (ast.With, ast.AsyncWith)):  # a context manager may swallow an exception, not a return
        return _block_falls(s.body, True, aliases, decided, stops)
    if isinstance(s, (ast.While, ast.For, ast.AsyncFor)):  # a loop ends by a break, or into its else
        if _breaks(s.body):
            return True
        # `while True:` never ends by its test
        if isinstance(s, ast.While) and constant_truth(s.test, aliases, decided):
            return False
        return _block_falls(s.orelse, swallowed, aliases, decided, stops)
    if type(s).__name__ == "Match":  # leaves when a case always matches and every case leaves
        cases = s.cases  # type: ignore[attr-defined]
        total = any(c.guard is None and irrefutable(c.pattern) for c in cases)
        return not total or any(_block_falls(c.body, swallowed, aliases, decided, stops) for c in cases)
    return True


def _block_falls(
    stmts: list[ast.stmt],
    swallowed: bool,
    aliases: Collection[str],
    decided: Decider | None = None,
    stops: Collection[str] = (),
) -> bool:
    return all(_falls(s, swallowed, aliases, decided, stops) for s in stmts)


def _breaks(stmts: list[ast.stmt]) -> bool:
    """Does a `break` of this loop (not of a nested one) occur in its body? A nested loop's `else`
    is this loop's code: a `break` there leaves this loop."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(s.orelse)
            continue
        if isinstance(s, DEFS):
            continue
        for f in ("body", "orelse", "finalbody"):
            stack.extend(x for x in getattr(s, f, None) or () if isinstance(x, ast.stmt))
        stack.extend(x for h in getattr(s, "handlers", ()) for x in h.body)
        stack.extend(x for c in getattr(s, "cases", ()) for x in c.body)
    return False

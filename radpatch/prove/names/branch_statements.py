"""Pass 2's statements that split a path into branches of which one runs: `if` (its test's facts,
a test the path's facts decide, a version or `__debug__` test fixed for a run, `if TYPE_CHECKING:`),
`with` a manager that may swallow what its body raises, `try` (a handler entered from anywhere in the
body up to its last statement that may raise; a `finally` that swallows) and `match`; each walked as
its parts and joined by binding flow (flow, claims).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .flow import Ctx
from .import_outcome import import_outcome
from .loops import Loops
from .match_facts import binding_guards, case_facts, pattern_facts
from .path_facts import changed_by, changes, exact, of_test, outcome
from .path_stores import evaluated, stored, without
from .swallowing import Swallowing, finally_swallows, last_raising
from .typing_only import type_checking, typing_only
from .version_guard import aliases, decide, flags


class BranchStatements(Loops):
    """if, with, try and match (walk.Walker walks the rest)."""

    tree: ast.Module
    type_checking_aliases: frozenset[str]
    version_names: tuple[dict[str, str], dict[str, ast.expr]] | None
    swallowing: Swallowing

    def s_If(self, s: ast.If, c: Ctx) -> bool:
        typing = type_checking(s.test, self.type_checking_aliases)
        if typing is None and isinstance(s.test, ast.Constant) and s.test.value is not ...:
            self.expr(s.test, c)  # `if True:`, `if 0:`: one branch ever runs
            return self.block(s.body if s.test.value else s.orelse, c)
        if typing is None:
            self.expr(s.test, c)
            on_target = self.target_decides(s.test)  # the target's version rules one branch out: it never runs
            if on_target is not None:
                return self.block(s.body if on_target else s.orelse, c)
            # `__debug__` is constant for a run of the target: not a branch a name is partly bound by; a
            # version test the target's major.minor does not decide (`>= (3, 10, 2)`) is any other test
            fixed = _debug_test(s.test)
            taken = None if fixed else outcome(c.flow.facts, s.test)
            if taken is not None:  # the path's facts decide the test: the other branch is not taken here
                return self.guarded(s.test, s.body if taken else s.orelse, c, taken)
            parts = [lambda: self.guarded(s.test, s.body, c, True), lambda: self.guarded(s.test, s.orelse, c, False)]
            told = [of_test(s.test, outcome, c.flow.facts) for outcome in (True, False)]
            enter = [self.own_facts(f, c) for f in told]
            sure = [e if e == f and exact(s.test, o) else None for e, f, o in zip(enter, told, (True, False))]
            return self.branches(c, parts, not fixed, fixed, enter, exact=sure)
        dead, live = (s.body, s.orelse) if typing else (s.orelse, s.body)
        typing_only(dead, self.typing)
        return self.block(live, c)

    def guarded(self, test: ast.expr, body: list[ast.stmt], c: Ctx, holds: bool) -> bool:
        """`body`, walked in the branch where `test` came out `holds`."""
        for name in evaluated(test, holds):  # `if a and (m := f()):` binds m wherever it is true
            c.flow.bind(name.id, name.lineno)
        return self.block(body, c)

    def target_decides(self, test: ast.expr) -> bool | None:
        """The value of a version test on the target's major.minor (the runtime's), None when it is not
        one or is not decided there."""
        if self.version_names is None:
            self.version_names = (aliases(self.tree), flags(self.tree))
        found = decide(test, self.rt.version, *self.version_names)
        return found if isinstance(found, bool) else None

    def s_With(self, s: ast.With | ast.AsyncWith, c: Ctx) -> bool:
        for item in s.items:
            self.expr(item.context_expr, c)
            c.flow.changed()  # its __enter__ ran
            if item.optional_vars is not None:
                self.expr(item.optional_vars, c)
        if any(self.swallowing.may_swallow(item.context_expr) for item in s.items):  # the body may stop anywhere
            stopped = stored(s.body[: last_raising(s.body) + 1])  # as a try's handler: after it, nothing raises

            def stops() -> bool:
                c.flow.facts = without(c.flow.facts, stopped)
                if changes(s.body):  # it may have stopped after any of its calls
                    c.flow.changed()
                return True

            falls = self.branches(c, [lambda: c.flow.leak("with") and self.block(s.body, c), stops])
        else:
            falls = self.block(s.body, c)
        c.flow.changed()  # its __exit__ ran
        return falls

    s_AsyncWith = s_With

    def s_Try(self, s: ast.Try, c: Ctx) -> bool:
        def handler(h: ast.ExceptHandler) -> Callable[[], bool]:
            def walk() -> bool:
                if s.finalbody:  # its `return` or `raise` goes on into the finally (kept: flow.restore)
                    c.flow.leak("finally")
                c.flow.facts = without(c.flow.facts, body_stores)  # the body may have stopped anywhere
                if changes(s.body):  # after any of its calls
                    c.flow.changed()
                if h.type is not None:
                    self.expr(h.type, c)
                had = h.name is not None and h.name in c.flow.maybe
                if h.name:
                    c.flow.bind(h.name, h.lineno)
                lo, hi = unraised.get("span", (0, 0))  # kept where nothing raised after it: not on this path
                hidden = c.flow.kept[lo:hi]
                del c.flow.kept[lo:hi]
                falls = self.block(h.body, c)
                c.flow.kept += [k for k in hidden if k not in c.flow.kept]  # on the body's paths, after the try
                if h.name:  # `except E as e` deletes e when the handler ends
                    c.flow._set(h.name, False)
                    c.flow.shadow(h.name, False)
                    if not had:
                        c.flow.maybe.pop(h.name, None)
                return falls

            return walk

        body_stores = stored(s.body[: last_raising(s.body) + 1])  # after it, nothing raises
        if s.finalbody and finally_swallows(s.finalbody):  # what the body or a handler raises may end here
            self.swallowed(s, c)
        kind = "finally" if s.finalbody else "try"
        unraised: dict[str, tuple[int, int]] = {}  # what the body and `else` kept after the body's last raise

        def body() -> bool:
            start = len(c.flow.kept)
            falls = c.flow.leak(kind) and self.block(s.body, c)
            mark = max(start, min(c.flow.raise_mark, len(c.flow.kept)))
            falls = falls and self.block(s.orelse, c)  # a handler catches nothing its `else` raises
            unraised["span"] = (mark, len(c.flow.kept))
            return falls

        parts: list[Callable[[], bool]] = [body]
        parts += [handler(h) for h in s.handlers]
        # a guarded import (a body of imports only) fails or not once per install, as a version test is
        # decided per target: not a branch this check counts (fallback_only judges its fallback on the target)
        guarded = all(isinstance(b, (ast.Import, ast.ImportFrom, ast.Pass)) for b in s.body)
        known = import_outcome(s, self.rt.version) if guarded and s.handlers else None  # told for the target
        if known is True:  # every import surely succeeds there: no handler runs
            parts = parts[:1]
        elif isinstance(known, tuple):  # one surely fails there: what is before it, then its handler
            stop, caught = known
            parts = [lambda: self.block(s.body[:stop], c) and handler(caught)()]
        falls = self.branches(c, parts, not guarded, guarded and known is None)
        return self.block(s.finalbody, c) and falls

    s_TryStar = s_Try

    def swallowed(self, s: ast.Try, c: Ctx) -> None:
        """`finally: break` (`continue`, `return`): a raise in the body or a handler, before anything
        they bind, leaves through the finally's break with what was bound before the try; the
        finally's fall-through on that path re-raises (not a way on)."""
        mark, saved = c.flow.open(), c.flow.facts
        ran = [*s.body, *s.orelse, *[b for h in s.handlers for b in h.body]]
        c.flow.facts = changed_by(without(saved, stored(ran)), ran, c.flow.immutable)
        self.block(s.finalbody, c)
        c.flow.close(mark)
        c.flow.facts = saved

    def s_Match(self, s: ast.stmt, c: Ctx) -> bool:
        self.expr(s.subject, c)  # type: ignore[attr-defined]
        return self.cases(s.subject, s.cases, c)  # type: ignore[attr-defined]

    def cases(self, subject: ast.expr, cases: list[ast.AST], c: Ctx) -> bool:
        """The cases of a `match`, one of which runs (or none). A guard that binds (a walrus, the
        pattern's captures) and comes out false is a way of its own: on to the later cases with
        those bound, where the pattern matched (`case 1 if (v := b):` / `case _:` binds v where the
        subject is 1 whichever case runs)."""
        split = binding_guards(cases)
        parts: list[Callable[[], bool]] = []
        for case in cases:

            def walk(case: ast.AST = case) -> bool:
                self.expr(case.pattern, c)  # type: ignore[attr-defined]
                if case.guard is not None:  # type: ignore[attr-defined]
                    self.expr(case.guard, c)  # type: ignore[attr-defined]
                return self.block(case.body, c)  # type: ignore[attr-defined]

            parts.append(walk)
        enter = [self.own_facts(f, c) for f in case_facts(subject, cases, split)]
        if not any(case.guard is None and irrefutable(case.pattern) for case in cases):  # type: ignore[attr-defined]
            parts.append(lambda: True)  # no case matched
        enter = enter[: len(parts)]
        for i in sorted(split):

            def declined(i: int = i) -> bool:  # case i's pattern matched, its guard came out false
                case, guard = cases[i], cases[i].guard  # type: ignore[attr-defined]
                self.expr(case.pattern, c)  # type: ignore[attr-defined]
                # the guard's reads were judged on case i's own way, from the same state: here only
                # what it binds wherever it comes out false (a walrus an `and` may skip is not)
                for name in guard_binds(guard):
                    c.flow.bind(name.id, name.lineno)
                if changes(guard):
                    c.flow.changed()
                c.flow.assume(self.own_facts(of_test(guard, False, c.flow.facts), c))
                return self.cases(subject, cases[i + 1 :], c)

            parts.append(declined)
            enter.append(self.own_facts(pattern_facts(subject, cases[i].pattern), c))  # type: ignore[attr-defined]
        return self.branches(c, parts, enter=enter)


def irrefutable(p: ast.AST) -> bool:
    """`case _:`, `case name:`, or an `|` with one of those: matches every subject (the names walk
    and placement's reachability both ask it)."""
    if type(p).__name__ == "MatchAs":
        return p.pattern is None or irrefutable(p.pattern)  # type: ignore[attr-defined]
    if type(p).__name__ == "MatchOr":
        return any(irrefutable(x) for x in p.patterns)  # type: ignore[attr-defined]
    return False


def _debug_test(test: ast.expr) -> bool:
    """`__debug__`, `not __debug__`: the same on every run of one interpreter (`python -O` flips it)."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Name) and test.id == "__debug__"


def guard_binds(guard: ast.expr) -> list[ast.Name]:
    """The walrus targets a guard binds wherever it comes out false: those of a lone walrus or
    comparison (`(v := b)`, `(v := b) > 0`), and every operand's of a false `or` or the first
    operand's of an `and` (path_stores.evaluated)."""
    test = guard
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.BoolOp):
        first = test.values[0] if isinstance(test.op, ast.And) else None
        return evaluated(guard, False) + ([] if first is None else guard_binds(first))
    if isinstance(test, (ast.NamedExpr, ast.Compare)):
        top = [test] if isinstance(test, ast.NamedExpr) else [test.left, test.comparators[0]]  # the rest may not run
        return [n.target for n in top if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)]
    return []

"""Loops in pass 2: a `for` or `while` is left by its test after a pass that falls through, by a
`continue` on its last pass, or by a `break`; the `else` runs on the first two. A name the body
binds is bound after the loop only where every one of those paths binds it: a `break` (or the
`continue` of a last pass) before the binding, or `while True:` left by a `break` above it, leaves
it unbound (`for i in xs:` / `if i < 0: break` / `v = i` then `return v`).

A `for` loop's zero passes are not counted, as Python's linters do not count them (pylint's
possibly-used-before-assignment): `for x in items: last = x` / `return last` is taken as code that
iterates a non-empty iterable, which the walk cannot see (a real series' new scheduler does so
over `zip(batch, sizes)` after `if not batch: continue`), unless the iterable is an empty literal
(`[]`, `()`, `""`, `range(0)`, `range(2, 2)`) or one the path's facts tell is false (`if xs: return 0`
/ `for x in xs:`; `range(n)` where they tell `n > 0` is false: `if n < 1: for i in range(n):`).
A `while` loop's test may be false at once (and bind by walrus only where its first operands were
true): that path counts, but for `while True:`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .expressions import Expressions
from .first_pass import loop_end
from .flow import Ctx
from .path_facts import changed_by, changes, of_test, outcome, stable
from .path_stores import stored, without
from .problem import DELETED, UNBOUND, Problem


class Loops(Expressions):
    def s_For(self, s: ast.For | ast.AsyncFor, c: Ctx) -> bool:
        self.expr(s.iter, c)

        def body() -> bool:
            self.expr(s.target, c)
            return self.block(s.body, c)

        # no pass: an empty literal, or an iterable the path's facts tell is false (`if xs: return` before it)
        none = _empty(s.iter) or outcome(c.flow.facts, s.iter) is False or _no_count(s.iter, c)
        return self.loop(c, s, body, none, False, s.iter)

    s_AsyncFor = s_For

    def s_While(self, s: ast.While, c: Ctx) -> bool:
        endless = isinstance(s.test, ast.Constant) and bool(s.test.value)
        self.expr(s.test, c)  # the first test runs on every path: `while (b := f.read()):` binds b

        def body() -> bool:
            for n in ast.walk(s.test):  # the test again, after each pass: its walrus binds again
                if isinstance(n, ast.NamedExpr):
                    self.expr(n.target, c)
            c.flow.assume(self.own_facts(of_test(s.test, True, c.flow.facts), c))  # true at each pass's start
            return self.block(s.body, c)

        return self.loop(c, s, body, not endless, endless, s.test)  # a `while` test false at once counts

    def s_Break(self, s: ast.Break, c: Ctx) -> bool:
        c.flow.leave("break")
        return False

    def s_Continue(self, s: ast.Continue, c: Ctx) -> bool:
        c.flow.leave("continue")
        return False

    def block(self, stmts: list[ast.stmt], c: Ctx) -> bool:  # walk.Walker's
        raise NotImplementedError

    def loop(
        self,
        c: Ctx,
        s: ast.For | ast.AsyncFor | ast.While,
        body: Callable[[], bool],
        skips: bool,
        endless: bool,
        test: ast.expr,
    ) -> bool:
        """Walk one pass of the body and join the paths that leave the loop; False when none does."""
        flow = c.flow
        flow.loops.append([])
        entry, flow.facts = flow.facts, {}  # a later pass may come with any values: no facts in the body
        # nor in the claims: a pass may have rebound (or changed) what they tell of before the next reads
        flow.repass(stored([s]), changes(s) or _runs_code(s))
        # a name bound before the loop that its body deletes: the next pass may find it unbound
        tracked = flow.track(_deleted(s) & flow.definite) if c.scope.kind in ("function", "module") else {}
        for name in _test_reads(s, tracked):  # a `while` test runs again at the top of each pass
            tracked[name][1].append(s.lineno)
        mark = flow.open_loop()
        flow.tail_unknown = False
        falls = body()
        exits = flow.loop_exits.pop()
        net = flow.close(mark)
        if tracked:
            self.deleted_reads(s, c, tracked, ([net] if falls else []) + [n for n, _ in exits.continues])
            shadows = {key for key, _ in tracked.values()}
            for ways in (exits.breaks, exits.continues):
                ways[:] = [({k: v for k, v in n.items() if k not in shadows}, a) for n, a in ways]
            net = {k: v for k, v in net.items() if k not in shadows}
        bound, flow.tail_unknown = flow.bound, False
        pad = {name: name in flow.definite for name in bound}  # what a way out that binds nothing leaves
        normal: list[tuple[dict[str, bool], set[str] | None]] = [({}, set())] if skips else []
        if not endless:  # the test ends the loop after a pass that falls through or continues
            normal += ([(net, bound)] if falls else []) + exits.continues
        nets: list[dict[str, bool]] = []
        anywhere: list[set[str] | None] = []
        if normal:
            part = flow.open()
            flow.join([pad | n for n, _ in normal], anywhere=[a for _, a in normal])
            flow.facts = {}
            if self.block(s.orelse, c):
                after = flow.close(part)
                # a name some normal path bound was claimed (or not) by that join; one none bound is the else's
                nets.append(pad | after)
                anywhere.append(flow.bound | {name for n, _ in normal for name, present in n.items() if present})
            else:
                flow.close(part)
        for n, a in exits.breaks:
            nets.append(pad | n)
            anywhere.append(a)
        flow.join(nets, anywhere=anywhere)
        # a pass may have changed what entry's facts state; a `for` runs its iterator's code too
        fixed = flow.immutable
        ran = stable(entry, fixed) if isinstance(s, (ast.For, ast.AsyncFor)) else changed_by(entry, s, fixed)
        flow.facts = without(ran, stored([s]))
        if isinstance(s, ast.While) and not exits.breaks and not s.orelse and not endless:  # left by its test only
            flow.assume(self.own_facts(of_test(s.test, False, flow.facts), c))
        backs = ([net] if falls else []) + [n for n, _ in exits.continues]  # the ways on to a next pass
        builtin = not self.enumerate_bound and self.star is None and self.dynamic is None  # `enumerate`
        outer, flow.closing = flow.closing, loop_end(s, entry, builtin, backs)
        for check in flow.loops.pop():
            check()
        flow.closing = outer
        return bool(nets)

    def deleted_reads(
        self, s: ast.stmt, c: Ctx, tracked: dict[str, tuple[str, list[int]]], backs: list[dict[str, bool]]
    ) -> None:
        """A name the loop's pass reads before binding it again, that a way on to the next pass leaves
        deleted (`v = 0` / `for x in a:` / `r = v` / `del v`): the next pass reads it unbound."""
        c.flow.untrack(tracked)
        for name, (_, lines) in tracked.items():
            if lines and any(back.get(name) is False for back in backs):
                line = _del_line(s, name)
                if c.scope.kind == "module":
                    detail = f" (del at line {line}, on the loop's previous pass)"
                    self.out.append(Problem(lines[0], name, c.scope.qual, DELETED, detail))
                else:
                    why = f"may be deleted by the loop's previous pass (del at line {line})"
                    self.out.append(Problem(lines[0], name, c.scope.qual, UNBOUND, why, True))


def _deleted(s: ast.stmt) -> set[str]:
    """The names a loop's body deletes: `del name`, `except ... as name` (deleted as its handler ends)."""
    out = set()
    for n in ast.walk(s):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del):
            out.add(n.id)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _del_line(s: ast.stmt, name: str) -> int:
    for n in ast.walk(s):
        if (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del) and n.id == name) or (
            isinstance(n, ast.ExceptHandler) and n.name == name
        ):
            return n.lineno
    return s.lineno


def _test_reads(s: ast.stmt, tracked: dict[str, tuple[str, list[int]]]) -> set[str]:
    """The tracked names a `while` test reads (it runs again after each pass)."""
    if not tracked or not isinstance(s, ast.While):
        return set()
    return {n.id for n in ast.walk(s.test) if isinstance(n, ast.Name) and n.id in tracked}


def _no_count(iterable: ast.expr, c: Ctx) -> bool:
    """`range(n)` where the path's facts tell `n > 0` is false (`if n < 1: for i in range(n):`)."""
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and len(iterable.args) == 1
        and not iterable.keywords
    ):
        return False
    positive = ast.Compare(left=iterable.args[0], ops=[ast.Gt()], comparators=[ast.Constant(0)])
    return outcome(c.flow.facts, positive) is False


def _empty(iterable: ast.expr) -> bool:
    """A literal that surely yields no item: `[]`, `()`, `set()`-less `{}`, `""`, `range(0)`, `range(2, 2)`."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return not iterable.elts
    if isinstance(iterable, ast.Dict):
        return not iterable.keys
    if isinstance(iterable, ast.Constant):
        return isinstance(iterable.value, (str, bytes)) and not iterable.value
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and not iterable.keywords
        and all(isinstance(a, ast.Constant) and type(a.value) is int for a in iterable.args)
    ):
        bounds = [a.value for a in iterable.args]  # type: ignore[attr-defined]
        return 1 <= len(bounds) <= 3 and (len(bounds) < 3 or bounds[2] != 0) and len(range(*bounds)) == 0
    return False


def _runs_code(s: ast.stmt) -> bool:
    """Does taking a `for` loop's next item run code (an iterator's `__next__`): all but a literal display's."""
    return isinstance(s, (ast.For, ast.AsyncFor)) and not isinstance(s.iter, (ast.List, ast.Tuple, ast.Constant))

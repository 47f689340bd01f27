"""Loops in pass 2: a `for` or `while` is left by its test (after no pass at all, unless the loop
surely runs one), by a `continue` on its last pass, or by a `break`; the `else` runs on the first
two. A name the body binds is bound after the loop only where every one of those paths binds it:
`for i in xs: v = i` / `return v` reads v unbound when xs is empty, as does a `break` (or the
`continue` of a last pass) before the binding, or `while True:` left by a `break` above it.

A loop surely runs a pass over a non-empty literal (`[a, b]`, `"ab"`, `range(3)`), as `while True:`
(left only by a `break`), and a name the path's facts tell is true (`if not xs: return` / `for x in
xs:`: a true container has an item; an iterator is always true, so not sound for one). One more,
narrowly: `range(n)` where a test of the path holding the loop
compares n with a positive whole number (`if n == 1: ... else: for i in range(n):`, omni-infer's
vLLM 0.9.0 AsyncLLM.generate): the code sizes n as a count there, and the walk takes it as one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .expressions import Expressions
from .flow import Ctx
from .path_facts import outcome, stored, without


class Loops(Expressions):
    # the tests of the ifs open around the statement walked, each with whether it holds there (walk.s_If)
    guards: list[tuple[ast.expr, bool]]

    def s_For(self, s: ast.For | ast.AsyncFor, c: Ctx) -> bool:
        self.expr(s.iter, c)

        def body() -> bool:
            self.expr(s.target, c)
            return self.block(s.body, c)

        skips = not (_nonempty(s.iter) or self.counted(s.iter) or outcome(c.flow.facts, s.iter))
        return self.loop(c, s, body, skips, False, s.iter)

    s_AsyncFor = s_For

    def s_While(self, s: ast.While, c: Ctx) -> bool:
        endless = isinstance(s.test, ast.Constant) and bool(s.test.value)
        self.expr(s.test, c)  # the first test runs on every path: `while (b := f.read()):` binds b

        def body() -> bool:
            for n in ast.walk(s.test):  # the test again, after each pass: its walrus binds again
                if isinstance(n, ast.NamedExpr):
                    self.expr(n.target, c)
            return self.block(s.body, c)

        return self.loop(c, s, body, not endless, endless, s.test)

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
        mark = flow.open_loop()
        flow.tail_unknown = False
        falls = body()
        exits = flow.loop_exits.pop()
        net = flow.close(mark)
        bound, flow.tail_unknown = flow.bound, False
        pad = {name: name in flow.definite for name in bound}  # what a way out that binds nothing leaves
        normal: list[tuple[dict[str, bool], set[str] | None]] = [({}, set())] if skips else []
        if not endless:  # the test ends the loop after a pass that falls through or continues
            normal += ([(net, bound)] if falls else []) + exits.continues
        nets: list[dict[str, bool]] = []
        anywhere: list[set[str] | None] = []
        if normal:
            part = flow.open()
            flow.join([pad | n for n, _ in normal], anywhere=[a for _, a in normal], test=[test])
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
        flow.join(nets, anywhere=anywhere, test=[test])
        flow.facts = without(entry, stored([s]))
        for check in flow.loops.pop():
            check()
        return bool(nets)

    def counted(self, iterable: ast.expr) -> bool:
        """`range(n)` where an open if's test says n is at least 1 there (module doc): `n >= 1`, `n > 0`,
        `n == 2` in its true branch (alone or in an `and`), `n < 1` in its else; and the one idiom the
        module doc names, `n == 1` in its else."""
        if not (_call_of(iterable, "range") and len(iterable.args) == 1):  # type: ignore[attr-defined]
            return False
        n = _dotted(iterable.args[0])  # type: ignore[attr-defined]
        if n is None:
            return False
        return any(_at_least_one(test, n, holds) for test, holds in self.guards)


def _at_least_one(test: ast.expr, n: str, holds: bool) -> bool:
    """Whether `test`, true when `holds` (else false), says n >= 1: through `not`, a conjunct of a true
    `and`, a disjunct of a false `or`, a comparison of n with a whole number; and `n == c` false, the
    sizing idiom the module doc names (not sound: n may be 0)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _at_least_one(test.operand, n, not holds)
    if isinstance(test, ast.BoolOp):
        every = isinstance(test.op, ast.And) == holds  # each part has the outcome of the whole
        return every and any(_at_least_one(v, n, holds) for v in test.values)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _dotted(right) == n and _dotted(left) != n:  # `1 <= n`: read as `n >= 1`
        left, right = right, left
        op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(type(op), op)
    if _dotted(left) != n or not (isinstance(right, ast.Constant) and type(right.value) is int):
        return False
    c = right.value
    if not holds:  # the test is false: the opposite comparison holds (`n == c` false: the idiom)
        flipped = {ast.Lt: ast.GtE(), ast.LtE: ast.Gt(), ast.Gt: ast.LtE(), ast.GtE: ast.Lt(), ast.NotEq: ast.Eq()}
        if isinstance(op, ast.Eq):
            return c >= 1
        op = flipped.get(type(op), op)
        if isinstance(op, ast.NotEq):
            return False
    return isinstance(op, ast.GtE) and c >= 1 or isinstance(op, ast.Gt) and c >= 0 or isinstance(op, ast.Eq) and c >= 1


def _dotted(node: ast.expr) -> str | None:
    """`n`, `params.n`: the name or attribute chain `node` reads (ast.dump would leave a cycle behind)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _call_of(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name and not node.keywords


def _positive(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 1


def _nonempty(iterable: ast.expr) -> bool:
    """A literal that surely yields an item: `[a]`, `(a, b)`, `{a}`, `"ab"`, `range(3)`, `range(1, 4)`."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return any(not isinstance(e, ast.Starred) for e in iterable.elts)
    if isinstance(iterable, ast.Constant):
        return isinstance(iterable.value, (str, bytes)) and bool(iterable.value)
    if _call_of(iterable, "range") and all(isinstance(a, ast.Constant) and type(a.value) is int for a in iterable.args):  # type: ignore[attr-defined]
        bounds = [a.value for a in iterable.args]  # type: ignore[attr-defined]
        return 1 <= len(bounds) <= 3 and (len(bounds) < 3 or bounds[2] != 0) and len(range(*bounds)) > 0
    return False

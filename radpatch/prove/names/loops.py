"""Loops in pass 2: a `for` or `while` is left by its test (after no pass at all, unless the loop
surely runs one), by a `continue` on its last pass, or by a `break`; the `else` runs on the first
two. A name the body binds is bound after the loop only where every one of those paths binds it:
`for i in xs: v = i` / `return v` reads v unbound when xs is empty, as does a `break` (or the
`continue` of a last pass) before the binding, or `while True:` left by a `break` above it.

A loop surely runs a pass over a non-empty literal (`[a, b]`, `"ab"`, `range(3)`), as `while True:`
(left only by a `break`). One more, narrowly: `range(n)` where a test of the path holding the loop
compares n with a positive whole number (`if n == 1: ... else: for i in range(n):`, omni-infer's
vLLM 0.9.0 AsyncLLM.generate): the code sizes n as a count there, and the walk takes it as one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .expressions import Expressions
from .flow import Ctx
from .path_facts import stored, without


class Loops(Expressions):
    guards: list[ast.expr]  # the tests of the ifs open around the statement walked (walk.s_If)

    def s_For(self, s: ast.For | ast.AsyncFor, c: Ctx) -> bool:
        self.expr(s.iter, c)

        def body() -> bool:
            self.expr(s.target, c)
            return self.block(s.body, c)

        skips = not (_nonempty(s.iter) or self.counted(s.iter))
        return self.loop(c, s, body, skips, False, s.iter)

    s_AsyncFor = s_For

    def s_While(self, s: ast.While, c: Ctx) -> bool:
        endless = isinstance(s.test, ast.Constant) and bool(s.test.value)

        def body() -> bool:
            self.expr(s.test, c)
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
        """`range(n)` where an open if's test compares n with a positive whole number (module doc)."""
        if not (_call_of(iterable, "range") and len(iterable.args) == 1):  # type: ignore[attr-defined]
            return False
        n = _dotted(iterable.args[0])  # type: ignore[attr-defined]
        for test in self.guards if n is not None else ():
            for node in ast.walk(test):
                if isinstance(node, ast.Compare) and len(node.ops) == 1:
                    sides = [node.left, node.comparators[0]]
                    if n in [_dotted(x) for x in sides] and any(_positive(x) for x in sides):
                        return True
        return False


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

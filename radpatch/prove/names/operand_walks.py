"""Expressions walked in parts (pass 2), split out of expressions: a comprehension (its items run
where it stands, its later iterables and `if`s where its own names are: `[0 for k in ks if k]` tests
the truth of k, an instance, there), the operands of `and`/`or` and the branches of a conditional
expression that run on some paths only, and what a call of a def binding through `nonlocal` binds."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable

from .closures import nonlocal_binds, runs_items, sure_calls
from .expression_guards import Guards
from .flow import Ctx
from .path_facts import Facts, changes, exact, of_test, root
from .path_stores import stored, without
from .special_forms import AITER, ITER, TRUTH


class Operands(Guards):
    walrus: bool
    shared: set[tuple[int, str]]
    declared_global: set[str]
    local_defs: dict[tuple[int, str], ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda]

    def child(self, node: ast.AST, c: Ctx) -> Ctx:  # expressions.Expressions'
        raise NotImplementedError

    def branches(
        self,
        c: Ctx,
        parts: list[Callable[[], bool]],
        exclusive: bool = True,
        per_run: bool = False,
        enter: list[Facts] | None = None,
        exact: list[Facts | None] | None = None,
    ) -> bool:  # expressions.Expressions'
        raise NotImplementedError

    def operand_runs(self, e: ast.expr, names: tuple[str, ...], c: Ctx) -> None:  # implicit_calls'
        raise NotImplementedError

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, c: Ctx) -> None:
        """A walrus in the items' part (`any((v := x) for x in xs)`) binds in the enclosing function on
        some paths only: no item (an empty iterable, a generator never run), or an `if` that drops it."""
        self.expr(node.generators[0].iter, c)
        inner = self.child(node, c)

        def items() -> bool:
            home = self.home(inner).flow
            saved = home.facts
            for i, gen in enumerate(node.generators):
                if i:
                    self.expr(gen.iter, inner)
                    self.operand_runs(gen.iter, AITER if gen.is_async else ITER, inner)  # `for x in k`
                self.expr(gen.target, inner)
                for cond in gen.ifs:
                    self.expr(cond, inner)
                    self.operand_runs(cond, TRUTH, inner)  # `if k`, k its own variable (names51)
                    self.item_test(cond, inner)  # the items after it run where it is true
            for e in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
                self.expr(e, inner)
            home.facts = without(saved, stored([node]))  # type: ignore[list-item]
            return True

        if self.walrus and any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)):
            home = self.ctx(c.scope.binding_scope())
            self.branches(home, [items, lambda: True])
        else:
            items()
        if self.shared and c.scope.kind == "function" and runs_items(node):  # `[g() for _ in [0]]`: g ran
            for call in sure_calls([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                for bound in self.binds_when_called(call, c):  # and bound what it binds
                    self.expr(ast.Name(bound, ast.Store(), lineno=call.lineno, col_offset=0), c)
        if changes(node):  # its calls and stores ran in its own scope: the path's facts and claims die here
            c.flow.changed()

    def binds_when_called(self, node: ast.Call, c: Ctx) -> list[str]:
        """`g()` where g, a def of this function, binds a local of it through `nonlocal` on every way
        it returns (closures.nonlocal_binds): bound once the call has returned (att43 #10)."""
        fn = self.local_defs.get((id(c.scope), node.func.id)) if isinstance(node.func, ast.Name) else None
        if fn is None or c.scope.kind != "function" or not isinstance(fn, ast.FunctionDef):
            return []
        return sorted(nonlocal_binds(fn) & c.scope.locals)

    def binding_operand(self, node: ast.BoolOp | ast.IfExp, c: Ctx) -> bool:
        """Does an operand past the first (a branch) call a def binding a local through `nonlocal`?"""
        rest = node.values[1:] if isinstance(node, ast.BoolOp) else [node.body, node.orelse]
        calls = [n for r in rest for n in ast.walk(r) if isinstance(n, ast.Call)]
        return any(self.binds_when_called(n, self.home(c)) for n in calls)

    def operands(self, node: ast.BoolOp | ast.IfExp, c: Ctx) -> None:
        """`a and (y := f())`, `(y := f()) if t else 0`: what the operands after the first (the
        branches of a conditional expression) bind, they bind on some paths only."""
        if isinstance(node, ast.BoolOp):
            first, parts = node.values[0], [node.values[1:], []]
            runs = isinstance(node.op, ast.And)  # the rest runs where the first is true (`and`), false (`or`)
        else:
            first, parts, runs = node.test, [[node.body], [node.orelse]], True
        self.expr(first, c)
        told = [of_test(first, outcome, c.flow.facts) for outcome in (runs, not runs)]
        enter = [self.own_facts(f, c) for f in told]
        sure = [e if e == f and exact(first, o) else None for e, f, o in zip(enter, told, (runs, not runs))]
        walks: list[Callable[[], bool]] = [functools.partial(self.walked, part, c) for part in parts]
        self.branches(c, walks, enter=enter, exact=sure)

    def own_facts(self, facts: Facts, c: Ctx) -> Facts:
        """The facts on the function's own locals, which no call can rebind (not a module name, a
        `global`, or one a nested function rebinds with `nonlocal`); at module level, on the module's
        names no function of it declares `global` (a store through `globals()` is not followed)."""
        scope = c.scope
        if not facts or scope.kind not in ("function", "module"):
            return {}
        if scope.kind == "module":
            return {k: v for k, v in facts.items() if root(k) in scope.bound and root(k) not in self.declared_global}
        return {k: v for k, v in facts.items() if root(k) in scope.locals and (id(scope), root(k)) not in self.shared}

    def walked(self, nodes: list[ast.expr], c: Ctx) -> bool:
        for node in nodes:
            self.expr(node, c)
        return True

"""Guards inside expressions (pass 2): an operand of `and`/`or`, a branch of a conditional expression
and a comprehension's item are evaluated only where the tests before them came out one way, so a
read there is judged with those tests' facts (path_facts), `not` and De Morgan included: `not a or v`,
`not (a and b) or v`, `v if a else 0`, `[v for x in xs if a]` read v only where a is true. A
comprehension runs where it stands: its tests' facts are its enclosing function's path facts while
its items are walked (a name the comprehension binds itself is not that function's), and a call in it
takes away there what a call takes (Flow.changed).
"""

from __future__ import annotations

import ast

from .flow import Ctx
from .path_facts import Facts, capped, changed_by, of_test
from .path_stores import stored, without
from .resolve import Resolver
from .scope_bindings import NameScope


class Guards(Resolver):
    """Reads judged with the facts of the tests an expression evaluated before them."""

    def ctx(self, scope: NameScope) -> Ctx:  # expressions.Expressions'
        raise NotImplementedError

    def expr(self, root: ast.AST, c: Ctx) -> None:  # expressions.Expressions'
        raise NotImplementedError

    def own_facts(self, facts: Facts, c: Ctx) -> Facts:  # expressions.Expressions'
        raise NotImplementedError

    def home(self, c: Ctx) -> Ctx:
        """The scope whose flow a read in `c` is judged by: past comprehensions (they run where they stand)."""
        return c if c.scope.kind != "comprehension" else self.ctx(c.scope.binding_scope())

    def guard_facts(self, test: ast.expr, outcome: bool, c: Ctx, path: Facts) -> Facts:
        """The facts on the home scope's own names where `test` (walked in `c`) came out `outcome`."""
        home = self.home(c)
        facts = self.own_facts(of_test(test, outcome, path), home)
        if home is not c:  # a comprehension's own names (`x` of `for x in xs`) are not the home's
            facts = without(facts, _comprehension_names(c.scope))
        return facts

    def guarded_here(self, c: Ctx) -> bool:
        """Is a read in `c` judged by path facts anywhere (a claim with facts): worth walking guards for?"""
        flow = self.home(c).flow
        return bool(flow.conds or flow.sure)

    def conditional(self, node: ast.BoolOp | ast.IfExp, c: Ctx) -> None:
        """`x and v`, `not x or v`, `v if x else 0`: an operand read after a test reads it where the test
        came out so (path_facts), as an if's branch does: v bound where x is true is bound there."""
        flow = self.home(c).flow
        saved = flow.facts
        if isinstance(node, ast.IfExp):
            self.expr(node.test, c)
            for value, outcome in ((node.body, True), (node.orelse, False)):
                flow.facts = capped(saved | self.guard_facts(node.test, outcome, c, saved))
                self.expr(value, c)
        else:
            for value in node.values:
                self.expr(value, c)
                flow.assume(self.guard_facts(value, isinstance(node.op, ast.And), c, flow.facts))
        # what held before, but of what it binds (`(w := a) and 0`) and what its calls may change
        flow.facts = changed_by(without(saved, stored([node])), node, flow.immutable)  # type: ignore[list-item]

    def item_test(self, test: ast.expr, inner: Ctx) -> None:
        """A comprehension's `if test` (walked in `inner`): its items are evaluated where it is true."""
        flow = self.home(inner).flow
        flow.assume(self.guard_facts(test, True, inner, flow.facts))


def _comprehension_names(scope: NameScope) -> set[str]:
    """The names `scope`, a comprehension, and those around it up to its binding scope bind themselves."""
    out: set[str] = set()
    s: NameScope | None = scope
    while s is not None and s.kind == "comprehension":
        out |= s.locals
        s = s.parent
    return out

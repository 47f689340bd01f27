"""Pass 2 of the names check: follow a module's statements in evaluation order, module-level code
first, then each function body once its enclosing scope is complete. Branches (if/else,
try/except, match) and loops are joined by binding flow; `return`/`raise` end a path.
"""

from __future__ import annotations

import ast
import builtins
import typing as _typing
from collections.abc import Callable, Iterable

from .flow import Ctx
from .helper_exits import ENDS, callee, helpers
from .loops import Loops
from .path_facts import case_facts, evaluated, exact, of_constant, of_flag, of_test, outcome, stored, without
from .problem import UNDEFINED, Problem, Runtime
from .scope_bindings import FUNCS, NameScope, arg_annotations, arg_names, import_name, type_params
from .self_imports import self_import_problems
from .swallowing import Swallowing, finally_swallows, last_raising
from .typing_only import type_checking, type_checking_names, typing_only
from .version_guard import aliases, decide, flags


class Walker(Loops):
    def __init__(
        self, tree: ast.Module, scopes: dict[int, NameScope], runtime: Runtime, module: tuple[str, bool] | None = None
    ) -> None:
        super().__init__(tree, scopes, runtime)
        self.tree, self.self_module = tree, module
        self.everywhere = {n for s in scopes.values() for n in s.bound}
        self.type_checking_aliases = type_checking_names(tree)
        self.version_names: tuple[dict[str, str], dict[str, ast.expr]] | None = None  # version_guard's, when asked
        self.helpers = helpers(tree)  # which of the module's own functions and methods never return
        self.swallowing = Swallowing(tree)  # which `with` managers may swallow what their body raises

    def run(self) -> list[Problem]:
        top = self.ctx(self.module)
        self.block(self.tree.body, top)
        i = 0
        while i < len(self.deferred):  # function bodies, once their enclosing scope is complete
            node, c = self.deferred[i]
            self.deferred_body(node, c)
            i += 1
        for use in self.uses:
            self.resolve_global(use)
        for name, line, scope in self.lazy_uses:
            if (
                name not in self.everywhere
                and name not in self.typing
                and not self.builtin(name)
                and not self.starred(name, None)
            ):
                self.out.append(Problem(line, name, scope.qual, UNDEFINED))
        return self.out + self.facts()

    def block(self, stmts: Iterable[ast.stmt], c: Ctx) -> bool:
        """Walk statements in order; False when control cannot fall off the end."""
        falls = True
        last = None
        for s in stmts:
            falls = self.stmt(s, c) and falls
            last = s
        called = callee(last) if last is not None else None
        c.flow.tail_unknown = called is not None and not hasattr(builtins, called) and self.helpers.may_end(called)
        return falls

    def stmt(self, s: ast.stmt, c: Ctx) -> bool:
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is not None:
            return bool(method(s, c))
        for child in ast.iter_child_nodes(s):  # Expr, Return, Raise, Assert, Delete, ...
            if isinstance(child, ast.expr):
                self.expr(child, c)
        return not isinstance(s, (ast.Return, ast.Raise, ast.Continue, ast.Break)) and callee(s) not in ENDS

    def s_Assign(self, s: ast.Assign, c: Ctx) -> bool:
        self.expr(s.value, c)
        for t in s.targets:
            self.expr(t, c)
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):  # `ok = True`: a fact of the path
            name = s.targets[0].id
            c.flow.assume(self.own_facts(of_constant(name, s.value) or of_flag(name, s.value), c))
        return True

    def s_AugAssign(self, s: ast.AugAssign, c: Ctx) -> bool:
        if isinstance(s.target, ast.Name):
            self.use(s.target.id, s.target.lineno, c)
        self.expr(s.value, c)
        self.expr(s.target, c)
        return True

    def s_AnnAssign(self, s: ast.AnnAssign, c: Ctx) -> bool:
        if s.value is not None:
            self.expr(s.value, c)
        if c.scope.kind in ("module", "class"):  # a function's local annotations are never evaluated
            self.annotation(s.annotation, c)
        if s.value is not None or not isinstance(s.target, ast.Name):
            self.expr(s.target, c)
        return True

    def s_Import(self, s: ast.Import | ast.ImportFrom, c: Ctx) -> bool:
        if self.self_module is not None and c.scope.import_time:
            self.out += self_import_problems(self.self_module, s, self.flow(self.module).maybe, c.scope.qual)
        for a in s.names:
            if a.name == "*" and isinstance(s, ast.ImportFrom) and s.module == "typing" and not s.level:
                for name in _typing.__all__:  # this interpreter's (the target's, when served): no other name
                    c.flow.bind(name, s.lineno)
            elif a.name == "*":
                if self.star is None:
                    self.star = s.lineno
            else:
                c.flow.bind(import_name(a), s.lineno)
        return True

    s_ImportFrom = s_Import

    def s_Delete(self, s: ast.Delete, c: Ctx) -> bool:
        for t in s.targets:
            if isinstance(t, ast.Name):
                self.use(t.id, t.lineno, c)
                self.unbind(t.id, t.lineno, c)
            else:
                self.expr(t, c)
        return True

    def s_Assert(self, s: ast.Assert, c: Ctx) -> bool:
        """`assert t, msg` raises where t is false: after it, t's facts hold on the path (path_facts;
        `if a: v = 1` / `assert a` / `return v`). Under `python -O` asserts are gone: not followed here."""
        self.expr(s.test, c)
        if s.msg is not None:
            self.expr(s.msg, c)
        c.flow.assume(self.own_facts(of_test(s.test, True, c.flow.facts), c))
        return True

    def s_Global(self, s: ast.stmt, c: Ctx) -> bool:
        return True

    s_Nonlocal = s_Global

    def s_If(self, s: ast.If, c: Ctx) -> bool:
        typing = type_checking(s.test, self.type_checking_aliases)
        if typing is None and isinstance(s.test, ast.Constant) and s.test.value is not ...:
            self.expr(s.test, c)  # `if True:`, `if 0:`: one branch ever runs
            return self.block(s.body if s.test.value else s.orelse, c)
        if typing is None:
            self.expr(s.test, c)
            # a test on the Python version or `__debug__` is constant for a run of the target: not a branch
            # a name is partly bound by (the version's dead branch is placement's and fallback_only's)
            fixed = self.version_test(s.test) or _debug_test(s.test)
            taken = None if fixed else outcome(c.flow.facts, s.test)
            if taken is not None:  # the path's facts decide the test: the other branch is not taken here
                return self.guarded(s.test, s.body if taken else s.orelse, c, taken)
            parts = [lambda: self.guarded(s.test, s.body, c, True), lambda: self.guarded(s.test, s.orelse, c, False)]
            told = [of_test(s.test, outcome, c.flow.facts) for outcome in (True, False)]
            enter = [self.own_facts(f, c) for f in told]
            sure = [e if e == f and exact(s.test, o) else None for e, f, o in zip(enter, told, (True, False))]
            return self.branches(c, parts, not fixed, fixed, [s.test], enter, exact=sure)
        dead, live = (s.body, s.orelse) if typing else (s.orelse, s.body)
        typing_only(dead, self.typing)
        return self.block(live, c)

    def guarded(self, test: ast.expr, body: list[ast.stmt], c: Ctx, holds: bool) -> bool:
        """`body`, walked in the branch where `test` came out `holds`."""
        for name in evaluated(test, holds):  # `if a and (m := f()):` binds m wherever it is true
            c.flow.bind(name.id, name.lineno)
        return self.block(body, c)

    def version_test(self, test: ast.expr) -> bool:
        """Does `test` read the Python version (version_guard decides it for some version)?"""
        if self.version_names is None:
            self.version_names = (aliases(self.tree), flags(self.tree))
        renamed, flagged = self.version_names
        return any(isinstance(decide(test, v, renamed, flagged), bool) for v in ((3, 0), (3, 99)))

    def s_With(self, s: ast.With | ast.AsyncWith, c: Ctx) -> bool:
        for item in s.items:
            self.expr(item.context_expr, c)
            if item.optional_vars is not None:
                self.expr(item.optional_vars, c)
        if any(self.swallowing.may_swallow(item.context_expr) for item in s.items):  # the body may stop anywhere
            stopped = stored(s.body)

            def stops() -> bool:
                c.flow.facts = without(c.flow.facts, stopped)
                return True

            return self.branches(c, [lambda: self.block(s.body, c), stops], test=s.body, decides=False)
        return self.block(s.body, c)

    s_AsyncWith = s_With

    def s_Try(self, s: ast.Try, c: Ctx) -> bool:
        def handler(h: ast.ExceptHandler) -> Callable[[], bool]:
            def walk() -> bool:
                c.flow.facts = without(c.flow.facts, body_stores)  # the body may have stopped anywhere
                if h.type is not None:
                    self.expr(h.type, c)
                had = h.name is not None and h.name in c.flow.maybe
                if h.name:
                    c.flow.bind(h.name, h.lineno)
                falls = self.block(h.body, c)
                if h.name:  # `except E as e` deletes e when the handler ends
                    c.flow._set(h.name, False)
                    if not had:
                        c.flow.maybe.pop(h.name, None)
                return falls

            return walk

        body_stores = stored(s.body[: last_raising(s.body) + 1])  # after it, nothing raises
        if s.finalbody and finally_swallows(s.finalbody):  # what the body or a handler raises may end here
            self.swallowed(s, c)
        parts: list[Callable[[], bool]] = [lambda: self.block(s.body, c) and self.block(s.orelse, c)]
        parts += [handler(h) for h in s.handlers]
        # a guarded import (a body of imports only) fails or not once per install, as a version test is
        # decided per target: not a branch this check counts (fallback_only judges its fallback on the target)
        guarded = all(isinstance(b, (ast.Import, ast.ImportFrom, ast.Pass)) for b in s.body)
        falls = self.branches(c, parts, not guarded, guarded, s.body, decides=False)
        return self.block(s.finalbody, c) and falls

    s_TryStar = s_Try

    def swallowed(self, s: ast.Try, c: Ctx) -> None:
        """`finally: break` (`continue`, `return`): a raise in the body or a handler, before anything
        they bind, leaves through the finally's break with what was bound before the try; the
        finally's fall-through on that path re-raises (not a way on)."""
        mark, saved = c.flow.open(), c.flow.facts
        c.flow.facts = without(saved, stored([*s.body, *s.orelse, *[b for h in s.handlers for b in h.body]]))
        self.block(s.finalbody, c)
        c.flow.close(mark)
        c.flow.facts = saved

    def s_Match(self, s: ast.stmt, c: Ctx) -> bool:
        self.expr(s.subject, c)  # type: ignore[attr-defined]
        parts: list[Callable[[], bool]] = []
        for case in s.cases:  # type: ignore[attr-defined]

            def walk(case: ast.AST = case) -> bool:
                self.expr(case.pattern, c)  # type: ignore[attr-defined]
                if case.guard is not None:  # type: ignore[attr-defined]
                    self.expr(case.guard, c)  # type: ignore[attr-defined]
                return self.block(case.body, c)  # type: ignore[attr-defined]

            parts.append(walk)
        cases = s.cases  # type: ignore[attr-defined]
        if not any(case.guard is None and irrefutable(case.pattern) for case in cases):
            parts.append(lambda: True)  # no case matched
        guards = [case.guard for case in cases if case.guard is not None]
        enter = [self.own_facts(f, c) for f in case_facts(s.subject, cases)][: len(parts)]  # type: ignore[attr-defined]
        return self.branches(c, parts, test=[s.subject, *guards], enter=enter)  # type: ignore[attr-defined]

    def s_FunctionDef(self, s: ast.FunctionDef | ast.AsyncFunctionDef, c: Ctx) -> bool:
        for d in s.decorator_list:
            self.expr(d, c)
        outer = self.params(s, c)
        for default in [*s.args.defaults, *s.args.kw_defaults]:
            if default is not None:
                self.expr(default, outer)
        for a in [*arg_annotations(s.args), s.returns]:
            if a is not None:
                self.annotation(a, outer)
        self.deferred.append((s, self.child(s, c)))
        c.flow.bind(s.name, s.lineno)
        return True

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, s: ast.ClassDef, c: Ctx) -> bool:
        for d in s.decorator_list:
            self.expr(d, c)
        outer = self.params(s, c)
        for b in [*s.bases, *s.keywords]:
            self.expr(b, outer)
        inner = self.child(s, c)
        self.block(s.body, inner)
        c.flow.bind(s.name, s.lineno)
        return True

    def s_TypeAlias(self, s: ast.stmt, c: Ctx) -> bool:
        name = s.name  # type: ignore[attr-defined]
        self.deferred.append((s, self.child(s, c)))
        c.flow.bind(name.id, s.lineno)
        return True

    def params(self, s: ast.AST, c: Ctx) -> Ctx:
        if not type_params(s):
            return c
        inner = self.child(s.type_params, c)  # type: ignore[attr-defined]
        for p in type_params(s):
            inner.flow.bind(p.name, s.lineno)  # type: ignore[attr-defined]
        return inner

    def deferred_body(self, node: ast.AST, c: Ctx) -> None:
        if isinstance(node, ast.Lambda):
            for a in arg_names(node.args):
                c.flow.bind(a.arg, node.lineno)
            self.expr(node.body, c)
        elif isinstance(node, FUNCS):
            for a in arg_names(node.args):
                c.flow.bind(a.arg, node.lineno)
            self.block(node.body, c)
        else:  # a type alias' value
            for p in type_params(node):
                c.flow.bind(p.name, node.lineno)  # type: ignore[attr-defined]
            self.expr(node.value, c)  # type: ignore[attr-defined]


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

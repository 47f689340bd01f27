"""Pass 2 of the names check: follow a module's statements in evaluation order, module-level code
first, then each function body once its enclosing scope is complete. Branches (if/else, with,
try/except, match: branch_statements) and loops (loops) are joined by binding flow (flow, claims);
`return`/`raise` end a path. The simple statements and the definitions are walked here.
"""

from __future__ import annotations

import ast
import builtins
import typing as _typing
from collections.abc import Iterable

from .branch_statements import BranchStatements
from .flow import Ctx
from .helper_exits import ENDS, callee, helpers, may_raise, raises_only_before, simple
from .path_facts import of_constant, of_flag, of_test
from .problem import UNDEFINED, Problem, Runtime
from .scope_bindings import FUNCS, NameScope, arg_annotations, arg_names, import_name, type_params
from .self_imports import self_import_problems
from .swallowing import Swallowing
from .typing_only import type_checking_names


class Walker(BranchStatements):
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
        before = len(c.flow.kept)
        falls = self.statement(s, c)
        if may_raise(s):  # with what was kept so far (flow.restore: a `raise` going on into a handler)
            after = simple(s) and not (len(c.flow.kept) > before and self.kept_before_raising(s, c))
            c.flow.raise_mark = max(c.flow.raise_mark, len(c.flow.kept) if after else before)
        if isinstance(s, (ast.Return, ast.Raise)) or callee(s) in ENDS:
            c.flow.ends.add("return" if isinstance(s, ast.Return) else "raise")
        return falls

    def kept_before_raising(self, s: ast.stmt, c: Ctx) -> bool:
        """Does `s`, which kept a function, raise only before keeping it? (helper_exits.raises_only_before:
        `keep(g)` of a module function that cannot raise, `BOX.cb = g` on a plain class's instance)"""
        name = callee(s) or ""
        target = s.targets[0] if isinstance(s, ast.Assign) else None
        owner = target.value.id if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) else ""
        local = c.scope.locals if c.scope is not self.module else set()
        here = {n for n in (name, owner) if n in local or n in self.declared_global}
        fn = self.local_defs.get((id(self.module), name)) if name and not here else None
        cls = self.instances.get((id(self.module), owner)) if owner and not here else None
        return raises_only_before(s, fn, cls)

    def statement(self, s: ast.stmt, c: Ctx) -> bool:
        self.implicit(s, c)  # `if k:`, `for x in k`, `with k:`, `k += 1` of this scope's instances
        if self.holders:
            self.quiet_reads(s)  # `if cbs:` runs nothing cbs holds (kept_callbacks)
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is not None:
            return bool(method(s, c))
        for child in ast.iter_child_nodes(s):  # Expr, Return, Raise, Assert, Delete, ...
            if isinstance(child, ast.expr):
                self.expr(child, c)
        if isinstance(s, (ast.Return, ast.Raise)) and self.stored_callbacks:  # a callback kept may run once it ends
            self.run_stored(s.lineno, c)
        return not isinstance(s, (ast.Return, ast.Raise, ast.Continue, ast.Break)) and callee(s) not in ENDS

    def s_Assign(self, s: ast.Assign, c: Ctx) -> bool:
        if self.local_defs or self.lambdas:
            self.holding(s, c)  # `t = Thread(target=g)`, `cbs = []`: t alone reaches what is kept (kept_callbacks)
        self.expr(s.value, c)
        for t in s.targets:
            self.expr(t, c)
        if self.local_defs:
            self.stored_through(s, c)  # `self.cb = g`, `cbs[k] = g`: g kept
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):  # `ok = True`: a fact of the path
            name = s.targets[0].id
            if isinstance(s.value, ast.Lambda):  # `g = lambda: v`: a call of g reads v (closure_call)
                self.local_defs[(id(c.scope), name)] = s.value
                self.def_bound[id(s.value)] = frozenset(c.flow.definite)
            elif isinstance(s.value, ast.Name) and (id(c.scope), s.value.id) in self.local_defs:  # `h = g`
                self.local_defs[(id(c.scope), name)] = self.local_defs[(id(c.scope), s.value.id)]
            self.made_instance(name, s.value, c)  # `k = K()` (implicit_calls)
            if c.flow.loops and isinstance(s.value, ast.Constant):  # a flag flipped in a loop (first_pass)
                seen = self.flips.get(id(s))
                self.flips[id(s)] = frozenset(c.flow.definite) if seen is None else seen & c.flow.definite
            c.flow.assume(self.own_facts(of_constant(name, s.value) or of_flag(name, s.value), c))
        return True

    def s_AugAssign(self, s: ast.AugAssign, c: Ctx) -> bool:
        if isinstance(s.target, ast.Name):
            self.use(s.target.id, s.target.lineno, c)
        if self.containers:
            self.grown(s, c)  # `cbs += [g]`: cbs keeps g (kept_callbacks)
        self.expr(s.value, c)
        self.expr(s.target, c)
        c.flow.changed()  # in place: `b += [1]` changes the list another name holds too
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
        self.decorated(s, c)  # each decorator called with the function (implicit_calls)
        c.flow.bind(s.name, s.lineno)
        if s.decorator_list:  # g is what the decorators return
            self.local_defs.pop((id(c.scope), s.name), None)
        else:
            self.local_defs[(id(c.scope), s.name)] = s
            self.def_bound[id(s)] = frozenset(c.flow.definite)
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
        self.made_class(s, c)  # its methods run where Python calls them (implicit_calls)
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
            if self.stored_callbacks:  # once it is done, at its end
                self.run_stored(node.end_lineno or node.lineno, c)
        else:  # a type alias' value
            for p in type_params(node):
                c.flow.bind(p.name, node.lineno)  # type: ignore[attr-defined]
            self.expr(node.value, c)  # type: ignore[attr-defined]

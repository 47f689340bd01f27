"""Following expressions in evaluation order (pass 2): reads are resolved where they run, stores
bind, lambdas and comprehensions open their scopes, and annotations are walked only where
they are evaluated (not under `from __future__ import annotations`, nor on Python 3.14+)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .fixed_values import computed_globals, fixed_locals
from .flow import ALL_ENDS, Ctx
from .implicit_calls import ImplicitCalls
from .kept_callbacks import Stored, keepers, passed_on
from .lambda_runs import calls_given
from .operand_walks import Operands
from .path_facts import EFFECTS, Facts, capped, meet
from .problem import Runtime
from .scope_bindings import COMPS, FUNCS, NameScope

_MATCH_NAMES = ("name", "rest")
_CHANGED = ast.Pass()  # on expr's stack below a call's operands: what it may change, once it has run


class Expressions(ImplicitCalls, Operands):
    def __init__(self, tree: ast.Module, scopes: dict[int, NameScope], runtime: Runtime) -> None:
        super().__init__(scopes, scopes[id(tree)], runtime)
        self.scopes = scopes
        self.deferred: list[tuple[ast.AST, Ctx]] = []
        self.lazy_uses: list[tuple[str, int, NameScope]] = []
        walked = list(ast.walk(tree))
        self.walrus, self.lambdas = (any(isinstance(n, t) for n in walked) for t in (ast.NamedExpr, ast.Lambda))
        self.rebinds_any = any(computed_globals(n) for n in walked)  # no builtin it calls is sure (att50 #3)
        self.shared = _shared(scopes)
        self.declared_global = {n for s in scopes.values() for n in s.globals_}  # a call may rebind these
        # walk.s_FunctionDef's, and a lambda a plain assignment binds (walk.s_Assign)
        self.local_defs: dict[tuple[int, str], ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda] = {}
        self.def_bound: dict[int, frozenset[str]] = {}  # per def: the names bound on every path where it is made
        self.keepers = keepers(tree)
        self.future_annotations = any(
            isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
            for s in tree.body
        )

    def ctx(self, scope: NameScope) -> Ctx:
        lazy = self.future_annotations or self.rt.version >= (3, 14)
        return Ctx(scope, self.flow(scope), lazy)

    def branches(
        self,
        c: Ctx,
        parts: list[Callable[[], bool]],
        exclusive: bool = True,
        per_run: bool = False,
        enter: list[Facts] | None = None,
        exact: list[Facts | None] | None = None,
    ) -> bool:
        """Walk exclusive (or a loop's) parts and join them; `enter`: per part, the facts its path
        learns by taking it (an if's test, true or false); `exact`: per part, those facts when they
        say all its test does (claims.Claims.join)."""
        nets: list[dict[str, bool]] = []
        anywhere: list[set[str] | None] = []
        falling: list[int] = []
        ids: list[int] = []  # the falling parts' own (claims.Claims.lift)
        entry, prior, facts = c.flow.facts, c.flow.conds_here(), []
        for i, part in enumerate(parts):
            mark = c.flow.open()
            part_id = c.flow.open_parts[-1]
            c.flow.tail_unknown = False
            c.flow.facts = capped(entry | enter[i]) if enter else entry
            held, kept, ends, c.flow.ends = c.flow.held(), len(c.flow.kept), c.flow.ends, set()
            falls = part()
            if not falls or c.flow.tail_unknown:  # what its calls changed, or kept, is nothing to the paths
                how = frozenset(c.flow.ends) or ALL_ENDS  # that go on (a helper that may never return: kept)
                c.flow.restore(held, None if falls else kept, how)
            c.flow.ends |= ends
            net = c.flow.close(mark)
            if falls:
                falling.append(i)
                ids.append(part_id)
                facts.append(c.flow.facts)
                nets.append(net)
                # a branch ending in a call of this module's own (`_fail(...)`, `self._abort(...)`)
                # may never return: whether it leaves a name unbound is not told
                anywhere.append(None if c.flow.tail_unknown else c.flow.bound)
        c.flow.tail_unknown = False
        c.flow.facts = meet(facts) if facts else entry
        sure = [exact[i] for i in falling] if exact else None
        c.flow.join(nets, exclusive, per_run, anywhere, facts, prior, sure, ids)
        return bool(nets)

    def child(self, node: ast.AST, c: Ctx) -> Ctx:
        """The context of the scope `node` opens in `c`'s, noting the names `c`'s scope has bound on
        some paths only where it is defined: a closure reading one (at call time) reads it unbound
        on those paths unless a later binding in `c`'s scope clears the claim (resolve.free_read)."""
        scope = self.scopes[id(node)]
        if c.flow.partial:
            self.early[id(scope)] = frozenset(n for n in c.flow.partial if c.flow.partly(n))
        inner = self.ctx(scope)
        if scope.kind == "function":
            self.fn_nodes[id(scope)] = node
        if scope.kind == "function" and isinstance(node, (*FUNCS, ast.Lambda)):
            own = {n for n in scope.locals if (id(scope), n) not in self.shared}
            shadowed, s = set(scope.bound) | self.declared_global, scope.parent  # `global bool` in another def
            while s is not None:
                shadowed, s = shadowed | s.bound, s.parent
            inner.flow.immutable = fixed_locals(node, own, shadowed, trust_builtins=not self.rebinds_any)
        return inner

    def annotation(self, node: ast.expr, c: Ctx) -> None:
        if c.annotations_lazy:
            for n in ast.walk(node):
                if isinstance(n, ast.Name):
                    self.lazy_uses.append((n.id, n.lineno, c.scope))
        else:
            self.expr(node, c)

    def expr(self, root: ast.AST, c: Ctx) -> None:
        stack: list[tuple[ast.AST, Ctx]] = [(root, c)]
        while stack:
            node, cx = stack.pop()
            if type(node) is ast.Constant:
                continue
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    if node.id == "__class__":
                        self.method_only("__class__", node.lineno, cx.scope)
                    self.use(node.id, node.lineno, cx)
                    if self.containers and id(node) not in self.quiet:  # `j = cbs`: more than cbs reaches it
                        self.escape(node.id, cx)
                    if self.holders and id(node) not in self.quiet:  # `t.start()`: what t holds may run
                        self.reach(node.id, node.lineno, cx)
                elif isinstance(node.ctx, ast.Store):
                    cx.flow.bind(node.id, node.lineno)
                    self.rebound((id(cx.scope), node.id))  # no longer (only) the def, class or instance
                continue
            if isinstance(node, Stored):  # a call has run: `g` passed to it is kept; "": kept ones may run
                if node.name:
                    self.keep(node.name, cx, node.holder)
                else:
                    self.run_stored(node.lineno, cx)
                continue
            if node is _CHANGED:  # the call (await, yield) below it has run
                cx.flow.changed()
                if cx.scope.kind == "comprehension":  # it runs where the comprehension stands
                    self.home(cx).flow.changed()
                continue
            self.implicit(node, cx)  # what Python runs of this scope's classes (implicit_calls)
            self.kept_forms(node, cx)  # `cbs = [g]` keeps g, `if cbs:` runs nothing of it (kept_callbacks)
            if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
                cx.flow.changed()  # `o.x = 0`, `del a[0]`: through any alias of what a fact is about
            if isinstance(node, ast.NamedExpr):
                target = node.target
                assert isinstance(target, ast.Name)
                home = self.ctx(cx.scope.binding_scope())
                stack.append((ast.Name(target.id, ast.Store(), lineno=target.lineno, col_offset=0), home))
                stack.append((node.value, cx))
                continue
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "super"
                and not node.args
                and not node.keywords
            ):
                self.method_only("super", node.lineno, cx.scope)
            if isinstance(node, ast.Call):  # `g()`, and `map(g, xs)`: the callee may call g now, or keep it
                into = self.container_store(node, cx) if self.containers else None  # `cbs.append(g)`
                keeps = into is not None or self.keeps(node.func, cx)  # `Thread(target=g)`, `partial(g)` too
                called = [node.func] if keeps else [node.func, *node.args, *(k.value for k in node.keywords)]
                for callee in sorted({n.id for n in called if isinstance(n, ast.Name)}):
                    self.closure_call(callee, node.lineno, cx)
                for fn in (n for n in called[1:] if isinstance(n, ast.Lambda) and self.run_given(node, n, cx)):
                    self.runs(fn, node.lineno, cx, frozenset())  # `sorted(xs, key=lambda k: v)` in a function
                if isinstance(node.func, ast.Lambda):  # `(lambda: make().m())()`: it runs now, in any scope
                    self.runs(node.func, node.lineno, cx, frozenset())
                for bound in self.binds_when_called(node, cx):  # after the arguments: once g has run
                    stack.append((ast.Name(bound, ast.Store(), lineno=node.lineno, col_offset=0), cx))
            if isinstance(node, ast.Lambda):
                for d in [*node.args.defaults, *node.args.kw_defaults]:
                    if d is not None:
                        self.expr(d, cx)
                self.deferred.append((node, self.child(node, cx)))
                continue
            if isinstance(node, COMPS):
                self.comprehension(node, cx)
                continue
            if isinstance(node, (ast.BoolOp, ast.IfExp)) and (
                (self.walrus and _walrus(node)) or (self.shared and self.binding_operand(node, cx))
            ):
                self.operands(node, cx)
                continue
            if isinstance(node, (ast.BoolOp, ast.IfExp)) and self.guarded_here(cx):
                self.conditional(node, cx)
                continue
            for field_ in _MATCH_NAMES:
                name = getattr(node, field_, None) if type(node).__name__.startswith("Match") else None
                if isinstance(name, str):
                    cx.flow.bind(name, getattr(node, "lineno", 0))
            if isinstance(node, EFFECTS):
                stack.append((_CHANGED, cx))
                if (self.local_defs or self.lambdas) and isinstance(node, ast.Call):  # once its operands are evaluated,
                    holder = self.holder_of(node, cx)  # `t = Thread(target=g)`: t alone reaches g
                    stack.extend((Stored(k, holder=holder), cx) for k in passed_on(node))  # may be kept
                    stack.append((Stored("", node.lineno), cx))  # and what was kept before may run
            stack.extend((child, cx) for child in reversed(list(ast.iter_child_nodes(node))))

    def run_given(self, call: ast.Call, lam: ast.Lambda, c: Ctx) -> bool:
        """Does a lambda passed to `call` run there? In a function, as it may; at import or in a class
        body, where the call surely calls it (lambda_runs: `def register(fn): fn()`, `sorted(key=...)`)."""
        if c.scope.kind == "function":
            return True
        name = call.func.id if isinstance(call.func, ast.Name) else ""
        callee = self.lookup(self.local_defs, name, c) if name else None
        return calls_given(callee, call, lam, bool(name) and name not in self.module.bound)


def _shared(scopes: dict[int, NameScope]) -> set[tuple[int, str]]:
    """(function scope, local) pairs a nested scope declares `nonlocal`: a call may rebind those."""
    out = set()
    for s in scopes.values():
        for name in s.nonlocals:
            p = s.parent
            while p is not None and name not in p.locals:
                p = p.parent
            if p is not None:
                out.add((id(p), name))
    return out


def _walrus(node: ast.AST) -> bool:
    """Does an operand of `node` past its first (or a branch of a conditional expression) bind a name?"""
    rest = node.values[1:] if isinstance(node, ast.BoolOp) else [node.body, node.orelse]  # type: ignore[attr-defined]
    return any(isinstance(n, ast.NamedExpr) for r in rest for n in ast.walk(r))

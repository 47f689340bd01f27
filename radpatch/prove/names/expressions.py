"""Following expressions in evaluation order (pass 2): reads are resolved where they run, stores
bind, lambdas and comprehensions open their scopes, and annotations are walked only where
they are evaluated (not under `from __future__ import annotations`, nor on Python 3.14+).
"""

from __future__ import annotations

import ast

from .flow import Ctx
from .problem import Runtime
from .resolve import Resolver
from .scope_bindings import COMPS, NameScope

_MATCH_NAMES = ("name", "rest")


class Expressions(Resolver):
    def __init__(self, tree: ast.Module, scopes: dict[int, NameScope], runtime: Runtime) -> None:
        super().__init__(scopes, scopes[id(tree)], runtime)
        self.scopes = scopes
        self.deferred: list[tuple[ast.AST, Ctx]] = []
        self.lazy_uses: list[tuple[str, int, NameScope]] = []
        self.future_annotations = any(
            isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
            for s in tree.body
        )

    def ctx(self, scope: NameScope) -> Ctx:
        lazy = self.future_annotations or self.rt.version >= (3, 14)
        return Ctx(scope, self.flow(scope), lazy)

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
                elif isinstance(node.ctx, ast.Store):
                    cx.flow.bind(node.id, node.lineno)
                continue
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
            if isinstance(node, ast.Lambda):
                for d in [*node.args.defaults, *node.args.kw_defaults]:
                    if d is not None:
                        self.expr(d, cx)
                self.deferred.append((node, self.ctx(self.scopes[id(node)])))
                continue
            if isinstance(node, COMPS):
                self.comprehension(node, cx)
                continue
            for field_ in _MATCH_NAMES:
                name = getattr(node, field_, None) if type(node).__name__.startswith("Match") else None
                if isinstance(name, str):
                    cx.flow.bind(name, getattr(node, "lineno", 0))
            stack.extend((child, cx) for child in reversed(list(ast.iter_child_nodes(node))))

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, c: Ctx) -> None:
        self.expr(node.generators[0].iter, c)
        inner = self.ctx(self.scopes[id(node)])
        for i, gen in enumerate(node.generators):
            if i:
                self.expr(gen.iter, inner)
            self.expr(gen.target, inner)
            for cond in gen.ifs:
                self.expr(cond, inner)
        for e in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
            self.expr(e, inner)

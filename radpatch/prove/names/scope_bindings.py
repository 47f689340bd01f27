"""Pass 1 of the names check: every scope of a module and the names it binds (what symtable would
say), collected in one walk without recursion: function locals, `global` and `nonlocal`, class
bodies, comprehension and lambda scopes, PEP 695 type-parameter scopes. Augmented assignments
are kept apart (`augmented_only`): `global x; x += 1` reads x before it binds it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(eq=False)
class NameScope:
    kind: str  # module | function | class | comprehension | annotation
    qual: str
    parent: NameScope | None
    import_time: bool  # runs while the module is imported (module, class bodies and comprehensions in them)
    bound: set[str] = field(default_factory=set)
    globals_: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    augmented: set[str] = field(default_factory=set)  # targets of `x += ...` (which reads x before it binds it)
    augmented_only: set[str] = field(default_factory=set)  # ... bound here by nothing else
    generator: bool = False  # a generator expression's scope (never inlined, unlike 3.12's comprehensions)

    @property
    def locals(self) -> set[str]:
        return self.bound - self.globals_ - self.nonlocals

    def child(self, kind: str, name: str) -> NameScope:
        if kind in ("comprehension", "annotation"):  # anonymous: problems name the scope around them
            qual = self.qual
        else:
            qual = name if self.qual == "<module>" else f"{self.qual}.{name}"
        return NameScope(kind, qual, self, self.import_time and kind in ("class", "comprehension", "annotation"))

    def binding_scope(self) -> NameScope:
        """Where an assignment expression (:=) in this scope binds: past comprehensions."""
        s = self
        while s.kind == "comprehension" and s.parent is not None:
            s = s.parent
        return s


def type_params(node: ast.AST) -> list[ast.AST]:
    return list(getattr(node, "type_params", None) or [])


def arg_names(args: ast.arguments) -> Iterator[ast.arg]:
    yield from args.posonlyargs
    yield from args.args
    if args.vararg:
        yield args.vararg
    yield from args.kwonlyargs
    if args.kwarg:
        yield args.kwarg


def arg_annotations(args: ast.arguments) -> Iterator[ast.expr]:
    for a in arg_names(args):
        if a.annotation is not None:
            yield a.annotation


class Collector:
    """NameScope tree and bindings (what symtable would say), without recursion."""

    def __init__(self, tree: ast.Module) -> None:
        self.module = NameScope("module", "<module>", None, True)
        self.scopes: dict[int, NameScope] = {id(tree): self.module}
        stack: list[tuple[ast.AST, NameScope]] = [(n, self.module) for n in tree.body]
        name, plain = ast.Name, _PLAIN
        while stack:  # the order does not matter here: this pass only collects
            node, scope = stack.pop()
            kind = type(node)
            if kind is name:
                if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    scope.bound.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.AugAssign and type(node.target) is name:  # type: ignore[attr-defined]
                # `global x; x += 1` reads x before it binds it: it binds nothing the module lacked
                scope.augmented.add(node.target.id)  # type: ignore[attr-defined]
                stack.append((node.value, scope))  # type: ignore[attr-defined]
            elif kind in plain:
                stack.extend((c, scope) for c in ast.iter_child_nodes(node))
            else:
                stack.extend(self._visit(node, scope))
        for s in self.scopes.values():
            s.augmented_only = s.augmented - s.bound
            s.bound |= s.augmented

    def _new(self, node: ast.AST, scope: NameScope, kind: str, name: str) -> NameScope:
        s = scope.child(kind, name)
        self.scopes[id(node)] = s
        return s

    def _visit(self, node: ast.AST, scope: NameScope) -> Iterator[tuple[ast.AST, NameScope]]:
        if isinstance(node, (*FUNCS, ast.ClassDef)):
            yield from self._definition(node, scope)
        elif isinstance(node, ast.Lambda):
            yield from ((d, scope) for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None)
            inner = self._new(node, scope, "function", "<lambda>")
            inner.bound.update(a.arg for a in arg_names(node.args))
            yield (node.body, inner)
        elif isinstance(node, COMPS):
            yield from self._comprehension(node, scope)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node, scope)
            yield (node.value, scope)
        elif type(node).__name__ == "TypeAlias":
            yield (node.name, scope)  # type: ignore[attr-defined]
            inner = self._new(
                node, scope, "function", getattr(getattr(node, "name", None), "id", "<type>")
            )  # lazily evaluated value
            yield from self._params(node, inner)
            yield (node.value, inner)  # type: ignore[attr-defined]
        else:
            self._bind(node, scope)
            yield from ((c, scope) for c in ast.iter_child_nodes(node))

    def _bind(self, node: ast.AST, scope: NameScope) -> None:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            scope.bound.add(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            scope.binding_scope().bound.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            scope.bound.update(import_name(a) for a in node.names if a.name != "*")
        elif isinstance(node, ast.Global):
            scope.globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.bound.add(node.name)
        elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None):
            scope.bound.add(node.name)  # type: ignore[attr-defined]
        elif type(node).__name__ == "MatchMapping" and getattr(node, "rest", None):
            scope.bound.add(node.rest)  # type: ignore[attr-defined]

    def _params(self, node: ast.AST, scope: NameScope) -> Iterator[tuple[ast.AST, NameScope]]:
        for p in type_params(node):
            scope.bound.add(p.name)  # type: ignore[attr-defined]
            yield from ((c, scope) for c in ast.iter_child_nodes(p))

    def _definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: NameScope
    ) -> Iterator[tuple[ast.AST, NameScope]]:
        scope.bound.add(node.name)
        yield from ((d, scope) for d in node.decorator_list)
        outer = scope
        if type_params(node):
            outer = self._new(node.type_params, scope, "annotation", node.name)  # type: ignore[union-attr]
            yield from self._params(node, outer)
        if isinstance(node, ast.ClassDef):
            yield from ((b, outer) for b in [*node.bases, *node.keywords])
            inner = self._new(node, outer, "class", node.name)
        else:
            a = node.args
            yield from (
                (d, outer) for d in [*a.defaults, *a.kw_defaults, *arg_annotations(a), node.returns] if d is not None
            )
            inner = self._new(node, outer, "function", node.name)
            inner.bound.update(x.arg for x in arg_names(a))
        yield from ((s, inner) for s in node.body)

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, scope: NameScope
    ) -> Iterator[tuple[ast.AST, NameScope]]:
        yield (node.generators[0].iter, scope)
        inner = self._new(node, scope, "comprehension", "")
        inner.generator = isinstance(node, ast.GeneratorExp)
        for i, gen in enumerate(node.generators):
            if i:
                yield (gen.iter, inner)
            yield (gen.target, inner)
            yield from ((c, inner) for c in gen.ifs)
        elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        yield from ((e, inner) for e in elts)


_PLAIN = frozenset(
    {
        ast.Expr,
        ast.Return,
        ast.Call,
        ast.Attribute,
        ast.BinOp,
        ast.Compare,
        ast.BoolOp,
        ast.UnaryOp,
        ast.Subscript,
        ast.Constant,
        ast.keyword,
        ast.Tuple,
        ast.List,
        ast.Dict,
        ast.Set,
        ast.If,
        ast.For,
        ast.While,
        ast.With,
        ast.withitem,
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Try,
        ast.Raise,
        ast.Assert,
        ast.IfExp,
        ast.Starred,
        ast.JoinedStr,
        ast.FormattedValue,
        ast.Slice,
        ast.Await,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.Expr,
    }
)  # nothing to bind


def import_name(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]

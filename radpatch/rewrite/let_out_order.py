"""When a scope's code lets a function out as a value, and which def a name read inside a function
means, for rewrite.import_callees and rewrite.later_runs (issue 21).

When: a call whose callee the text cannot tell runs only a function let out before it runs, in
import order. A statement of the scope's own code lets it out where it starts (a def's first
decorator); anywhere else (a function's body, a lambda's, a generator expression's element, which
run at a time the text does not say) it is let out at any time. The call runs at its node, and
again up to the end of each loop of the scope's own code holding it (a later pass), of a `with`
holding it (the exit runs there) and of the def or class a decorator holding it decorates; never
after where it is in a generator expression (it runs when consumed): then every function let out.

Which def: a name read in a function's body means what the nearest function around it that binds
the name binds (its parameter, a local variable, an import, its inner def of that name); only
where none does, the scope's name. A binding radpatch does not read as local (in a class body or a
comprehension inside the function, a `:=`) leaves the scope's name: the safe side.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from radpatch.rewrite.import_callees import Function

Position = tuple[int, int]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_AGAIN = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, *_COMPREHENSIONS)


class Enclosing:
    """For each node of a scope's code, the innermost function (def or lambda) whose body holds it,
    each function's enclosing one, and the nodes that run later than their statement (in a function's
    body, a lambda's, a generator expression's element)."""

    def __init__(self, body: Sequence[ast.AST]) -> None:
        self.body = body
        self.inner: dict[int, Function] = {}
        self.parent: dict[int, Function | None] = {}
        self.lazy: set[int] = set()
        self._locals: dict[int, frozenset[str]] = {}
        self._defs: dict[int, dict[str, list[Function]]] = {}
        self._walked = False

    def _walk(self) -> None:
        """Read the scope's code once, where first asked."""
        if self._walked:
            return
        self._walked = True
        stack: list[tuple[ast.AST, Function | None, bool]] = [(n, None, False) for n in self.body]
        while stack:
            node, fn, lazy = stack.pop()
            if fn is not None:
                self.inner[id(node)] = fn
            if lazy:
                self.lazy.add(id(node))
            if isinstance(node, (*_DEFS, ast.Lambda)):
                self.parent[id(node)] = fn
                inside = body_nodes(node)
                stack += [(n, node, True) for n in inside]
                held = {id(n) for n in inside}
                stack += [(n, fn, lazy) for n in ast.iter_child_nodes(node) if id(n) not in held]
            elif isinstance(node, ast.GeneratorExp):
                first = node.generators[0].iter
                stack += [(n, fn, lazy or n is not first) for n in _parts(node)]
            else:
                stack += [(n, fn, lazy) for n in ast.iter_child_nodes(node)]

    def meant(self, name: ast.Name) -> list[Function] | None:
        """The defs `name` (read inside a function) means where a function around it binds the name
        (its inner defs of that name, none for any other binding); None where none does."""
        self._walk()
        fn = self.inner.get(id(name))
        while fn is not None:
            if name.id in self.local_names(fn):
                return list(self._inner_defs(fn).get(name.id, []))
            fn = self.parent.get(id(fn))
        return None

    def local_names(self, fn: Function) -> frozenset[str]:
        """The names `fn` binds itself, as Python reads its body: parameters, names stored or
        deleted, imports, defs and classes, `except ... as`; less `global`/`nonlocal` ones. Not
        what a class body or a comprehension inside binds (their own scopes), nor a `:=`."""
        if id(fn) not in self._locals:
            a = fn.args
            out = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg)))}
            declared: set[str] = set()
            stack: list[ast.AST] = [] if isinstance(fn, ast.Lambda) else list(fn.body)
            while stack:
                node = stack.pop()
                if isinstance(node, (*_DEFS, ast.ClassDef)):
                    out.add(node.name)
                    continue  # its body is another scope; what runs where it is binds nothing read here
                if isinstance(node, (ast.Lambda, *_COMPREHENSIONS, ast.NamedExpr)):
                    continue
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    out.add(node.id)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    out.update((x.asname or x.name).split(".")[0] for x in node.names)
                elif isinstance(node, ast.ExceptHandler) and node.name:
                    out.add(node.name)
                elif isinstance(node, (ast.Global, ast.Nonlocal)):
                    declared.update(node.names)
                stack.extend(ast.iter_child_nodes(node))
            self._locals[id(fn)] = frozenset(out - declared)
        return self._locals[id(fn)]

    def _inner_defs(self, fn: Function) -> dict[str, list[Function]]:
        if id(fn) not in self._defs:
            found: dict[str, list[Function]] = {}
            stack: list[ast.AST] = [] if isinstance(fn, ast.Lambda) else list(fn.body)
            while stack:
                node = stack.pop()
                if isinstance(node, _DEFS):
                    found.setdefault(node.name, []).append(node)
                if not isinstance(node, (*_DEFS, ast.ClassDef, ast.Lambda)):
                    stack.extend(ast.iter_child_nodes(node))
            self._defs[id(fn)] = found
        return self._defs[id(fn)]

    def let_out_at(self, stmt: ast.AST, node: ast.AST, own_ids: set[int]) -> Position | None:
        """Where in import order `stmt`, letting out a function at its part `node`, lets it out:
        its start (a def's first decorator's); None (any time) where it does not run as the scope's
        own code (in a function's body) or `node` runs later than it (in a lambda, a generator)."""
        self._walk()
        if id(stmt) not in own_ids or id(node) in self.lazy or id(node) in self.inner:
            return None
        return min([_start(stmt), *(_start(d) for d in getattr(stmt, "decorator_list", []))])


def body_nodes(fn: Function) -> list[ast.AST]:
    """What a function runs when called (not where it is defined): a def's statements, a lambda's expression."""
    return [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)


def _parts(node: ast.GeneratorExp) -> list[ast.AST]:
    return [node.elt, *(p for g in node.generators for p in (g.target, g.iter, *g.ifs))]


def spans_again(own_nodes: Sequence[ast.AST]) -> list[tuple[Position, Position, bool]]:
    """The spans of the scope's own code up to whose end a call inside may run (a loop, a `with`, a
    decorated def or class from its first decorator), each with whether a call in it may run at any
    later time (a generator expression)."""
    out = []
    for n in own_nodes:
        if isinstance(n, _AGAIN):
            out.append((_start(n), _end(n), isinstance(n, ast.GeneratorExp)))
        elif isinstance(n, (*_DEFS, ast.ClassDef)) and n.decorator_list:
            out.append((_start(n.decorator_list[0]), _end(n), False))
    return out


def horizon(node: ast.AST, spans: list[tuple[Position, Position, bool]]) -> Position | None:
    """Up to where in import order a call at `node` (of the scope's own code) may run: None for any time."""
    start, end = _start(node), _end(node)
    out = end
    for lo, hi, lazy in spans:
        if lo <= start and end <= hi:
            if lazy:
                return None
            out = max(out, hi)
    return out


def _start(node: ast.AST) -> Position:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _end(node: ast.AST) -> Position:
    return getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0

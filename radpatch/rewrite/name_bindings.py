"""Where a scope binds a name: the one rule behind "bound once" (set_item's dict, add_element's and
remove_element's display, and the importer that writes them).

A binding is anything that gives the name a value, or takes it away, while the scope runs, at any
depth of its blocks: an assignment (also as one target of several, or inside a tuple or list
target), an augmented assignment, a `def` or `class` of the name, `import ... as` and `from ...
import`, `for` and `async for` targets, `with ... as`, `except ... as` (which also deletes the
name when the handler ends), a capture in a `match` case, `:=` (also inside a comprehension, where
it binds in the scope around it), `del`; and, for a module, the same in any function (at any
depth) that declares the name `global`; for a function, in a function nested in it that declares
it `nonlocal`. Not a binding: an annotation without a value (`X: list[int]` gives X no value; the
display assigned elsewhere stays the one the name holds), a comprehension's own target, the
parameters and locals of a nested function or lambda, a class body's names (its own scope).
`from m import *` binds names no one can list from the text; it is not counted.

Standard library only (`ast`): the rewrites ask it of a scope's text, the importer of its trees."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def binding_sites(body: list[ast.stmt], name: str, kind: str) -> list[ast.AST]:
    """The nodes of a scope's body that bind `name` (see the module's docstring), in source order.
    `kind`: module, class or function (what the body is the body of)."""
    sites = list(_own(body, name))
    if kind in ("module", "function"):
        sites.extend(_declared(body, name, "global" if kind == "module" else "nonlocal"))
    return sorted(sites, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))


def _own(nodes: list[ast.stmt], name: str) -> Iterator[ast.AST]:
    """Bindings of `name` in the scope these statements belong to."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            if node.name == name:
                yield node
            # decorators, defaults, annotations and bases run in this scope; the body does not
            stack.extend(_header(node))
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
            continue
        if isinstance(node, _COMPS):
            yield from _walrus(node, name)  # its targets are its own; a `:=` in it binds here
            continue
        if _binds(node, name):
            yield node
        if isinstance(node, ast.AnnAssign) and node.value is None:
            continue  # `X: T`: no value (its annotation holds no binding either)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
    # an augmented assignment's and a `:=`'s target is a Name in Store context: counted as that
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any(a.name != "*" and (a.asname or a.name).split(".")[0] == name for a in node.names)
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return node.name == name
    if isinstance(node, ast.MatchMapping):
        return node.rest == name
    return False


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.AST]:
    """What of a definition runs in the scope around it: decorators, defaults, annotations, bases."""
    out: list[ast.AST] = list(node.decorator_list)
    if isinstance(node, ast.ClassDef):
        return [*out, *node.bases, *node.keywords]
    a = node.args
    out.extend(d for d in (*a.defaults, *a.kw_defaults) if d is not None)
    out.extend(x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x and x.annotation)
    if node.returns is not None:
        out.append(node.returns)
    return out


def _walrus(comp: ast.AST, name: str) -> Iterator[ast.AST]:
    for node in ast.walk(comp):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name) and node.target.id == name:
            yield node


def _declared(body: list[ast.stmt], name: str, declaration: str) -> Iterator[ast.AST]:
    """Bindings of `name` in functions nested (at any depth) in the body that declare it `global`
    (`nonlocal`); a nested function that binds the name without declaring it hides it below."""
    kind = ast.Global if declaration == "global" else ast.Nonlocal
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCS):
            inner = node.body
            said = any(isinstance(n, kind) and name in n.names for n in _statements(inner))
            if said:
                yield from _own(inner, name)
            elif declaration == "nonlocal" and name in _locals(node):
                continue  # its own local of the name: a deeper nonlocal means this one
            stack.extend(inner)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a function body outside nested functions and classes."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _locals(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = func.args
    params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
    bound = {n.id for n in _statements(func.body) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return params | bound

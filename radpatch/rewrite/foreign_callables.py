"""What a callee the text cannot tell may be (att61 F6): rewrite.escapes lets a value handed to one (`h(CFG)`, `h` a
parameter, a loop variable, `HANDLERS[0]`) pass only where every callable the scope lets out as a value is code the
walk follows or a builtin that changes nothing it is given. A callable from elsewhere let out (`u = dict.update`,
`getattr(dict, "update")`, `operator.methodcaller("clear")`, `setattr` named as a value, `HOLD.append`, a function
imported from elsewhere, what a call from elsewhere returns, a def decorated from elsewhere: att62 F1) may be the
callee, and change or keep the value.

Let out: an expression in a place its value is handed on (bound, put in a display, passed, returned, a default, a
lambda's body), not one called, read through, compared or tested there. Standard library only (`ast`)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Collection, Mapping, Sequence

_TYPES = frozenset({"dict", "list", "set", "object", "tuple", "frozenset", "bytearray", "type", "str", "bytes"})
# builtins that, called, may change or keep what they are given, or hand back something that does
_CHANGING = frozenset({"setattr", "delattr", "getattr", "exec", "eval", "vars", "globals", "locals", "__import__"})
_BUILTINS = frozenset(dir(builtins))
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONTAINER_READS = frozenset(
    {"get", "pop", "setdefault", "copy", "keys", "values", "items", "__getitem__", "index", "count", "union"}
    | {"intersection", "difference", "symmetric_difference", "issubset", "issuperset", "isdisjoint"}
)
# places where an expression's value is used there, not handed on
_USED = (ast.Compare, ast.Expr, ast.If, ast.While, ast.Assert, ast.FormattedValue, ast.ClassDef, ast.withitem)


def foreign_let_out(
    body: Sequence[ast.AST],
    parents: Mapping[int, ast.AST],
    imports: Collection[str],
    followed: Callable[[str], bool],
    reader: Callable[[ast.AST], bool],
    transparent: Callable[[ast.expr], bool],
) -> ast.AST | None:
    """The first expression of `body` (at any depth) that lets out a callable from elsewhere that may change what
    it is given, or None. `imports`: the names the scope's imports bind; `followed(name)`: a name the walk follows
    as the scope's own function or class; `reader(node)`: a function from elsewhere known to only read
    (rewrite.known_callees); `transparent(decorator)`: one after which the def's name still runs its body."""
    everything = ast.walk(ast.Module(list(body), []))  # type: ignore[arg-type]
    loaded = {n.id for n in everything if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFS) and node.name not in loaded and not isinstance(parents.get(id(node)), ast.ClassDef):
            continue  # a function nothing names never runs: it lets nothing out
        if isinstance(node, _DEFS):  # `@normalize def _f`: _f is what normalize returns (att62 F1)
            for d in node.decorator_list:
                said = d.func if isinstance(d, ast.Call) else d
                while isinstance(said, ast.Attribute):
                    said = said.value
                if not transparent(d) and not (isinstance(said, ast.Name) and followed(said.id)):
                    return d
        if isinstance(node, (ast.Name, ast.Attribute, ast.Call)) and _handed_on(node, parents):
            if _foreign(node, imports, followed, reader):
                return node
        stack.extend(ast.iter_child_nodes(node))
    return None


def _handed_on(node: ast.AST, parents: Mapping[int, ast.AST]) -> bool:
    if isinstance(node, (ast.Name, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
        return False
    parent = parents.get(id(node))
    if parent is None or isinstance(parent, _USED) or isinstance(parent, (ast.Attribute, ast.Subscript)):
        return False  # read through (`dict.update.__doc__`, `CFG[k]`), compared, tested, a statement, a base
    if isinstance(parent, ast.Call) and parent.func is node:
        return False  # called there: the call is judged as one
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
        return False  # a decorator: applied, judged where decorators are (rewrite.later_runs)
    return not isinstance(parent, (ast.UnaryOp, ast.BinOp))  # an operand: computed with, not handed on


def _foreign(
    node: ast.AST, imports: Collection[str], followed: Callable[[str], bool], reader: Callable[[ast.AST], bool]
) -> bool:
    if isinstance(node, ast.Name):
        if node.id in imports:
            return not reader(node)  # `from operator import setitem`, then `setitem` handed on
        return node.id in _CHANGING and node.id in _BUILTINS and not followed(node.id)
    root = node
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if isinstance(node, ast.Call):
        name = root.id if isinstance(root, ast.Name) else ""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if method in _CONTAINER_READS and name not in imports and name not in _BUILTINS:
            return False  # `d.get(k)`: what the container holds, let out where it was put in
        if name in _BUILTINS and name not in imports and not followed(name):
            return name in _CHANGING  # `list(...)`, `len(...)`: no callable from elsewhere comes back
        if name and name not in imports and name not in _TYPES:
            return False  # a callee of the module's (a parameter, `fn(d)`): what it may be is let out, judged there
        return not followed(name) and not reader(node.func)  # what a call from elsewhere returns
    if not isinstance(root, ast.Name):
        return True
    if root.id in _TYPES and root.id not in imports and not followed(root.id):
        return True  # `dict.update`, `object.__setattr__`
    return not followed(root.id) and not reader(node)  # `operator.setitem`, `HOLD.append`, `self.run`

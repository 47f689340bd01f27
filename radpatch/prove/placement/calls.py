"""Stores made by calls at module level, for the live-definition (live) and the dynamic-rebinding
(rebinding) proofs both: which calls a statement makes when it runs (`module_calls`: in its own
expressions, a comprehension, a default argument, a decorator, a lambda's body), and what each
stores (`call_stores`), its function spelled out through the module's aliases (store_calls.normalized:
`operator.setitem(globals(), ...)`, `_set = globals().__setitem__`, `functools.partial(setattr, _me)`).
A call radpatch cannot read that is handed the module or its namespace (`_fn(globals(), 'f', g)`)
may store any name. A lambda bound whole to a name runs where the module calls it by that name
(`named_lambdas`, `lambda_calls`). Standard library only."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping

from .aliases import Aliases, bare, chain, namespace
from .store_calls import NAMESPACE_READS, normalized, setattr_call

# (whose attribute: None for the module's namespace, what name: None when it may be any)
Store = tuple["ast.expr | None", "str | None"]

# Functions that read what they are handed and call nothing of it back.
_READERS = frozenset(
    {
        *("print", "len", "list", "dict", "tuple", "set", "frozenset", "sorted", "iter", "repr", "str", "id"),
        *("type", "isinstance", "hasattr", "getattr", "dir", "vars", "globals", "locals", "bool", "any", "all"),
        *("__import__", "builtins.__import__", "importlib.__import__"),  # globals() names the importing package
    }
)
# Methods of another object that only read a namespace handed to them (`new.__dict__.update(old.__dict__)`).
_READING_METHODS = frozenset({"update", "copy", "get"})


def module_calls(s: ast.stmt) -> Iterator[ast.Call]:
    """The calls `s` makes when it runs: in its own expressions (an `if` test, a value, a decorator, a
    default argument, a comprehension), not in its bodies; in a lambda's body too (it may be called
    there, or by what it is handed to), but for a lambda bound whole to a name."""
    stack: list[ast.AST] = [s]
    named = s.value if isinstance(s, (ast.Assign, ast.AnnAssign)) and isinstance(s.value, ast.Lambda) else None
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Call):
            yield n
        if n is named or (n is not s and isinstance(n, ast.stmt)):
            continue
        stack.extend(ast.iter_child_nodes(n))


def named_lambdas(statements: Iterable[ast.stmt]) -> dict[str, ast.Lambda]:
    """Module-level lambdas bound whole to a name (`_cb = lambda: ...`, `_cb: T = lambda: ...`), or
    to another name through a plain alias of one (`_cb2 = _cb`): name -> the lambda."""
    out: dict[str, ast.Lambda] = {}
    for s in statements:
        value = s.value if isinstance(s, (ast.Assign, ast.AnnAssign)) else None
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
        if isinstance(value, ast.Name) and value.id in out:  # an alias of a named lambda
            value = out[value.id]
        if isinstance(value, ast.Lambda):
            out.update((t.id, value) for t in targets if isinstance(t, ast.Name))
    return out


def lambda_calls(s: ast.stmt, lambdas: Mapping[str, ast.Lambda]) -> Iterator[ast.Call]:
    """The calls made in the body of each named lambda `s` calls by its name (`_cb()`), which
    module_calls leaves out of the statement that binds it; read with a function's aliases (a
    lambda's `locals()` is its own)."""
    for call in module_calls(s):
        if isinstance(call.func, ast.Name) and call.func.id in lambdas:
            yield from module_calls(ast.Expr(value=lambdas[call.func.id].body))


def call_stores(call: ast.Call, aliases: Aliases) -> list[Store]:
    """What `call` stores: [] for a call that stores nothing radpatch can see of the module."""
    call = normalized(call, aliases)
    sets = setattr_call(call, aliases)
    if sets is not None:
        return [(sets[0], _literal(sets[1]))]
    call = _type_method(call)
    how = chain(call.func)
    if how in ("exec", "eval", "builtins.exec", "builtins.eval"):
        return [(None, None)] if len(call.args) < 2 or namespace(call.args[1], aliases) else []
    func = bare(call.func)
    if isinstance(func, ast.Attribute) and namespace(func.value, aliases):
        return _namespace_method(func.attr, call)
    if how in _READERS or how in aliases.partials:  # a partial runs nothing yet: a call of it is read through it
        return []
    if isinstance(func, ast.Attribute) and func.attr in _READING_METHODS:
        return []
    handed = [*call.args, *(k.value for k in call.keywords)]
    return [(None, None)] if any(_holds_module(a, aliases) for a in handed) else []


def _type_method(call: ast.Call) -> ast.Call:
    """`dict.update(globals(), X=1)` (a type's method called on its first argument) as `globals().update(X=1)`
    (att61 F7); any other call as it is."""
    func = call.func
    if isinstance(func, ast.Attribute) and chain(func.value) in _TYPES and call.args:
        if not isinstance(call.args[0], ast.Starred):
            return ast.Call(ast.Attribute(call.args[0], func.attr, ast.Load()), call.args[1:], call.keywords)
    return call


_TYPES = frozenset({"dict", "object", "type", "builtins.dict", "builtins.object"})


def _namespace_method(method: str, call: ast.Call) -> list[Store]:
    if method in NAMESPACE_READS:
        return []
    if method in ("__setitem__", "pop", "__delitem__"):
        return [(None, _literal(call.args[0]) if call.args else None)]
    if method != "update":
        return [(None, None)]  # clear, popitem, ...
    out: list[Store] = []
    for kw in call.keywords:
        if kw.arg is None:
            return [(None, None)]
        out.append((None, kw.arg))
    for a in call.args:
        keys = [_literal(k) for k in a.keys] if isinstance(a, ast.Dict) else [None]
        if None in keys:
            return [(None, None)]
        out.extend((None, k) for k in keys)
    return out


def _holds_module(node: ast.expr, aliases: Aliases) -> bool:
    """`node` is the module or its namespace, or a literal list, tuple, set or dict holding one."""
    stack = [node]
    while stack:
        n = bare(stack.pop())
        if namespace(n, aliases) or chain(n, aliases) == "<module>":
            return True
        if isinstance(n, ast.Starred):
            stack.append(n.value)
        elif isinstance(n, (ast.List, ast.Tuple, ast.Set)):
            stack.extend(n.elts)
        elif isinstance(n, ast.Dict):
            stack.extend(v for v in n.values if v is not None)
    return False


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

"""Lambdas that run where no `g()` of them is written (issue 21, names53):

- a class body's lambda member (`f = lambda self: v`, `f = staticmethod(lambda: v)`, `classmethod(...)`,
  `property(...)`): a method as a def is, found with the defs of `members`, so `C.f()` or `k.f()` runs it;
- a lambda passed at import to a call that calls it there: a function of the module whose own body
  calls the parameter the lambda is given to (`def register(fn): fn()` / `register(lambda: v)`), or a
  builtin that calls its `key` (`sorted`, `min`, `max`). A lambda passed to any other call at import
  (`LazyDict({"k": lambda: f()})`, `Field(default_factory=lambda: ...)`) is still not followed: it may
  run only later, once what it reads is bound (following it refused correct vLLM modules, names51).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .closures import own_nodes
from .scope_bindings import FUNCS

if TYPE_CHECKING:  # the package runs on older targets too (target_probe)
    Fn = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

_WRAPPERS = ("staticmethod", "classmethod", "property", "cached_property")
_KEY_CALLERS = ("sorted", "min", "max")  # call their `key=` before they return


def members(cls: ast.ClassDef) -> list[tuple[str, Fn]]:
    """The class body's functions by the name they are bound to: its defs, and each lambda assigned
    to one name, bare or wrapped (`f = staticmethod(lambda: v)`)."""
    out: list[tuple[str, Fn]] = []
    for s in cls.body:
        if isinstance(s, FUNCS):
            out.append((s.name, s))
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            value = s.value
            if isinstance(value, ast.Call) and _wrapper(value.func) and value.args:
                value = value.args[0]
            if isinstance(value, ast.Lambda):
                out.append((s.targets[0].id, value))
    return out


def accessor(cls: ast.ClassDef, attr: str, store: bool) -> bool:
    """Is `attr` a property of `cls` (read: a def under `@property`, `attr = property(lambda self: v)`),
    or a property with a setter (store: a def's `@attr.setter`)?"""
    for s in cls.body:
        if isinstance(s, FUNCS) and s.name == attr:
            for d in s.decorator_list:
                if store and isinstance(d, ast.Attribute) and d.attr == "setter":
                    return True
                last = d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""
                if not store and last in ("property", "cached_property"):
                    return True
        elif isinstance(s, ast.Assign) and [t.id for t in s.targets if isinstance(t, ast.Name)] == [attr]:
            value = s.value
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Lambda):
                return not store and _name(value.func) in ("property", "cached_property")  # the getter
    return False


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _wrapper(func: ast.expr) -> bool:
    return _name(func) in _WRAPPERS


def calls_given(callee: ast.AST | None, call: ast.Call, lam: ast.Lambda, builtin: bool) -> bool:
    """Does `call` call `lam`, one of its arguments, before it returns? `callee`: the function of the
    module `call.func` names (None: none); `builtin`: `call.func` names a builtin."""
    if callee is None:
        return builtin and isinstance(call.func, ast.Name) and call.func.id in _KEY_CALLERS and _is_key(call, lam)
    if not isinstance(callee, (*FUNCS, ast.Lambda)):
        return False
    param = _parameter(callee, call, lam)
    nodes = list(ast.walk(callee.body)) if isinstance(callee, ast.Lambda) else own_nodes(callee)
    return param is not None and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == param for n in nodes
    )


def _is_key(call: ast.Call, lam: ast.Lambda) -> bool:
    return any(k.arg == "key" and k.value is lam for k in call.keywords)


def _parameter(callee: Fn, call: ast.Call, lam: ast.Lambda) -> str | None:
    """The parameter of `callee` that `lam` is bound to by `call` (None: a star, or not told)."""
    positional = [*callee.args.posonlyargs, *callee.args.args]
    for i, a in enumerate(call.args):
        if a is lam:
            return positional[i].arg if i < len(positional) else None
        if isinstance(a, ast.Starred):
            return None
    for k in call.keywords:
        if k.value is lam and k.arg is not None:
            names = {p.arg for p in [*callee.args.args, *callee.args.kwonlyargs]}
            return k.arg if k.arg in names else None
    return None

"""`self.m(...)` in a method of one of the module's classes (att62 F12): which defs it runs, for rewrite.call_arguments
(the value handed to it is followed, not an escape) and rewrite.implicit_runs (the def followed with the parameter
that gets it).

`self` (or `cls` in a classmethod) is the first parameter of a def directly in class C's body, never rebound in it.
What `self.m` runs is then a def named `m` of C, of a class C derives from, or of a class of the module deriving
from C (an instance of it runs its override), when all of those are the module's own classes without a metaclass,
and without a decorator but one returning the class it is given (rewrite.class_decorators; `m` then not a dunder),
none defines `__getattribute__`, `m` is a plain def (or a static or class method) in each that has it, and the
module's code neither stores an attribute named `m` or `__class__` anywhere (`self.m = dict.clear`, `setattr(o, "m",
...)`, a computed `setattr`) nor reads the method holding the call through a class (`C.finish(o)` runs it with any
`o` as `self`). Otherwise None: the callee is one the text cannot tell. An instance of a class another module
derives from C is that module's code, as any change another module makes (docs/safety.md).
Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from radpatch.rewrite.class_decorators import keeps_class
from radpatch.rewrite.module_routes import class_chain

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_KINDS = frozenset({"staticmethod", "classmethod"})


def self_method(
    func: ast.AST, parents: Mapping[int, ast.AST], defined: Mapping[str, ast.ClassDef], body: Sequence[ast.AST]
) -> list[ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The defs `self.m` (the callee `func`) may run, or None where the text cannot tell."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and isinstance(func.ctx, ast.Load)):
        return None
    fn, cls = _method_around(func, parents)
    if fn is None or cls is None or cls.name not in defined or defined[cls.name] is not cls:
        return None
    kinds = {_kind(d) for d in fn.decorator_list}
    params = [*fn.args.posonlyargs, *fn.args.args]
    if not kinds <= {"classmethod"} or not params or params[0].arg != func.value.id or _rebinds(fn, func.value.id):
        return None
    family = _family(cls, defined, body)
    if family is None or any(_defines(k, "__getattribute__") for k in family):
        return None
    if func.attr.startswith("__") and any(k.decorator_list for k in family):
        return None  # a dataclass makes `__init__`, `__eq__`, ...: not the def the text shows
    found = [d for k in family for d in k.body if isinstance(d, _DEFS) and d.name == func.attr]
    if not found or any(not {_kind(x) for x in d.decorator_list} <= _KINDS for d in found):
        return None
    through = "" if kinds else fn.name  # a classmethod read through its class gets that class as `cls`
    if stored(body, {func.attr, "__class__"}) or _read_through_class(body, through, family):
        return None
    return found


def bound(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`fn`, run as `self.fn(...)`, gets `self` (or `cls`) first: not a staticmethod."""
    return "staticmethod" not in {_kind(d) for d in fn.decorator_list}


def _kind(decorator: ast.expr) -> str:
    return decorator.id if isinstance(decorator, ast.Name) else ast.unparse(decorator)


def _method_around(
    node: ast.AST, parents: Mapping[int, ast.AST]
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None]:
    at = parents.get(id(node))
    while at is not None and not isinstance(at, (*_DEFS, ast.Lambda, ast.ClassDef)):
        at = parents.get(id(at))
    if not isinstance(at, _DEFS):
        return None, None
    holder = parents.get(id(at))
    return (at, holder) if isinstance(holder, ast.ClassDef) else (None, None)


def _rebinds(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return True
    return False


def _family(
    cls: ast.ClassDef, defined: Mapping[str, ast.ClassDef], body: Sequence[ast.AST]
) -> list[ast.ClassDef] | None:
    """C, the classes it derives from and those of the module deriving from it (module_routes.class_chain,
    one walk each), when every one is the module's own, without a metaclass, and with no decorator but one
    that returns the class it is given (rewrite.class_decorators)."""
    judged: dict[int, bool] = {}

    def plain(k: ast.ClassDef) -> bool:
        if id(k) not in judged:
            judged[id(k)] = not k.keywords and all(keeps_class(d, body) for d in k.decorator_list)
        return judged[id(k)]

    out: list[ast.ClassDef] = []
    for k in defined.values():
        chain = class_chain(k.name, defined, plain) if k is not cls else None
        if k is cls or (chain is not None and cls in chain.classes):
            chain = chain or class_chain(k.name, defined, plain)
            if not chain.plain:
                return None
            out += [c for c in chain.classes if c not in out]
    return out if cls in out else None


def _defines(k: ast.ClassDef, name: str) -> bool:
    return any(isinstance(d, _DEFS) and d.name == name for d in k.body)


def stored(body: Sequence[ast.AST], names: set[str]) -> ast.AST | None:
    """Where the module's code stores an attribute of one of `names` (or one the text cannot tell) on anything."""
    for n in ast.walk(ast.Module(list(body), [])):  # type: ignore[arg-type]
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load) and n.attr in names:
            return n
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) in ("setattr", "__setattr__"):
            key = n.args[1] if len(n.args) >= 2 else None
            if not (isinstance(key, ast.Constant) and key.value not in names):
                return n
        if isinstance(n, ast.Attribute) and n.attr == "__dict__":
            return n  # `self.__dict__["m"] = ...`, `vars(...)`: read as any store
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "vars":
            return n
    return None


def _read_through_class(body: Sequence[ast.AST], method: str, family: list[ast.ClassDef]) -> bool:
    """The method holding the call read through a class (`C.finish`, `getattr(C, ...)`, `super(C, o)`), which
    runs it with anything as `self`; `super().finish(...)` inside the family keeps `self`."""
    names = {k.name for k in family}
    for n in ast.walk(ast.Module(list(body), [])):  # type: ignore[arg-type]
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in names:
            if n.attr in (method, "__dict__"):
                return True
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") in ("getattr", "vars") and n.args:
            first = n.args[0]
            if isinstance(first, ast.Name) and first.id in names:
                return True
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "super" and n.args:
            return True
    return False

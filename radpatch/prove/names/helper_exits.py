"""Which of the module's own functions and methods may end a path when called as a statement: the
ones whose every path raises or calls something that never returns (`def _fail(msg): raise
ValueError(msg)`), told from their code. bound-on-some-paths (flow) reads a branch that ends in a
call of one as leaving its path; a helper the module defines that returns (`self._note(e)`, a logger
of its own) does not, so a name that branch leaves unbound is still claimed. A callee the module
does not define (an import, a base class's method) cannot be told: it may end the path. Standard
library only: served to target interpreters with the rest of the package."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field

ENDS = frozenset(
    {"sys.exit", "os._exit", "os.abort", "exit", "quit", "assert_never", "typing.assert_never"}
    | {"typing_extensions.assert_never"}
)  # calls that never return (the path ends there), as a module spells them

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Helpers:
    """By name: whether some definition of it may end its caller's path (never returns)."""

    functions: dict[str, bool] = field(default_factory=dict)  # the module's top-level functions
    methods: dict[str, bool] = field(default_factory=dict)  # methods of the module's classes

    def may_end(self, callee: str) -> bool:
        """A statement calling `callee` ("name" or "self.name"/"cls.name") may end its path."""
        head, _, attr = callee.partition(".")
        if not attr:
            return self.functions.get(head, True)
        return self.methods.get(attr, True) if head in ("self", "cls") else False


def helpers(tree: ast.Module) -> Helpers:
    """Every definition of a name must never return for a call of it to end the path (a later `def`,
    a subclass's override, may be the one called); a function the module imports from the standard
    library returns, unless it is one of ENDS (`from logging import warning`: a call of `warning`
    goes on to what follows; it was taken as maybe ending the path)."""
    out = Helpers()
    for s in tree.body:
        if isinstance(s, _FUNCS):
            out.functions[s.name] = out.functions.get(s.name, True) and _never_returns(s)
        elif isinstance(s, ast.ClassDef):
            for node in ast.walk(s):
                if isinstance(node, _FUNCS):
                    out.methods[node.name] = out.methods.get(node.name, True) and _never_returns(node)
    stdlib: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.partition(".")[0] in stdlib:
                for a in node.names:
                    if f"{node.module}.{a.name}" not in ENDS:
                        out.functions[a.asname or a.name] = False
    return out


def _never_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """No `return` in its own body (not a nested def's) and every path raises or ends (_ends); a
    generator or a coroutine function returns its generator or coroutine without running its body,
    and a decorated one (but for `classmethod`, `staticmethod`) may be wrapped in anything: none of these
    ends its caller's path."""
    plain = all(isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod") for d in fn.decorator_list)
    if isinstance(fn, ast.AsyncFunctionDef) or not plain:
        return False
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return False
        if not isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return _ends(fn.body)


def callee(s: ast.stmt) -> str | None:
    """The callee of a statement that is one call (`sys.exit(1)`: "sys.exit"), as written."""
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
        f = s.value.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return f"{f.value.id}.{f.attr}"
    return None


def _ends(stmts: list[ast.stmt]) -> bool:
    """Does every path through `stmts` raise or call what never returns?"""
    return any(_ends_one(s) for s in stmts)


def _ends_one(s: ast.stmt) -> bool:
    if isinstance(s, ast.Raise) or callee(s) in ENDS:
        return True
    if isinstance(s, ast.If):
        return bool(s.orelse) and _ends(s.body) and _ends(s.orelse)
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return _ends(s.body)  # a context manager that swallows the raise is not followed: rare in a helper
    if isinstance(s, ast.Try):
        body = _ends(s.body) or _ends(s.orelse)
        return (bool(s.finalbody) and _ends(s.finalbody)) or (body and all(_ends(h.body) for h in s.handlers))
    if isinstance(s, ast.While):
        forever = isinstance(s.test, ast.Constant) and bool(s.test.value)
        return forever and not any(isinstance(n, ast.Break) for n in ast.walk(s))
    return False


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, *_FUNCS, ast.ClassDef)
_STORES = ("append", "add", "appendleft")  # a local container's: they keep what they are given, then return


def may_raise(s: ast.stmt) -> bool:
    """Could `s` itself raise (an exception a handler around it may catch)? Not `pass`, a jump, `return`
    of a name or constant, `x = <constant, name or a display of those or lambdas>`, `cbs.append(g)`,
    `cbs["k"] = g`, nor a `def` without decorators or defaults; a compound statement's own test may."""
    if isinstance(s, (ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)):
        return False
    if isinstance(s, ast.Return):
        return s.value is not None and not _plain(s.value)
    if isinstance(s, ast.Assign) and len(s.targets) == 1:
        t = s.targets[0]
        store = isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Constant)
        return not ((isinstance(t, ast.Name) or store) and _plain(s.value, displays=isinstance(t, ast.Name)))
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute):
        f, call = s.value.func, s.value
        kept = f.attr in _STORES and isinstance(f.value, ast.Name) and len(call.args) == 1 and not call.keywords
        return not (kept and _plain(call.args[0]))
    if isinstance(s, _FUNCS):
        return bool(s.decorator_list or s.args.defaults or any(s.args.kw_defaults))
    return True


def simple(s: ast.stmt) -> bool:
    """Is `s` no compound statement (its own parts walked as statements of their own)?"""
    return not isinstance(s, _COMPOUND) and type(s).__name__ not in ("Match", "TryStar")


def _plain(e: ast.expr, displays: bool = False) -> bool:
    if isinstance(e, (ast.Name, ast.Constant, ast.Lambda)):
        return True
    return displays and isinstance(e, (ast.List, ast.Tuple, ast.Set)) and all(_plain(x) for x in e.elts)


def raises_only_before(s: ast.stmt, fn: ast.AST | None, cls: ast.AST | None) -> bool:
    """Can `s`, which may keep a function, raise only before it keeps it (names53 #4, as Python runs it)?
    A call `keep(g)` of `fn`, a module function without decorators none of whose statements may raise
    (`KEPT.append(fn)` / `return fn`); a store `box.cb = g` on an instance of `cls`, a class of the
    module without bases, keywords, `__setattr__`, `__slots__` or a class attribute of that name (the
    store lands in the instance's dict, or raises before)."""
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(fn, ast.FunctionDef):
        body = list(ast.walk(fn))[1:]
        return (
            not fn.decorator_list
            and all(simple(b) and not may_raise(b) for b in body if isinstance(b, ast.stmt))
            and not any(isinstance(b, (ast.Yield, ast.YieldFrom)) for b in body)
        )
    if isinstance(s, ast.Assign) and isinstance(cls, ast.ClassDef) and not cls.bases and not cls.keywords:
        target = s.targets[0]
        attr = target.attr if isinstance(target, ast.Attribute) and len(s.targets) == 1 else None
        own = {t.id for b in cls.body for t in ast.walk(b) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
        own |= {b.name for b in cls.body if isinstance(b, (*_FUNCS, ast.ClassDef))}
        return attr is not None and not own & {attr, "__setattr__", "__slots__", "__getattribute__"}
    return False

"""A call that stores through the module's names, read as the direct form: `setattr_call` (the owner
and name of a `setattr`, `delattr`, `object.__setattr__`, `<module>.__setattr__`), `normalized` (the
module's aliases of storing functions spelled out), and the namespace's methods that only read it.
For `calls`; the aliases themselves are `aliases`'. Standard library only."""

from __future__ import annotations

import ast

from .aliases import _SETATTRS, Aliases, bare, chain

# The namespace's methods that only read it (those that store: aliases.NAMESPACE_STORES).
NAMESPACE_READS = ("get", "keys", "values", "items", "copy", "setdefault", "__getitem__", "__contains__", "__len__")


def setattr_call(call: ast.Call, aliases: Aliases) -> tuple[ast.expr, ast.expr] | None:
    """(owner, name) of a call that sets or deletes an attribute: `setattr(o, name, v)`,
    `delattr(o, name)`, `object.__setattr__(o, name, v)`, `type.__setattr__(C, name, v)`, each also
    through `builtins.`, and on the module itself
    `<module>.__setattr__(name, v)` (a class's own `C.__setattr__` is object's, unbound)."""
    how = chain(call.func)
    if how in _SETATTRS and len(call.args) >= 2:
        return call.args[0], call.args[1]
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in ("__setattr__", "__delattr__")
        and call.args
        and chain(func.value, aliases) == "<module>"
    ):
        return func.value, call.args[0]
    return None


def normalized(call: ast.Call, aliases: Aliases) -> ast.Call:
    """`call` with the module's aliases of storing functions spelled out: `_set('f', g)` after `_set =
    globals().__setitem__` is `globals().__setitem__('f', g)`, `functools.partial(setattr, _me)('f', g)`
    is `setattr(_me, 'f', g)`, `operator.setitem(globals(), 'f', g)` is `globals().__setitem__('f', g)`."""
    known = {a: (f, pre) for a, f, pre in aliases.callables}
    operators = dict(aliases.operators)
    for _ in range(16):  # an alias chain is short; a cycle (`_a = _b; _b = _a`) stops here
        func = bare(call.func)
        how = chain(func)
        if isinstance(func, ast.Call) and chain(func.func) in aliases.partials and func.args:
            call = ast.Call(func.args[0], [*func.args[1:], *call.args], [*func.keywords, *call.keywords])
        elif how in known:
            f, pre = known[how]
            call = ast.Call(f, [*pre, *call.args], call.keywords)
        elif how in operators and call.args:
            call = ast.Call(ast.Attribute(call.args[0], operators[how], ast.Load()), call.args[1:], call.keywords)
        else:
            break
    return call


def global_enum_names(s: ast.stmt) -> frozenset[str] | None:
    """The names `enum.global_enum` binds in the module when `s` runs it (att62 F3): a class `s` it
    decorates exports its members (the names its body assigns); `global_enum(C)` called, any name
    (None). The empty set where `s` runs none."""
    if isinstance(s, ast.ClassDef) and any(_global_enum(d) for d in s.decorator_list):
        targets = (t for x in s.body if isinstance(x, (ast.Assign, ast.AnnAssign)) for t in _targets(x))
        return frozenset(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    calls = (n for n in ast.walk(s) if isinstance(n, ast.Call) and _global_enum(n.func))
    return None if next(calls, None) is not None and not isinstance(s, ast.ClassDef) else frozenset()


def _global_enum(node: ast.expr) -> bool:
    return (chain(node) or "").rsplit(".", 1)[-1] == "global_enum"


def _targets(x: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return list(x.targets) if isinstance(x, ast.Assign) else [x.target]

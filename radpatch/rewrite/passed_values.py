"""Where a call or a display hands on the value a name holds, for rewrite.later_runs (issue 21,
att56 F8): the names that may be the value (`CFG`, `T[0]` after `T = (CFG,)`), a display holding it,
a call's arguments naming it, the parameters of a function of the scope a call passes it to, the
names a statement gives it (`d = CFG`, `T = (CFG,)`, `for d in args:`), and the uses of a `*args`
holding it that radpatch does not follow.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from radpatch.rewrite.evaluates_to import meets as meets  # for later_runs
from radpatch.rewrite.evaluates_to import yields_all
from radpatch.rewrite.import_callees import own

if TYPE_CHECKING:
    from radpatch.rewrite.import_callees import Function

_SHOWN = (ast.Tuple, ast.List, ast.Set)


def reaches(node: ast.AST, names: frozenset[str]) -> bool:
    """`node` may be the value: a name that holds it, or an index of a name holding a container it
    is in (`args[0]`, `T[0]` after `T = (CFG,)`; `names` has such a name as `T[]`)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return node.value.id + "[]" in names
    return isinstance(node, ast.Name) and node.id in names


def hands(node: ast.AST, names: frozenset[str]) -> bool:
    """A call's arguments may evaluate to the value or a container the walk tracks as holding it
    (rewrite.evaluates_to: `print(CFG)`, `f([CFG])`, `f(T[0])`, `f(*T)`; not `f(CFG.items())`,
    `f(CFG[k])`, `f(dict(CFG))`, `f(len(CFG))`, `f([x for x in CFG])`, esc55)."""
    parts = [*node.args, *node.keywords] if isinstance(node, ast.Call) else []
    return meets(yields_all(parts), names)


def contains(value: ast.AST, names: frozenset[str]) -> bool:
    """A display holding the value as an element (a dict's: as a value; not `{**CFG}`, its items copied)."""
    elts = value.elts if isinstance(value, _SHOWN) else _items(value) if isinstance(value, ast.Dict) else []
    return any(reaches(e, names) for e in elts)


def passed(call: ast.Call, fn: Function, names: frozenset[str]) -> set[str]:
    """The parameters of `fn` that `call` passes the value to (positionally or by keyword; into
    `*args` or `**kw`: that name as a container, `args[]`); a `*X` or `**X` argument that may hold it:
    every parameter (the text cannot say which)."""
    a = fn.args
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    every = {*positional, *(p.arg for p in a.kwonlyargs)}
    every |= {p.arg + "[]" for p in filter(None, (a.vararg, a.kwarg))}
    out: set[str] = set()
    spread = False  # after a `*X`, positions are unknown
    for i, arg in enumerate(call.args):
        spread = spread or isinstance(arg, ast.Starred)
        if isinstance(arg, ast.Starred) and _may_hold(arg.value, names) or spread and _may_hold(arg, names):
            return every
        if _box(arg, names) and not spread:
            out.add((positional[i] if i < len(positional) else a.vararg.arg if a.vararg else "") + "[]")
        elif reaches(arg, names) and not spread:
            out.add(positional[i] if i < len(positional) else a.vararg.arg + "[]" if a.vararg else "")
    for kw in call.keywords:
        if kw.arg is None and _may_hold(kw.value, names):
            return every
        if kw.arg is not None and _box(kw.value, names):
            out.add((kw.arg if kw.arg in every else a.kwarg.arg if a.kwarg else "") + "[]")
        elif kw.arg is not None and reaches(kw.value, names):
            out.add(kw.arg if kw.arg in every else a.kwarg.arg + "[]" if a.kwarg else "")
    return (out | _defaulted(call, fn, names)) - {"", "[]"}


def _defaulted(call: ast.Call, fn: Function, names: frozenset[str]) -> set[str]:
    """The parameters `call` leaves to a default that may be the value (`def f(d=CFG)`; `f()`, esc53)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    named = {k.arg for k in call.keywords}
    if None in named or any(isinstance(x, ast.Starred) for x in call.args):
        named |= {p.arg for p in (*positional, *a.kwonlyargs)}  # spread: the text cannot say which are left
    first = len(positional) - len(a.defaults)
    left = [(p, d) for i, (p, d) in enumerate(zip(positional[first:], a.defaults)) if first + i >= len(call.args)]
    left += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return {p.arg for p, d in left if p.arg not in named and may_be(d, names)}


def _box(node: ast.AST, names: frozenset[str]) -> bool:
    """A name holding a container the value is in (`T` after `T = (CFG,)`)."""
    return isinstance(node, ast.Name) and node.id + "[]" in names


def _may_hold(node: ast.AST, names: frozenset[str]) -> bool:
    return reaches(node, names) or contains(node, names) or _box(node, names)


def bind(node: ast.AST, held: set[str]) -> None:
    """Names `node` gives the value: `d = CFG` (an alias; also `d = CFG or {}`, `d = CFG if c else
    X`, `(d := CFG)`, `d, n = CFG, 0`, `match CFG: case {...} as d:`, `with nullcontext(CFG) as d:`,
    esc53), `d = args[0]`, `T = (CFG,)` (a container: `T[]`), `for d in args:`, `from m import CFG as d`."""
    names = frozenset(held)
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            _bind_target(target, node.value, names, held)
    elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
        if contains(node.iter, names) or (isinstance(node.iter, ast.Name) and node.iter.id + "[]" in names):
            held.add(node.target.id)
    elif isinstance(node, (ast.With, ast.AsyncWith)):  # `with contextlib.nullcontext(CFG) as d:`
        for item in node.items:
            made, alias = item.context_expr, item.optional_vars
            if isinstance(made, ast.Call) and _nullcontext(made) and made.args and isinstance(alias, ast.Name):
                held.update([alias.id] if may_be(made.args[0], names) else [])
    elif isinstance(node, ast.Match) and may_be(node.subject, names):
        for case in node.cases:
            held.update(n.name for n in _captures(case.pattern) if n.name is not None)
    elif isinstance(node, ast.ImportFrom):  # `from mod import CFG as C2`: maybe this module's own (att61 F10)
        held.update(a.asname for a in node.names if a.asname and a.name in names)


def _nullcontext(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Name) and func.id == "nullcontext") or (
        isinstance(func, ast.Attribute) and func.attr == "nullcontext" and getattr(func.value, "id", "") == "contextlib"
    )


def may_be(value: ast.AST, names: frozenset[str]) -> bool:
    """An expression whose result may be the value itself: a name holding it, `(d := CFG)`, `CFG or
    {}`, `CFG if c else X`."""
    if isinstance(value, ast.NamedExpr):
        return may_be(value.value, names)
    if isinstance(value, ast.BoolOp):
        return any(may_be(v, names) for v in value.values)
    if isinstance(value, ast.IfExp):
        return may_be(value.body, names) or may_be(value.orelse, names)
    return reaches(value, names)


def _bind_target(target: ast.AST, value: ast.AST, names: frozenset[str], held: set[str]) -> None:
    if isinstance(target, ast.Name) and may_be(value, names):
        held.add(target.id)
    elif isinstance(target, ast.Name) and contains(value, names):
        held.add(target.id + "[]")
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        if len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
            for t, v in zip(target.elts, value.elts):
                _bind_target(t, v, names, held)


def _captures(pattern: ast.pattern) -> list[ast.MatchAs]:
    """The captures of a case pattern that bind the subject itself (`case x`, `case {...} as d`, each
    alternative of `|`)."""
    if isinstance(pattern, ast.MatchOr):
        return [c for p in pattern.patterns for c in _captures(p)]
    return [pattern] if isinstance(pattern, ast.MatchAs) else []


def loose(body: list[ast.AST], containers: set[str]) -> set[ast.AST]:
    """The uses of a `*args`/`**kwargs` parameter holding the value other than `args[i]`, `for x in
    args`, `len(args)`, `f(*args)` or `f(**kw)`: the value may go anywhere from there."""
    if not containers:
        return set()
    kept: set[int] = set()
    uses: list[ast.Name] = []
    for node in own(body):
        if isinstance(node, ast.Name) and node.id in containers:
            uses.append(node)
        inner: list[ast.AST] = []
        if isinstance(node, (ast.Subscript, ast.Starred)) or (isinstance(node, ast.keyword) and node.arg is None):
            inner = [node.value]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            inner = [node.iter]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            inner = list(node.args)
        kept.update(id(x) for x in inner)
    return {u for u in uses if id(u) not in kept}


def _items(display: ast.Dict) -> list[ast.expr]:
    return [v for k, v in zip(display.keys, display.values) if k is not None]

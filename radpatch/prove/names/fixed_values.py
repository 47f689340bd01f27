"""Locals whose value no call can change (issue 21 #1): a call cannot rebind a function's own local
(unless a nested function declares it `nonlocal`, or the scope hands its frame out: `locals()`,
`vars()`, `exec`, `eval`, `sys._getframe`, `inspect.currentframe`), but it can change the object a
local holds (`flag = []` / `if flag: v = 1` / `g()` appends / `if flag: v`). So what a test told of a
local survives a call (path_facts.stable) only where every value the scope binds it to is immutable:
a constant, a `not`, an `is`/`in` comparison, a call of `bool`, `len`, `isinstance` (a builtin the
module does not shadow), and `and`/`or`, conditional expressions, arithmetic and comparisons of such
values. A parameter holds what the caller passed: an annotation (`flag: bool`) is not enforced by
Python, so no parameter is fixed (names47), but for a Triton `constexpr` (a kernel's compile-time
constant; its code does not run as Python) and one the body binds again to such a value before
anything reads it (`flag = bool(flag)`, names49). Read with `ast` only."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from .closures import own_nodes
from .scope_bindings import FUNCS, arg_names

_CALLS = frozenset({"bool", "len", "isinstance", "issubclass", "hasattr", "callable", "any", "all"})
_FRAMES = frozenset({"locals", "vars", "exec", "eval", "_getframe", "currentframe", "f_locals", "f_back"})
_BOOL_OPS = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


def fixed_locals(
    fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    own: Iterable[str],
    shadowed: set[str],
    trust_builtins: bool = True,
) -> frozenset[str]:
    """Of `own` (the function's locals no nested scope declares `nonlocal`), those holding an immutable
    value wherever they are bound; `shadowed`: names bound in the module or a scope around, or declared
    `global` anywhere in it (not builtins); `trust_builtins` False: none of _CALLS is the builtin (the
    module can rebind a global by a computed name)."""
    if not trust_builtins:
        shadowed = shadowed | _CALLS
    nodes = [fn.body] if isinstance(fn, ast.Lambda) else own_nodes(fn)
    walked = [n for top in nodes for n in ast.walk(top)] if isinstance(fn, ast.Lambda) else nodes
    if any(_frame(n) for n in walked):
        return frozenset()
    values: dict[str, list[ast.expr]] = {}
    out = set(own)
    body = [] if isinstance(fn, ast.Lambda) else fn.body
    for a in arg_names(fn.args):
        if not _constexpr(a.annotation) and not _coerced(a.arg, body, _CALLS - shadowed):
            out.discard(a.arg)
    plain = {id(t) for n in walked for t in _plain_targets(n)}  # their values are followed
    for n in walked:
        for name, value in _binds(n) if id(n) not in plain else ():
            if value is None:
                out.discard(name)
            else:
                values.setdefault(name, []).append(value)
    calls = _CALLS - shadowed
    changed = True
    while changed:  # a name bound to another local's value is fixed while that one is
        changed = False
        for name in sorted(out):
            if not all(_immutable(v, out, calls) for v in values.get(name, ())):
                out.discard(name)
                changed = True
    return frozenset(out)


def _coerced(name: str, body: list[ast.stmt], calls: frozenset[str]) -> bool:
    """Is parameter `name` bound again, before anything else reads or binds it, by a statement of the
    body itself (on every path) to a value immutable whatever the caller passed (`flag = bool(flag)`,
    `flag = flag is True`; not `flag = flag or False`, which may keep the caller's object)? A `try`
    whose body does so counts when each handler does too (`except TypeError: flag = False`) or ends."""
    for s in body:
        if isinstance(s, ast.Try) and name in _named(s.body):  # `try: flag = bool(flag)` (names51): each
            return _coerced(name, s.body, calls) and all(  # handler binds it first so too, or ends
                _coerced(name, h.body, calls) or (name not in _named(h.body) and _ends(h.body)) or _safe(s.body, calls)
                for h in s.handlers
            )
        value = s.value if isinstance(s, (ast.Assign, ast.AnnAssign)) else None
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
        if value is not None and [t.id for t in targets if isinstance(t, ast.Name)] == [name] == _named(targets):
            return _immutable(value, set(), calls)
        if name in _named([s]):
            return False
    return False


def _safe(body: list[ast.stmt], calls: frozenset[str]) -> bool:
    """Can none of `body`'s statements raise (`flag = flag is True`, `flag = isinstance(flag, bool)` with
    both builtins not shadowed: `calls`)?"""
    for s in body:
        v = s.value if isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets) else None
        if isinstance(v, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in v.ops):
            operands = [v.left, *v.comparators]
        elif (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Name)
            and v.func.id == "isinstance"
            and "isinstance" in calls
            and not v.keywords
        ):
            types = v.args[1:]  # the builtin's, not shadowed: `isinstance(flag, bool)`
            operands = v.args[:1] if all(isinstance(t, ast.Name) and t.id in calls for t in types) else [v]
        else:
            return False
        if not all(isinstance(e, (ast.Name, ast.Constant)) for e in operands):
            return False
    return True


def _ends(body: list[ast.stmt]) -> bool:
    """Does `body` end every path it falls through (its last statement a `return` or `raise`)?"""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _named(nodes: Sequence[ast.AST]) -> list[str]:
    return [n.id for top in nodes for n in ast.walk(top) if isinstance(n, ast.Name)]


def _frame(n: ast.AST) -> bool:
    return (isinstance(n, ast.Name) and n.id in _FRAMES) or (isinstance(n, ast.Attribute) and n.attr in _FRAMES)


def _binds(n: ast.AST) -> list[tuple[str, ast.expr | None]]:
    """The names `n` binds, each with its value where it is a plain one (None: a value not followed)."""
    if isinstance(n, ast.Assign):
        return [p for t in n.targets for p in _target(t, n.value)]
    if isinstance(n, ast.AnnAssign):
        return _target(n.target, n.value) if n.value is not None else []
    if isinstance(n, ast.NamedExpr):
        return [(n.target.id, n.value)]
    if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):  # `n += 1`: n's value op 1
        return [(n.target.id, ast.BinOp(ast.Name(n.target.id, ast.Load()), n.op, n.value))]
    if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.AugAssign)):
        return []
    if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
        return [(n.id, None)]  # a for or with target, a tuple's item, a del
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return [((a.asname or a.name).partition(".")[0], None) for a in n.names]
    if isinstance(n, (*FUNCS, ast.ClassDef)):
        return [(n.name, None)]
    match = type(n).__name__.startswith("Match")
    name = getattr(n, "name", None) if isinstance(n, ast.ExceptHandler) or match else None
    rest = getattr(n, "rest", None) if type(n).__name__ == "MatchMapping" else None
    return [(x, None) for x in (name, rest) if isinstance(x, str)]


def _plain_targets(n: ast.AST) -> list[ast.expr]:
    if isinstance(n, ast.Assign):
        return [t for t in n.targets if isinstance(t, ast.Name)]
    if isinstance(n, (ast.AnnAssign, ast.NamedExpr, ast.AugAssign)) and isinstance(n.target, ast.Name):
        return [n.target]
    return []


def _target(t: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr | None]]:
    if isinstance(t, ast.Name):
        return [(t.id, value)]
    return [(n.id, None) for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _immutable(e: ast.expr, fixed: set[str], calls: frozenset[str]) -> bool:
    """Is `e`'s value immutable (a builtin number, string, bool, None or a tuple of constants)?"""
    if isinstance(e, (ast.Constant, ast.JoinedStr)):
        return True
    if isinstance(e, ast.Name):
        return e.id in fixed
    if isinstance(e, ast.UnaryOp):
        return isinstance(e.op, ast.Not) or _immutable(e.operand, fixed, calls)
    if isinstance(e, ast.Compare):
        return all(isinstance(op, _BOOL_OPS) for op in e.ops) or all(
            _immutable(x, fixed, calls) for x in [e.left, *e.comparators]
        )
    if isinstance(e, ast.BoolOp):
        return all(_immutable(v, fixed, calls) for v in e.values)
    if isinstance(e, ast.IfExp):
        return _immutable(e.body, fixed, calls) and _immutable(e.orelse, fixed, calls)
    if isinstance(e, ast.BinOp):
        return _immutable(e.left, fixed, calls) and _immutable(e.right, fixed, calls)
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in calls


def _constexpr(a: ast.expr | None) -> bool:
    """Is a parameter's annotation Triton's `constexpr` (`tl.constexpr`, `'tl.constexpr'`)?"""
    if isinstance(a, ast.Constant) and isinstance(a.value, str):
        try:
            return _constexpr(ast.parse(a.value.strip(), mode="eval").body)
        except SyntaxError:
            return False
    return (isinstance(a, ast.Name) and a.id == "constexpr") or (isinstance(a, ast.Attribute) and a.attr == "constexpr")


def computed_globals(n: ast.AST) -> bool:
    """`globals()`, `vars()` or `sys.modules`: a module global may be rebound by a computed name."""
    if isinstance(n, ast.Name):
        return n.id == "globals"
    if isinstance(n, ast.Call):
        return isinstance(n.func, ast.Name) and n.func.id == "vars" and not n.args
    return (
        isinstance(n, ast.Attribute) and n.attr == "modules" and isinstance(n.value, ast.Name) and n.value.id == "sys"
    )

"""Class decorators that return the class they are given (att62 F12), for rewrite.self_calls: under one, `self.m`
still runs the class's own def `m`. A decorator may return another class, so this is decided by what it is:
`dataclass` (dataclasses', pydantic's), typing's `final`, `runtime_checkable`; or a module-level def of this module
or of one of its package (SOURCES, set by prove.plan) whose every return on the paths the call reaches is the class,
`dataclass(cls)` or a call of such a def, using the class no other way (docs/safety.md). Anything else: not known
to keep the class. Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

from radpatch.rewrite.rebound_names import ANY, rebound

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_TYPING = ("typing.", "typing_extensions.")
_DATACLASS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass", "pydantic.dataclass"})
_MARKS = frozenset(t + n for t in _TYPING for n in ("final", "runtime_checkable"))
_OVERLOAD = frozenset(t + "overload" for t in _TYPING)

# a module's text and whether it is a package's `__init__`, by its dotted name (None: not there); the
# reader and the planned module's package (None: not known); unset: no other module is read
SOURCES: ContextVar[tuple[Callable[[str], tuple[str, bool] | None], str] | None] = ContextVar(
    "class_decorator_sources", default=None
)


@dataclass(frozen=True)
class _Src:
    package: str | None  # the package relative imports start from ("" for a top-level module)
    body: Sequence[ast.AST]


_MEMO: dict[int, tuple[Sequence[ast.AST], object, dict[object, object]]] = {}  # by id(body), the body kept


def keeps_class(decorator: ast.expr, body: Sequence[ast.AST]) -> bool:
    """`decorator`, on a class of the module whose code is `body`, returns that class (memoized per body
    and SOURCES: rewrite.self_calls asks for each `self.m` call)."""
    given = SOURCES.get()
    memo = _memo(body)
    key = (id(decorator), id(given))
    if key not in memo:
        memo[key] = _keeps_class(decorator, _Src(given[1] if given else None, body))
    return bool(memo[key])


def _memo(body: Sequence[ast.AST]) -> dict[object, object]:
    kept = _MEMO.get(id(body))
    if kept is None or kept[0] is not body or kept[1] is not SOURCES.get():
        if len(_MEMO) > 8:
            _MEMO.clear()
        kept = _MEMO[id(body)] = (body, SOURCES.get(), {})
    return kept[2]


@lru_cache(maxsize=16)
def _parsed(text: str) -> list[ast.stmt] | None:
    try:
        return ast.parse(text).body
    except SyntaxError:
        return None


def _keeps_class(decorator: ast.expr, here: _Src) -> bool:
    found = _resolve(decorator.func if isinstance(decorator, ast.Call) else decorator, here)
    if isinstance(decorator, ast.Call):
        if isinstance(found, str) or found is None:
            return found in _DATACLASS and not decorator.args
        env = _bind(found[0], decorator)
        return env is not None and _judged(found[0], env, found[1], factory=True, depth=0)
    if isinstance(found, str):
        return found in _DATACLASS | _MARKS
    return found is not None and _keeps(found[0], found[1], 0)


def _resolve(said: ast.expr, here: _Src, imports: bool = True) -> str | tuple[ast.FunctionDef, _Src] | None:
    """What a decorator's name is: a dotted name from elsewhere, a module-level def with its module (the
    last def of the name, `@overload` stubs before it), or None (`imports`: follow one into the package)."""
    name_, parts = _split(said)
    if name_ is None:
        return None
    bound = _bindings(here.body, name_.id)
    if bound and all(isinstance(n, _DEFS) for n in bound) and not parts:
        last, stubs = bound[-1], bound[:-1]
        if any(all(_dotted(d, here) not in _OVERLOAD for d in n.decorator_list) for n in stubs):  # type: ignore[attr-defined]
            return None
        return (last, here) if isinstance(last, ast.FunctionDef) else None
    if len(bound) != 1 or not isinstance(bound[0], (ast.Import, ast.ImportFrom)):
        return None
    origin = _origin(bound[0], name_.id, here.package)
    dotted = ".".join([origin, *parts]) if origin else ""
    if dotted in _DATACLASS | _MARKS:
        return dotted
    module, _, name = dotted.rpartition(".")
    given = SOURCES.get()
    if not (imports and here.package and given) or module.split(".")[0] != here.package.split(".")[0]:
        return None
    read = given[0](module)
    parsed = _parsed(read[0]) if read is not None else None
    if read is None or parsed is None:
        return None
    found = _resolve(ast.Name(name, ast.Load()), _Src(module if read[1] else module.rpartition(".")[0], parsed), False)
    return found if isinstance(found, tuple) else None


def _bindings(body: Sequence[ast.AST], name: str) -> list[ast.AST]:
    """What binds `name` in the module's namespace: its module-level code's defs (one not at top level as
    a Pass), classes, imports, stores, star imports; a function's `global` declaration of it; a store the
    code does not spell (rewrite.rebound_names) as a Pass."""
    memo = _memo(body)
    if "rebound" not in memo:
        memo["rebound"] = rebound(body)
    out: list[ast.AST] = [ast.Pass()] if {name, ANY} & memo["rebound"] else []  # type: ignore[operator]
    for node in _own(body):
        if isinstance(node, _DEFS):
            declared = any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(node))
            out += [ast.Pass()] if declared else []
        if isinstance(node, (*_DEFS, ast.ClassDef)) and node.name == name:
            out.append(node if node in body else ast.Pass())
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            a.name == "*" or (a.asname or a.name.split(".")[0]) == name for a in node.names
        ):
            out.append(node)  # a star import: may bind it
        elif isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            out.append(node)
    return out


def _origin(node: ast.Import | ast.ImportFrom, name: str, package: str | None) -> str | None:
    alias = next(a for a in node.names if a.name == "*" or (a.asname or a.name.split(".")[0]) == name)
    if alias.name == "*":
        return None
    if isinstance(node, ast.Import):
        return alias.name if alias.asname else alias.name.split(".")[0]
    if node.level == 0:
        return f"{node.module}.{alias.name}"
    parts = package.split(".") if package else []
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else []), alias.name]) if base else None


def _split(said: ast.expr) -> tuple[ast.Name | None, list[str]]:
    """`a.b.c`: (a, [b, c])."""
    parts: list[str] = []
    while isinstance(said, ast.Attribute):
        parts.insert(0, said.attr)
        said = said.value
    return (said if isinstance(said, ast.Name) else None), parts


def _dotted(expr: ast.expr, here: _Src) -> str:
    call, parts = _split(expr.func if isinstance(expr, ast.Call) else expr)
    if call is None:
        return ""
    bound = _bindings(here.body, call.id)
    if len(bound) == 1 and isinstance(bound[0], (ast.Import, ast.ImportFrom)):
        origin = _origin(bound[0], call.id, here.package)
        return ".".join([origin, *parts]) if origin else ""
    return call.id if not bound else ""


def _keeps(fn: ast.FunctionDef, here: _Src, depth: int) -> bool:
    """`fn(K)` returns K."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    if not params:
        return False
    env = {p.arg: "K" if i == 0 else "?" for i, p in enumerate(params)}
    return _judged(fn, env, here, factory=False, depth=depth)


def _bind(fn: ast.FunctionDef, call: ast.Call) -> dict[str, str] | None:
    """`fn`'s parameters for `call` (its arguments, none the class): "None" for a default None not given."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    a = fn.args
    params = [*a.posonlyargs, *a.args]
    defaults = dict(zip([p.arg for p in params][len(params) - len(a.defaults) :], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    given = {p.arg for p in params[: len(call.args)]} | {k.arg for k in call.keywords if k.arg}
    env = {}
    for p in [*params, *a.kwonlyargs]:
        d = defaults.get(p.arg)
        none = p.arg not in given and isinstance(d, ast.Constant) and d.value is None
        env[p.arg] = "None" if none else "?"
    return env


def _judged(fn: ast.FunctionDef, env: dict[str, str], here: _Src, factory: bool, depth: int) -> bool:
    """Every return of `fn` reached with `env` is the class (K) or, `factory`, a decorator keeping it; the
    class is used no other way, and `fn` carries no decorator but `@dataclass_transform(...)`."""
    if depth > 4 or any(
        _dotted(d, here) not in {t + "dataclass_transform" for t in _TYPING} for d in fn.decorator_list
    ):
        return False
    classes = {p for p, v in env.items() if v == "K"}
    if any(isinstance(n, ast.Name) and n.id in classes and not isinstance(n.ctx, ast.Load) for n in _own(fn.body)):
        return False
    inner = {n.name: n for n in fn.body if isinstance(n, ast.FunctionDef)}
    for n in (n for n in ast.walk(fn) if isinstance(n, _SCOPES) and n is not fn):
        own = set() if isinstance(n, ast.ClassDef) else {p.arg for p in ast.walk(n.args) if isinstance(p, ast.arg)}
        if any(isinstance(x, ast.Name) and x.id in classes - own for x in ast.walk(n)):
            return False  # a nested scope reading the class
    returns, ends = _returns(fn.body, env)
    if not ends:
        returns.append(ast.Constant(None))
    allowed: set[int] = set()
    for value in returns:
        ok = _decorator_value(value, inner, here, depth) if factory else _class_value(value, env, inner, here, depth)
        if not ok:
            return False
        allowed.update(id(n) for n in ([value] if isinstance(value, ast.Name) else value.args[:1]))  # type: ignore[attr-defined]
    tests = {id(n) for s in _own(fn.body) if isinstance(s, ast.If) for n in ast.walk(s.test)}
    return all(id(n) in allowed | tests for n in _own(fn.body) if isinstance(n, ast.Name) and n.id in classes)


def _class_value(value: ast.expr, env: dict[str, str], inner: dict[str, ast.FunctionDef], here: _Src, d: int) -> bool:
    if isinstance(value, ast.Name):
        return env.get(value.id) == "K"
    if not isinstance(value, ast.Call) or not value.args or not isinstance(value.args[0], ast.Name):
        return False
    if env.get(value.args[0].id) != "K" or any(isinstance(a, ast.Starred) for a in value.args):
        return False
    said = value.func
    if isinstance(said, ast.Name) and said.id in inner:
        return _keeps(inner[said.id], here, d + 1)
    found = _resolve(said, here)
    if isinstance(found, str):
        return found in _DATACLASS
    return found is not None and _keeps(found[0], found[1], d + 1)


def _decorator_value(value: ast.expr, inner: dict[str, ast.FunctionDef], here: _Src, d: int) -> bool:
    if isinstance(value, ast.Name) and value.id in inner:
        return _keeps(inner[value.id], here, d + 1)
    if isinstance(value, ast.Call):
        found = _resolve(value.func, here)
        return isinstance(found, str) and found in _DATACLASS and not value.args
    found = _resolve(value, here) if isinstance(value, (ast.Name, ast.Attribute)) else None
    if isinstance(found, str):
        return found in _DATACLASS | _MARKS
    return found is not None and _keeps(found[0], found[1], d + 1)


def _returns(body: Sequence[ast.AST], env: dict[str, str]) -> tuple[list[ast.expr], bool]:
    """The values `body` may return with `env` (an `if P is None` decided where P's value is told), and
    whether every path through it returns."""
    out: list[ast.expr] = []
    for s in body:
        if isinstance(s, ast.Return):
            return [*out, s.value if s.value is not None else ast.Constant(None)], True
        if isinstance(s, ast.If):
            known = _decide(s.test, env)
            ends = True
            for branch in [s.body] if known is True else [s.orelse] if known is False else [s.body, s.orelse]:
                got, end = _returns(branch, env)
                out += got
                ends = ends and end
            if ends:
                return out, True
        elif isinstance(s, ast.Raise):
            return out, True
        else:
            out += [n.value or ast.Constant(None) for n in _own([s]) if isinstance(n, ast.Return)]
    return out, False


def _decide(test: ast.expr, env: dict[str, str]) -> bool | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand, env)
        return None if inner is None else not inner
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)):
        return None
    right, value = test.comparators[0], env.get(test.left.id)
    if not (isinstance(right, ast.Constant) and right.value is None) or value not in ("K", "None"):
        return None
    if isinstance(test.ops[0], ast.Is):
        return value == "None"
    return value == "K" if isinstance(test.ops[0], ast.IsNot) else None


def _own(body: Sequence[ast.AST]) -> list[ast.AST]:
    """The nodes of `body` in source order, not those inside a nested def, lambda or class (but the nested
    node itself)."""
    out: list[ast.AST] = []
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return out

"""The special methods of this scope's classes that a form of code makes Python call, where no call of
them is written (issue 21; implicit_calls follows the written calls and the operators). Each counts as a
call of that method at the statement holding the form:

- an f-string's `{k}` and its format spec (`__format__`, `__str__`, `__repr__`), `"%s" % k`;
- a dict or set display's key, a dict or set comprehension's key (`__hash__`, `__eq__`), `{**k}`,
  `f(**k)` (`keys`, `__getitem__`);
- iterating: `a, b = k`, `for x in k`, a comprehension over k (`__iter__`, `__next__`, `__getitem__`;
  the async ones for `async for`); `[*k]`, `f(*k)`, `list(*[k])` (what the display holds is passed)
  also `__len__`, `__length_hint__`;
- `xs[k]`, `xs[k:]` (`__index__`, `__hash__`, `__eq__`), `K[int]` (`__class_getitem__`), `del k.x`
  (`__delattr__`, a property's deleter);
- truth: `if k:`, `while k:`, `assert k`, `k and x`, `x if k else y` (`__bool__`, `__len__`); `with k:`
  (`__enter__`, `__exit__`); `k += 1` (`__iadd__` and the plain operator);
- a decorator: a class of the scope (`@Reg`: it is made), an instance (`@reg`: `__call__`), a method of
  either (`@reg.add`, `@K.deco`), a call making one (`@Reg(1)`: the instance's `__call__`);
- `K()`: its metaclass's `__call__` (given, or a base's of the scope);
- a class statement: what placement's `reached.ModuleCode` tells its creation runs (each base's
  `__init_subclass__` in the order of the bases the scope defines, the metaclass's `__prepare__`,
  `__new__`, `__init__`, given or inherited, `__set_name__` of an instance its body assigns), and an
  instance of the scope as a base (`__mro_entries__`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .flow import Ctx

if TYPE_CHECKING:
    from .implicit_calls import ImplicitCalls

    Calls = list[tuple[ast.ClassDef | None, tuple[str, ...]]]

ITER = ("__iter__", "__next__", "__getitem__")  # `for`, a comprehension, `a, b = k`: no length asked
SPREAD = (*ITER, "__len__", "__length_hint__")  # `[*k]`, `f(*k)`: the list or tuple sizes itself first
AITER = ("__aiter__", "__anext__")
TRUTH = ("__bool__", "__len__")
TEXT = ("__format__", "__str__", "__repr__")
HASH = ("__hash__", "__eq__")
MAPPING = ("keys", "__getitem__")
INDEX = ("__index__", "__hash__", "__eq__")
WITH = ("__enter__", "__exit__", "__aenter__", "__aexit__")
CONVERSION = {ord("r"): ("__repr__",), ord("a"): ("__repr__",), ord("s"): ("__str__", "__repr__")}


def expression_forms(ic: ImplicitCalls, node: ast.AST, c: Ctx) -> Calls:
    """The special methods `node` (an expression, or a statement itself) makes Python call on this scope's
    classes and instances."""
    from .implicit_calls import _ANY as ANY  # noqa: N811 (its identity tells "any special method")

    if isinstance(node, ast.stmt):  # walk.stmt passes each statement before its own expressions
        return statement_forms(ic, node, c)
    of = ic.class_of
    out: Calls = []
    if isinstance(node, ast.FormattedValue):
        out.append((of(node.value, c), CONVERSION.get(node.conversion, TEXT)))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _text(node.left):  # `"%s" % k`
        parts = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        out += [(of(e, c), TEXT) for e in parts]
    elif isinstance(node, ast.Dict):
        out += [(of(k, c), HASH) for k in node.keys if k is not None]
        out += [(of(v, c), MAPPING) for k, v in zip(node.keys, node.values) if k is None]  # `{**k}`
    elif isinstance(node, ast.Set):
        out += [(of(e, c), HASH) for e in node.elts]
    if isinstance(node, (ast.DictComp, ast.SetComp)):
        key = node.key if isinstance(node, ast.DictComp) else node.elt
        targets = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        if not (isinstance(key, ast.Name) and key.id in targets):  # a name of the comprehension is not k
            out.append((of(key, c), HASH))
    if isinstance(node, ast.Starred) and isinstance(node.ctx, ast.Load):
        out.append((of(node.value, c), SPREAD))
    elif isinstance(node, ast.Call):
        out.append((_metaclass(ic, of(node, c, made=True), c), ("__call__",)))  # `K()`: its metaclass's
        for a in node.args:  # `list(*[k])`: what the display holds is passed to the call
            if isinstance(a, ast.Starred) and isinstance(a.value, (ast.List, ast.Tuple, ast.Set)):
                out += [(of(e, c), ANY) for e in a.value.elts]
        out += [(of(k.value, c), MAPPING) for k in node.keywords if k.arg is None]  # `f(**k)`
    elif isinstance(node, ast.Subscript):
        out.append((of(node.slice, c), INDEX))
        owner = ic.lookup(ic.classes, node.value.id, c) if isinstance(node.value, ast.Name) else None
        out.append((owner if isinstance(owner, ast.ClassDef) else None, ("__class_getitem__",)))
    elif isinstance(node, ast.Slice):
        out += [(of(e, c), ("__index__",)) for e in (node.lower, node.upper, node.step) if e is not None]
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Del):
        cls = of(node.value, c)
        deleter = cls is not None and _deleter(cls, node.attr)
        out.append((cls, ("__delattr__", node.attr) if deleter else ("__delattr__",)))
    elif isinstance(node, ast.BoolOp):
        out += [(of(v, c), TRUTH) for v in node.values[:-1]]
    elif isinstance(node, ast.IfExp):
        out.append((of(node.test, c), TRUTH))
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        out.append((of(node.generators[0].iter, c), ITER))  # made where it stands, the generator's too
    return out


def statement_forms(ic: ImplicitCalls, s: ast.stmt, c: Ctx) -> Calls:
    """The special methods statement `s` itself makes Python call (its expressions aside)."""
    of = ic.class_of
    out: Calls = []
    if isinstance(s, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in s.targets):
        out.append((of(s.value, c), ITER))  # `a, b = k`
    elif isinstance(s, ast.For):
        out.append((of(s.iter, c), ITER))
    elif isinstance(s, ast.AsyncFor):
        out.append((of(s.iter, c), AITER))
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        out += [(of(item.context_expr, c), WITH) for item in s.items]
    elif isinstance(s, (ast.If, ast.While, ast.Assert)):
        out.append((of(s.test, c), TRUTH))
    elif isinstance(s, ast.AugAssign):
        op = _op(s.op)
        out.append((of(s.target, c), (f"__i{op}__", f"__{op}__")))
        out.append((of(s.value, c), (f"__r{op}__",)))
    return out


def decorator_forms(ic: ImplicitCalls, d: ast.expr, c: Ctx) -> Calls:
    """What a decorator of this scope's classes runs when it is called with what it decorates."""
    if isinstance(d, ast.Name):
        made = ic.lookup(ic.classes, d.id, c)
        if isinstance(made, ast.ClassDef):  # `@Reg`: Reg(fn) makes an instance
            return [(made, ("__init__", "__new__", "__post_init__"))]
        return [(ic.class_of(d, c), ("__call__",))]  # `@reg`
    if isinstance(d, ast.Attribute):  # `@reg.add`, `@K.deco`
        owner = ic.lookup(ic.classes, d.value.id, c) if isinstance(d.value, ast.Name) else None
        cls = owner if isinstance(owner, ast.ClassDef) else ic.class_of(d.value, c)
        return [(cls, (d.attr,))]
    if isinstance(d, ast.Call):  # `@Reg(1)`: what it made is called
        return [(ic.class_of(d, c, made=True), ("__call__",))]
    return []


def creation(ic: ImplicitCalls, s: ast.ClassDef, c: Ctx) -> list[tuple[ast.AST, ast.ClassDef | None]]:
    """The methods creating class `s` runs (reached.ModuleCode over the classes this scope sees), each
    with its class where this scope made it; and `__mro_entries__` of an instance of the scope as a base."""
    try:
        from ..placement.reached import ModuleCode
    except ImportError:  # served to the target interpreter: no parent package (placement/guards.py)
        from radpatch_placement.reached import ModuleCode  # type: ignore[import-not-found,no-redef]

    seen: dict[str, ast.ClassDef] = {}  # the scope's classes s names, and those they name: linear work
    todo = [n for k in [s] for n in _named(k, body=True)]
    while todo:
        name = todo.pop()
        k = ic.lookup(ic.classes, name, c)
        if isinstance(k, ast.ClassDef) and name not in seen:
            seen[name] = k
            todo += _named(k, body=False)
    out: list[tuple[ast.AST, ast.ClassDef | None]] = []
    if seen:
        owners = {id(m): k for k in seen.values() for m in k.body}
        out += [(fn, owners.get(id(fn))) for fn in ModuleCode([*seen.values(), s]).class_creation(s)]
    for b in s.bases:
        cls = ic.class_of(b, c)
        if cls is not None:
            out += [(fn, cls) for fn in ic.methods(cls, ("__mro_entries__",), c)]
    return out


def run(ic: ImplicitCalls, calls: Calls, line: int, c: Ctx) -> None:
    """Each method of `calls` runs at `line` (what it reads is read there)."""
    for cls, names in calls:
        if cls is not None:
            for fn in ic.methods(cls, names, c):
                ic.runs(fn, line, c, ic.def_bound.get(id(cls), frozenset()))


def created(ic: ImplicitCalls, s: ast.ClassDef, c: Ctx) -> None:
    """What creating class `s` runs, read where the class statement is (after its body)."""
    if ic.classes:
        for fn, owner in creation(ic, s, c):
            made = ic.def_bound.get(id(owner), frozenset()) if owner is not None else frozenset()
            ic.runs(fn, s.lineno, c, made)  # type: ignore[arg-type]


def _metaclass(ic: ImplicitCalls, cls: ast.ClassDef | None, c: Ctx) -> ast.ClassDef | None:
    """The metaclass of the scope `cls` names (`metaclass=Meta`), or one of its bases of the scope does."""
    seen: set[int] = set()
    todo = [cls] if cls is not None else []
    while todo:
        k = todo.pop(0)
        if id(k) in seen:
            continue
        seen.add(id(k))
        for kw in k.keywords:
            if kw.arg == "metaclass" and isinstance(kw.value, ast.Name):
                meta = ic.lookup(ic.classes, kw.value.id, c)
                return meta if isinstance(meta, ast.ClassDef) else None
        bases = [ic.lookup(ic.classes, b.id, c) for b in k.bases if isinstance(b, ast.Name)]
        todo += [b for b in bases if isinstance(b, ast.ClassDef)]
    return None


def _named(k: ast.ClassDef, body: bool) -> list[str]:
    """The names `k`'s bases and keywords read (with `body`, and what its body's assignments call)."""
    exprs = [*k.bases, *(kw.value for kw in k.keywords)]
    if body:
        exprs += [
            b.value.func for b in k.body if isinstance(b, (ast.Assign, ast.AnnAssign)) and isinstance(b.value, ast.Call)
        ]
    return [e.id for e in exprs if isinstance(e, ast.Name)]


def _text(e: ast.expr) -> bool:
    return isinstance(e, ast.JoinedStr) or (isinstance(e, ast.Constant) and isinstance(e.value, str))


def _op(op: ast.operator) -> str:
    from .protocol_calls import BIN_OPS

    return BIN_OPS[type(op)]


def _deleter(cls: ast.ClassDef, attr: str) -> bool:
    return any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        and s.name == attr
        and any(isinstance(d, ast.Attribute) and d.attr == "deleter" for d in s.decorator_list)
        for s in cls.body
    )

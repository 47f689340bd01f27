"""An instance of a class a function defines, reached where the walk cannot tell its class (issue 21,
names47): a parameter's default (`def g(k=K()): k()`), a return value (`k = make()`), a container
(`ks = [K()]` / `for k in ks: k()`), an attribute (`self.k = K()` / `self.k()`). Counted conservatively,
in a function that defines classes:

- in its own code, an operand whose class is not known (`UNKNOWN`) may be an instance of any class the
  function has defined so far: what Python calls of it (`k()`, `if k:`, `k.p`, ...) runs the method of
  that name of each such class; not a literal, a comparison's result, a name of the module, a builtin or
  a parameter of the function (the caller has no instance of a class this call makes) itself;
- a function or method of it that runs (implicit_calls.runs) runs, of those classes, each method its body
  may call on a value of its own (a parameter, `self.k`, a local: `triggers`), and so on from each.

Module-level code is counted so too (names50), for the classes the module has defined so far: a call's
result, a container's element, and what a function run at import reads of the module (its names, but
`foreign` ones, count as its own values for `triggers`, and the module functions it calls are followed:
`triggered_reads`); a class body's code counts as its scope's (`home`). A comprehension's own variable
counts in any scope.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .closures import free_reads, own_nodes
from .protocol_calls import BIN_OPS, protocols
from .scope_bindings import COMPS, FUNCS, NameScope

if TYPE_CHECKING:  # the package runs on older targets too (target_probe)
    Fn = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

UNKNOWN = ast.ClassDef(name="<unknown>", bases=[], keywords=[], body=[], decorator_list=[])
ALL = "*"  # an own value passed to a call: any special method may run
_NOT_INSTANCES = (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Set, ast.Dict, *COMPS, ast.Lambda, ast.Compare)
_ATTRIBUTE = ("__getattribute__", "__getattr__", "__setattr__", "__delattr__")
_SUBSCRIPT = ("__getitem__", "__setitem__", "__delitem__")
_COMPARE = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__", "__hash__")
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__", ast.Not: "__bool__"}
_TEXT = ("__format__", "__str__", "__repr__")


def home(scope: NameScope) -> NameScope:
    """The scope whose classes an operand of `scope` may be an instance of: past comprehensions and
    class bodies (`class D: x = make().m()` runs at once, where the class statement is)."""
    while scope.kind in ("comprehension", "annotation", "class") and scope.parent is not None:
        scope = scope.parent
    return scope


def may_be_instance(e: ast.AST, scope: NameScope, fn: ast.AST | None) -> bool:
    """Could `e`, in function `scope` (its def `fn`), be an instance of a class it defined?"""
    if isinstance(e, _NOT_INSTANCES) or (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not)):
        return False
    if not isinstance(e, ast.Name):
        return True
    params = (
        {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} if isinstance(fn, (*FUNCS, ast.Lambda)) else set()
    )
    return e.id in scope.locals and e.id not in params


def foreign(tree: ast.Module, module: NameScope) -> set[str]:
    """The module's names no instance of its classes can be in: each binding of it an import, or at
    module level `x = value` with `value` reading only such names and builtins (`A = os.environ.get('A')`,
    `log = getLogger(__name__)`); a name a function declares `global` is not, nor one stored through or
    passed to or along with what may be an instance: a value reading other names, a class or a def of
    the module that reads other names of it (`Q.put(C)`, `REG.hook = make`: it may make one and hand it
    back; not `register(op, fn)`, names53 #3), a method's `self` (`CV.set(self)`); nor one imported once
    a class is made, but from the standard library (another module may have taken the class: names53 #1)."""
    values: dict[str, list[ast.expr | None]] = {}
    others: set[str] = {n for g in ast.walk(tree) if isinstance(g, ast.Global) for n in g.names}
    todo: list[ast.AST] = list(tree.body)
    first = _first_class(tree)
    made: dict[str, list[ast.AST]] = {}  # the module's defs and classes, by name
    while todo:
        s = todo.pop()
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                values.setdefault(a.asname or a.name.split(".")[0], []).append(None)
                if s.lineno > first and not _stdlib(s):  # the module imported may have one (names53 #1)
                    others.add(a.asname or a.name.split(".")[0])
            continue
        simple = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
        value = getattr(s, "value", None)
        if value is not None and simple and all(isinstance(t, ast.Name) for t in simple):
            for t in simple:
                values.setdefault(t.id, []).append(value)  # type: ignore[attr-defined]
            simple_ids = {id(t) for t in simple}
        else:
            simple_ids = set()
        if isinstance(s, (*FUNCS, ast.ClassDef)):
            others.add(s.name)
            made.setdefault(s.name, []).append(s)
            continue
        for n in ast.iter_child_nodes(s):
            if isinstance(n, ast.stmt):
                todo.append(n)
            else:
                others |= {
                    x.id
                    for x in ast.walk(n)
                    if isinstance(x, ast.Name) and not isinstance(x.ctx, ast.Load) and id(x) not in simple_ids
                } | {x.name for x in ast.walk(n) if isinstance(x, ast.ExceptHandler) and x.name}
    calls: list[tuple[set[str], list[ast.expr]]] = []  # a call's receiver and arguments, `d.append(C())`
    given = _selves(tree)  # `CV.set(self)` in a method: it may hand the instance back (names51)
    stored = _stored_values(tree)  # `reg.hook = fn`: as `register(reg, fn)` is (names53 #3)
    for n in ast.walk(tree):
        if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
            if id(n) not in stored:
                others.add(_root(n))  # `for d['a'] in ...`, `del reg.x`: it may hold one now
            else:
                part = [n.slice] if isinstance(n, ast.Subscript) else []  # `d[C()] = 1`: the key too
                calls.append(({_root(n)} & set(values), [stored[id(n)], *part]))
        elif isinstance(n, ast.Call):
            args = [*n.args, *(k.value for k in n.keywords)]
            calls.append(({_root(e) for e in [n.func, *args]} & set(values), args))
    out = set(values) - others
    defs = {n: d[0] for n, d in made.items() if len(d) == 1 and n not in values}  # bound once, by that def
    changed = True
    while changed:  # a value reading a name that may hold an instance may be one, and so may what it is
        changed = False  # passed to or along with (`reg.add(C())`, `register(d, make())`)
        for name in sorted(out):
            if not all(v is None or reads_only(v, out, module.bound) for v in values[name]):
                out.discard(name)
                changed = True
        for roots, args in calls:  # a class or def of the module given (`Q.put(C)`) may come back made
            if roots & out and not all(_inert(a, out, module.bound, defs) and id(a) not in given for a in args):
                out -= roots
                changed = True
    return out


def _inert(a: ast.expr, out: set[str], bound: set[str], defs: Mapping[str, ast.AST]) -> bool:
    """Can `a`, given to a foreign name, hand back no instance? A value reading only `out` names and
    builtins, or a def of the module whose body reads no other name of it (`register(op, fn)`, names50:
    calling it makes none); not a class, nor a def that may make one (`Q.put(make)`, names51)."""
    if reads_only(a, out, bound):
        return True
    fn = defs.get(a.id) if isinstance(a, ast.Name) else None
    return isinstance(fn, FUNCS) and free_reads(fn) & bound <= out


def _first_class(tree: ast.Module) -> int:
    """The line of the module's first class statement run at import (a large number: none)."""
    todo: list[ast.AST] = list(tree.body)
    lines = []
    while todo:
        s = todo.pop()
        if isinstance(s, ast.ClassDef):
            lines.append(s.lineno)
        elif not isinstance(s, FUNCS):
            todo.extend(n for n in ast.iter_child_nodes(s) if isinstance(n, ast.stmt))
    return min(lines, default=1 << 30)


def _stdlib(s: ast.Import | ast.ImportFrom) -> bool:
    """Does `s` import only the standard library (which imports no module of a package)? Read from this
    interpreter, the target (target_probe); before 3.10 only its built-in modules are known."""
    known = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names) | {"__future__"}
    if isinstance(s, ast.ImportFrom):
        return not s.level and (s.module or "").split(".")[0] in known
    return all(a.name.split(".")[0] in known for a in s.names)


def _stored_values(tree: ast.Module) -> dict[int, ast.expr]:
    """Each attribute or subscript target of an assignment (`reg.hook = fn`, `d['a'] = C()`, `+=`), to its value."""
    out: dict[int, ast.expr] = {}
    for s in ast.walk(tree):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AugAssign) else []
        if isinstance(s, ast.AnnAssign) and s.value is not None:
            targets = [s.target]
        for t in targets:
            if isinstance(t, (ast.Attribute, ast.Subscript)):
                out[id(t)] = s.value  # type: ignore[attr-defined]
    return out


def _selves(tree: ast.Module) -> set[int]:
    """The reads of a method's first parameter (`self`) of a class of the module, as a call's argument."""
    out: set[int] = set()
    for k in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for m in (m for m in k.body if isinstance(m, FUNCS) and [*m.args.posonlyargs, *m.args.args]):
            first = [*m.args.posonlyargs, *m.args.args][0].arg
            for call in (n for n in ast.walk(m) if isinstance(n, ast.Call)):
                args = [*call.args, *(kw.value for kw in call.keywords)]
                out |= {id(a) for a in args if isinstance(a, ast.Name) and a.id == first}
    return out


def _root(e: ast.AST) -> str:
    while isinstance(e, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        e = e.func if isinstance(e, ast.Call) else e.value
    return e.id if isinstance(e, ast.Name) else ""


def reads_only(value: ast.AST, names: set[str], bound: set[str]) -> bool:
    """Does `value` read only `names` and builtins (none of `bound` but `names`), defining nothing?"""
    return not any(
        isinstance(n, (ast.Lambda, ast.NamedExpr)) or (isinstance(n, ast.Name) and n.id in bound and n.id not in names)
        for n in ast.walk(value)
    )


def triggers(fn: Fn, own: set[str], classes: set[str]) -> set[str]:
    """The methods `fn`'s body may call on a value of its own (`own`: its parameters and locals; `k()`,
    `self.k()`, `if k:`, `k.p`, ...; ALL: any special method), and `classes` it reads (made there)."""
    out: set[str] = set()
    nodes = list(ast.walk(fn.body)) if isinstance(fn, ast.Lambda) else own_nodes(fn)

    def mine(e: ast.AST) -> bool:
        while isinstance(e, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred, ast.Await)):
            e = e.func if isinstance(e, ast.Call) else e.value
        return isinstance(e, ast.Name) and e.id in own

    for n in nodes:
        if isinstance(n, ast.Name) and n.id in classes:
            out.add(n.id)
        elif isinstance(n, ast.Call):
            if mine(n.func):  # `K()` makes one (its metaclass's `__call__`, no instance's)
                made = isinstance(n.func, ast.Name) and n.func.id in classes
                out.update(
                    ("__call__", n.func.attr) if isinstance(n.func, ast.Attribute) else () if made else ("__call__",)
                )
            if any(mine(a) for a in [*n.args, *(k.value for k in n.keywords)]):
                out.add(ALL)
        elif isinstance(n, ast.Attribute) and mine(n.value):
            out.update((*_ATTRIBUTE, n.attr))
        elif isinstance(n, ast.Subscript):
            out.update(_SUBSCRIPT if mine(n.value) else ())
            out.update(("__index__", "__hash__", "__eq__") if mine(n.slice) else ())
        elif isinstance(n, ast.BinOp):
            op = BIN_OPS[type(n.op)]
            out.update((f"__{op}__", f"__r{op}__") if mine(n.left) or mine(n.right) else ())
        elif isinstance(n, ast.Compare) and any(mine(e) for e in [n.left, *n.comparators]):
            out.update(_COMPARE)
        elif isinstance(n, ast.UnaryOp) and mine(n.operand):
            out.update((_UNARY[type(n.op)], "__len__"))
        elif isinstance(n, ast.FormattedValue) and mine(n.value):
            out.update(_TEXT)
        for e, names in protocols(n):
            if mine(e):
                out.update(names)
    return out


def triggered_reads(
    fn: Fn, classes: list[ast.ClassDef], scopes: Mapping[int, NameScope], held: set[str], defs: Mapping[str, Fn]
) -> set[str]:
    """What the methods of `classes` that `fn` may run on values of its own (its locals, and `held`)
    read, and so on from each, and from each of `defs` (the module's functions) they call by name:
    followed for the methods they run, not their own reads (closures' rule for a call stays)."""
    names = {k.name for k in classes}
    out: set[str] = set()
    seen, todo = {id(fn)}, [fn]
    while todo:
        f = todo.pop()
        scope = scopes.get(id(f))
        told = triggers(f, (scope.locals if scope is not None else set()) | held, names)
        nodes = list(ast.walk(f.body)) if isinstance(f, ast.Lambda) else own_nodes(f)
        for m in [m for k in classes for m in k.body if isinstance(m, FUNCS) and called(m.name, k.name, told)]:
            if id(m) not in seen:
                seen.add(id(m))
                out |= free_reads(m)
                todo.append(m)
        for n in nodes:
            d = defs.get(n.func.id) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else None
            if d is not None and id(d) not in seen:
                seen.add(id(d))
                todo.append(d)
    return out


def called(method: str, cls: str, names: set[str]) -> bool:
    """Is `method` of class `cls` among what `triggers` told (`names`)?"""
    if method in ("__init__", "__new__", "__post_init__"):
        return cls in names
    return method in names or (ALL in names and method.startswith("__") and method.endswith("__"))

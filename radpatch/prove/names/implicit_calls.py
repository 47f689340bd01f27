"""Code of the module that runs where no plain `g()` of it is written (issue 21): what it reads is read
there, as closures.free_reads tells for a call. Followed, in a function and at module level:

- a call of a function this scope defined (`g()`, an alias, in a comprehension, passed to a call);
  passed to a call, put in a container or stored on an attribute, it is kept and runs later, where
  kept_callbacks tells (`t = Thread(target=g)` / `v = 1` / `t.start()`);
  in a class body, which runs at once, one of the scope around it;
- a method of a class this scope defined, called on the class, an instance made here (`k = K()`) or a
  `K()` (`K.m(0)`, `k.m()`); making one runs `__init__`, `__new__` and `__post_init__`;
- what Python calls on such an instance: a property's getter (`k.p`), `__getattr__`, a setter
  (`k.p = 1`), `__getitem__`/`__setitem__`/`__delitem__` (`k[0]`), the comparisons (`k == 1`,
  `x in k`), the arithmetic and unary operators (`k + 1`, `-k`), any special method where it is passed
  to a call or called (`str(k)`, `len(k)`, `k()`); bases that are classes of this scope too;
- a decorator that is a function of this scope: its body runs when the def is made, and the function it
  decorates runs too where that body (not a wrapper it defines) calls its parameter;
- what `if k:`, `for x in k`, `with k:` and `k += 1` call of such an instance (protocol_calls);
- the special methods a form of code makes Python call (special_forms: an f-string, a dict key,
  unpacking, `for x in k`, `with k:`, `if k:`, `k += 1`, a class statement, `@Reg`, `@reg.add`, ...).

An instance of a class a function or the module defines reached another way (a parameter's default, a
return value, a container, `self.k`, a global a function run at import reads) counts as an instance of
any of its classes (unknown_instances). A lambda called at once (`(lambda: make().m())()`) runs there
(expressions). Not seen (dynamic dispatch): a decorator imported from elsewhere or one that passes the
function on to another call, a class of another scope.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .closures import free_reads, own_nodes
from .flow import Ctx
from .kept_callbacks import KeptCallbacks
from .lambda_runs import accessor, members
from .problem import Runtime
from .protocol_calls import BIN_OPS as _BIN
from .protocol_calls import protocols
from .scope_bindings import FUNCS, NameScope
from .special_forms import created, decorator_forms, expression_forms, run
from .unknown_instances import UNKNOWN, foreign, home, may_be_instance, reads_only, triggered_reads

if TYPE_CHECKING:  # the package runs on older targets too (target_probe)
    Fn = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    Key = tuple[int, str]

_MAKE = ("__init__", "__new__", "__post_init__")
_COMPARE = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__")
_UNARY = {ast.USub: ("__neg__",), ast.UAdd: ("__pos__",), ast.Invert: ("__invert__",), ast.Not: ("__bool__", "__len__")}
_ANY = ("*",)  # an instance passed to a call or called: any of its special methods may run
_SUBSCRIPT = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}


class ImplicitCalls(KeptCallbacks):
    tree: ast.Module
    local_defs: dict[Key, Fn]
    def_bound: dict[int, frozenset[str]]
    scopes: dict[int, NameScope]

    def __init__(self, scopes: dict[int, NameScope], module: NameScope, runtime: Runtime) -> None:
        super().__init__(scopes, module, runtime)
        self.classes: dict[Key, ast.ClassDef] = {}  # per scope: the classes it defined, by name
        self.instances: dict[Key, ast.ClassDef] = {}  # per scope: names bound to `K(...)` of such a class
        self.class_scopes: set[int] = set()  # the functions and module that define classes (unknown_instances)
        self.foreign: set[str] = set()  # the module's names no instance of its classes is in (unknown_instances)

    def ctx(self, scope: NameScope) -> Ctx:
        raise NotImplementedError

    def around(self, c: Ctx) -> Ctx:
        """Where code run from a class body or a comprehension runs: the function or module around it."""
        s = c.scope
        while s.kind in ("class", "comprehension", "annotation") and s.parent is not None:
            s = s.parent
        return c if s is c.scope else self.ctx(s)

    def rebound(self, key: Key) -> None:
        """A name bound again: no longer (only) the def, class or instance noted."""
        self.local_defs.pop(key, None)
        self.classes.pop(key, None)
        self.instances.pop(key, None)

    def closure_call(self, name: str, line: int, c: Ctx) -> None:
        """`g()` where g is a function this scope defined (a `def`, `g = lambda: ...`, or an alias `h = g`
        of one; called in a comprehension, or passed to a call that may call it): the locals of
        this scope its body reads are read now (a closure reads them when it runs), so one not assigned
        yet here is unbound, and one bound on some paths only is read as a read here would be (att43 #1)."""
        if c.scope.kind == "comprehension":  # `[g() for _ in xs]` runs g where the comprehension is
            c = self.ctx(c.scope.binding_scope())
        fn = self.local_defs.get((id(c.scope), name))
        if fn is not None and name in c.flow.definite:
            self.runs(fn, line, c, self.def_bound.get(id(fn), frozenset()))
        elif fn is None and c.scope.kind == "class" and name not in c.scope.locals:  # the body runs now
            self.closure_call(name, line, self.around(c))

    def runs(self, fn: Fn, line: int, c: Ctx, made: frozenset[str], kept: bool = False) -> None:
        """`fn` runs at `line` of `c`'s scope; `made`: what was bound on every path where it was made (bound
        when it runs, unless deleted since; `kept`: a Kept's, which its path's deletes took out already)."""
        c = self.around(c)
        made = made if kept else made - c.flow.dels
        if c.scope.kind == "module":  # `R = g()` at import time, `V = 1` after it (att43 #2): V read now
            reads = free_reads(fn) | (self.triggered(fn, c) if id(c.scope) in self.class_scopes else set())
            for free in sorted(reads & self.module.bound - made):
                self.module_read(free, line, c.scope, c.flow)
            return self.holders_read(fn, line, c) if self.holders else None  # `go()` reads CBS: what it holds runs
        if c.scope.kind != "function":
            return
        reads = free_reads(fn) | (self.triggered(fn, c) if id(c.scope) in self.class_scopes else set())
        for free in sorted(reads & c.scope.locals - made):
            if free not in c.flow.maybe:
                self.local_check(free, line, c.scope, c.flow, False)
            else:  # bound on some paths only by now (`if a: v = 1` / `g()`): read as a read here would be
                self.local_read(free, line, c.scope, c.flow)

    def made_class(self, s: ast.ClassDef, c: Ctx) -> None:
        self.classes[(id(c.scope), s.name)] = s
        if c.scope.kind == "module" and id(c.scope) not in self.class_scopes:  # its first class
            self.foreign = foreign(self.tree, self.module)
        self.class_scopes |= {id(c.scope)} if c.scope.kind in ("function", "module") else set()
        self.def_bound[id(s)] = frozenset(c.flow.definite)
        created(self, s, c)  # its bases' __init_subclass__, its metaclass, __set_name__ (special_forms)
        self.decorated(s, c)

    def made_instance(self, name: str, value: ast.expr, c: Ctx) -> None:
        cls = self.class_of(value, c, made=True)
        if cls is not None:
            self.instances[(id(c.scope), name)] = cls

    def decorated(self, s: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, c: Ctx) -> None:
        """Each decorator is called with what is defined (the innermost first): one of this scope's
        functions runs, and so does the function it decorates where its body may call its parameter."""
        if not isinstance(s, ast.ClassDef):
            self.classes.pop((id(c.scope), s.name), None)
            self.instances.pop((id(c.scope), s.name), None)
        for d in reversed(s.decorator_list):
            run(self, decorator_forms(self, d, c), s.lineno, c)  # `@Reg`, `@reg.add` (special_forms)
            if not isinstance(d, ast.Name):
                continue
            self.closure_call(d.id, s.lineno, c)
            deco = self.lookup(self.local_defs, d.id, c)
            if deco is not None and not isinstance(s, ast.ClassDef) and _calls_first_param(deco):
                self.runs(s, s.lineno, c, frozenset())

    def lookup(self, table: Mapping[Key, ast.AST], name: str, c: Ctx) -> ast.AST | None:
        s: NameScope | None = c.scope
        while s is not None:
            found = table.get((id(s), name))
            if found is not None or name in s.locals or s.kind not in ("class", "comprehension", "annotation"):
                return found
            s = s.parent
        return None

    def class_of(self, e: ast.AST, c: Ctx, made: bool = False) -> ast.ClassDef | None:
        """The class of this scope `e` is an instance of (`k`, `K()`), or with `made`, makes; UNKNOWN where
        it may be an instance of any class the function defined (unknown_instances)."""
        if isinstance(e, ast.Name) and not made:
            found = self.lookup(self.instances, e.id, c)
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            found = self.lookup(self.classes, e.func.id, c)
        else:
            found = None
        if isinstance(found, ast.ClassDef):
            return found
        return self.unknown(e, c) if self.class_scopes and not made else None

    def unknown(self, e: ast.AST, c: Ctx) -> ast.ClassDef | None:
        scope = home(c.scope)
        if id(scope) not in self.class_scopes:
            return None
        known = isinstance(e, ast.Name) and any((id(scope), e.id) in t for t in (self.local_defs, self.classes))
        known = known or (scope.kind == "module" and reads_only(e, self.foreign, scope.bound))  # `os.getenv(A)`
        if isinstance(e, ast.Name) and c.scope.kind == "comprehension" and e.id in c.scope.locals:
            return UNKNOWN  # `[k.m() for k in ks]`
        return UNKNOWN if not known and may_be_instance(e, scope, self.fn_nodes.get(id(scope))) else None

    def scope_classes(self, c: Ctx) -> list[ast.ClassDef]:
        """The classes the function `c` is in has defined so far."""
        scope = id(home(c.scope))
        return [k for (s, _), k in self.classes.items() if s == scope]

    def triggered(self, fn: Fn, c: Ctx) -> set[str]:
        """What the methods of the function's classes that `fn` may run on values of its own read, and
        so on from each (unknown_instances.triggered_reads)."""
        scope = home(c.scope)  # at module level: its names a function run at import reads, its defs it calls
        fn_node = self.fn_nodes.get(id(scope))  # in a function: its locals a closure reads (not a parameter)
        params = (
            {a.arg for a in ast.walk(fn_node.args) if isinstance(a, ast.arg)} if isinstance(fn_node, FUNCS) else set()
        )
        held = scope.locals - (self.foreign if scope.kind == "module" else params)
        defs = {n: f for (s, n), f in self.local_defs.items() if s == id(scope)} if held else {}
        return triggered_reads(fn, self.scope_classes(c), self.scopes, held, defs)

    def implicit(self, node: ast.AST, c: Ctx) -> None:
        """What Python runs of this scope's classes for `node` (the module's docstring)."""
        if not self.classes:
            return
        calls: list[tuple[ast.ClassDef | None, tuple[str, ...]]] = []
        t = type(node)
        if t is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            calls.append((self.class_of(node, c, made=True), _MAKE))
            for e in node.args + [k.value for k in node.keywords]:  # type: ignore[attr-defined]
                calls.append((self.class_of(e, c), _ANY))  # `str(k)`, `len(k)`
            called = self.class_of(func, c)  # `k()`
            owner: ast.AST | None = None
            if isinstance(func, ast.Attribute):
                owner = self.lookup(self.classes, func.value.id, c) if isinstance(func.value, ast.Name) else None
                owner = owner if isinstance(owner, ast.ClassDef) else self.class_of(func.value, c)
                calls.append((owner, (func.attr,)))
            if called is not UNKNOWN:
                calls.append((called, _ANY))
            elif not (
                isinstance(owner, ast.ClassDef) and owner is not UNKNOWN and self.methods(owner, (func.attr,), c)
            ):
                calls.append(
                    (called, ("__call__",))
                )  # what it is called on may be an instance (not `h.go()`, a method)
        elif t is ast.Attribute and not isinstance(node.ctx, ast.Del):  # type: ignore[attr-defined]
            cls = self.class_of(node.value, c)  # type: ignore[attr-defined]
            attr = node.attr  # type: ignore[attr-defined]
            store = isinstance(node.ctx, ast.Store)  # type: ignore[attr-defined]
            if cls is not None:
                names: tuple[str, ...] = ("__setattr__",) if store else ("__getattribute__", "__getattr__")
                both = self.scope_classes(c) if cls is UNKNOWN else [cls]
                calls.append((cls, (*names, attr) if any(accessor(k, attr, store) for k in both) else names))
        elif t is ast.Subscript:
            calls.append((self.class_of(node.value, c), (_SUBSCRIPT[type(node.ctx)],)))  # type: ignore[attr-defined]
        elif t is ast.Compare:
            for e in [node.left, *node.comparators]:  # type: ignore[attr-defined]
                calls.append((self.class_of(e, c), _COMPARE))
        elif t is ast.BinOp:
            op = _BIN[type(node.op)]  # type: ignore[attr-defined]
            for e in (node.left, node.right):  # type: ignore[attr-defined]
                calls.append((self.class_of(e, c), (f"__{op}__", f"__r{op}__")))
        elif t is ast.UnaryOp:
            calls.append((self.class_of(node.operand, c), _UNARY[type(node.op)]))  # type: ignore[attr-defined]
        for e, wanted in protocols(node):  # `if k:`, `for x in k`, `with k:`, `k += 1` (protocol_calls)
            calls.append((self.class_of(e, c), wanted))
        calls += expression_forms(self, node, c)  # f-strings, hashing, unpacking... (special_forms)
        for cls, names in calls:
            self.run_methods(cls, names, getattr(node, "lineno", 0), c)

    def operand_runs(self, e: ast.expr, names: tuple[str, ...], c: Ctx) -> None:
        """`names` of `e`'s class run where `e` is, in `c` (a comprehension's `if k`: its own k)."""
        if self.classes:
            self.run_methods(self.class_of(e, c), names, getattr(e, "lineno", 0), c)

    def run_methods(self, cls: ast.ClassDef | None, names: tuple[str, ...], line: int, c: Ctx) -> None:
        for fn in self.methods(cls, names, c) if cls is not None else ():
            self.runs(fn, line, c, self.def_bound.get(id(cls), frozenset()))

    def methods(self, cls: ast.ClassDef, names: tuple[str, ...], c: Ctx) -> list[Fn]:
        """The defs of `names` (`_ANY`: every special method but those that make it) in `cls` or, for a
        name it does not define, its bases of this scope."""
        if cls is UNKNOWN:  # any class the function defined (unknown_instances)
            return list({id(m): m for k in self.scope_classes(c) for m in self.methods(k, names, c)}.values())
        out: list[Fn] = []
        done: set[str] = set()
        seen, todo = set(), [cls]
        while todo:
            k = todo.pop(0)
            if id(k) in seen:
                continue
            seen.add(id(k))
            own = [(n, f) for n, f in members(k) if n not in done and _wanted(n, names)]  # `f = lambda: v` too
            out += [f for _, f in own]
            done |= {n for n, _ in own}
            bases = [self.lookup(self.classes, b.id, c) for b in k.bases if isinstance(b, ast.Name)]
            todo += [b for b in bases if isinstance(b, ast.ClassDef)]
        return out


def _wanted(name: str, names: tuple[str, ...]) -> bool:
    if names is _ANY:
        return name.startswith("__") and name.endswith("__") and name not in _MAKE
    return name in names


def _calls_first_param(deco: ast.AST) -> bool:
    """Does a decorator's own body (not a function it defines) call its first parameter?"""
    if not isinstance(deco, (*FUNCS, ast.Lambda)):
        return False
    params = [*deco.args.posonlyargs, *deco.args.args]
    nodes = list(ast.walk(deco.body)) if isinstance(deco, ast.Lambda) else own_nodes(deco)
    return bool(params) and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == params[0].arg for n in nodes
    )

"""What runs when a module-level statement runs, beyond its own code, for the rebinding proof: the
module's functions it calls, followed transitively (`_boot()` calls `_setup()`, which calls
`_store()`), and the methods Python runs for it. A call is read where Python makes one: `f(...)`,
a decorator (`@register` calls `register` with the def or class; `@make(...)` calls what `make`
returns), `with Ctx():` (`__enter__`, `__exit__`). What is called is resolved through the module's
own names: a function, a class (its `__new__`, `__init__`, its metaclass's `__call__`), an instance
of a class (`r = Registry()`: `r(...)` and `@r` run `__call__`), a method by attribute
(`K.setup()`, `r.add()`; in a method, `self.m()`, `cls.m()`, `super().m()`: m of its class or a
base), a name read in a computed callee (`_table[k]()`), a module-level alias (`h = _g`,
`h = _make()`: what `_make` runs and returns, its nested code included). Creating a class runs its
metaclass's `__prepare__`, `__new__` and `__init__` (given, or inherited from a base), each base's
`__init_subclass__` (every module-level ancestor: `super()` chains them) and `__set_name__` of
each instance its body assigns. A name bound several ways is every one of them. Only classes and functions the module
defines at module level are followed (an imported base or metaclass is another module's code).

`Summaries` folds a per-function fact (what it stores) over everything a node runs: each function
is read once and its transitive fact computed once per module (strongly connected components, so a
recursion is one unit), without a depth limit; the work is linear in the module's functions and
calls. Standard library only."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:  # served to a target as old as 3.9 too, where `X | Y` of types does not run
    Function = ast.FunctionDef | ast.AsyncFunctionDef

T = TypeVar("T")
_CREATE = ("__prepare__", "__new__", "__init__")  # a metaclass's, when a class is created
_CALL = ("__new__", "__init__")  # a class's own, when it is called
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class ModuleCode:
    """The module's functions and classes by name (the last module-level definition of each), its
    instances (`r = K()`) and aliases (`h = _g`, `h = _make()`) by name."""

    def __init__(self, statements: Iterable[ast.stmt]) -> None:
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.instances: dict[str, set[str]] = {}  # name -> the module classes it may be an instance of
        self.aliases: dict[str, set[str]] = {}  # name -> the module names it may stand for
        self.read = 0  # functions read for what they call: at most one per function (the tests bound it)
        self._direct: dict[int, list[Function]] = {}
        self._owner: dict[int, ast.ClassDef] = {}  # a method's id -> its module-level class
        for s in statements:
            if isinstance(s, _DEFS):
                self.functions[s.name] = s
                self.classes.pop(s.name, None)
            elif isinstance(s, ast.ClassDef):
                self.classes[s.name] = s
                self.functions.pop(s.name, None)
                self._owner.update((id(m), s) for m in s.body if isinstance(m, _DEFS))
            elif isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                for t in (t for t in targets if isinstance(t, ast.Name)):
                    self._bind(t.id, s.value)

    def _bind(self, name: str, value: ast.expr) -> None:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            self.instances.setdefault(name, set()).add(value.func.id)  # a class's instance, if a class
            self.aliases.setdefault(name, set()).add(value.func.id)  # a function's result: its code
        else:  # `h = _g`, `h = a or b`, `h = (_f, _g)[i]`: every module name it may stand for
            names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            self.aliases.setdefault(name, set()).update(names - {name})

    def runs(self, node: ast.AST) -> list[Function]:
        """The functions and methods running `node` (a module-level statement, or a part of one)
        runs directly: its def and lambda bodies do not run now, a class body does."""
        return self._runs(node, own=True)

    def calls(self, f: Function) -> list[Function]:
        """What function `f` runs directly when called: any of its code may run, nested code too."""
        if id(f) not in self._direct:
            self.read += 1
            out = self._runs(f, own=False)
            owner = self._owner.get(id(f))
            first = f.args.posonlyargs + f.args.args
            if owner is not None and first:  # `self.m()`, `cls.m()`, `super().m()`: m of its class or a base
                me = first[0].arg
                chain = [owner, *self._ancestors(owner)]
                for n in ast.walk(f):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                        v = n.func.value
                        if (isinstance(v, ast.Name) and v.id == me) or (
                            isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super"
                        ):
                            out.extend(self._methods(chain, (n.func.attr,)))
            self._direct[id(f)] = out
        return self._direct[id(f)]

    def _runs(self, node: ast.AST, own: bool) -> list[Function]:
        out: list[Function] = []
        stack: list[ast.AST] = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Call):
                out.extend(self.called(n.func))
            elif isinstance(n, ast.withitem):
                for c in self._instance_of(n.context_expr):
                    out.extend(self._methods([c, *self._ancestors(c)], ("__enter__", "__exit__")))
            if isinstance(n, (*_DEFS, ast.ClassDef)):
                out.extend(x for d in n.decorator_list for x in self.called(d))  # `@d` calls d
            if isinstance(n, ast.ClassDef):
                out.extend(self.class_creation(n))
            if own and isinstance(n, (*_DEFS, ast.Lambda)):  # its decorators and defaults run now, not its body
                stack.extend([*getattr(n, "decorator_list", []), n.args])
                continue
            stack.extend(ast.iter_child_nodes(n))
        return out

    def called(self, func: ast.expr) -> list[Function]:
        """What calling `func` runs of the module's code."""
        out: list[Function] = []
        if isinstance(func, ast.Name):
            for name in self._names(func.id):
                if name in self.functions:
                    out.append(self.functions[name])
                elif name in self.classes:
                    out.extend(self._class_call(self.classes[name]))
            for c in self._instance_of(func):
                out.extend(self._methods([c, *self._ancestors(c)], ("__call__",)))
        elif isinstance(func, ast.Attribute):  # `K.setup()`, `r.add()`: that method of K, of r's class
            owners = self._classes_of(func.value) + [c for c in self._instance_of(func.value)]
            for c in owners:
                out.extend(self._methods([c, *self._ancestors(c)], (func.attr,)))
        elif isinstance(func, ast.Call):  # `@make(...)`: what make returns runs; its code is make's
            out.extend(self.called(func.func))
            for c in self._instance_of(func):
                out.extend(self._methods([c, *self._ancestors(c)], ("__call__",)))
        else:  # `_table[k](...)`, `(a or b)(...)`: any module name it reads may be what is called
            for n in ast.walk(func):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    out.extend(self.called(n))
        return out

    def _names(self, name: str) -> list[str]:
        """`name` and every module name it may stand for through aliases, each once."""
        out, todo = [name], [name]
        while todo:
            for other in self.aliases.get(todo.pop(), ()):
                if other not in out:
                    out.append(other)
                    todo.append(other)
        return out

    def _classes_of(self, node: ast.expr) -> list[ast.ClassDef]:
        names = self._names(node.id) if isinstance(node, ast.Name) else []
        return [self.classes[n] for n in names if n in self.classes]

    def _instance_of(self, node: ast.expr) -> list[ast.ClassDef]:
        """The module classes `node` may be an instance of: `K()`, or a name bound to one."""
        if isinstance(node, ast.Call):
            return self._classes_of(node.func)
        if not isinstance(node, ast.Name):
            return []
        names = {c for n in self._names(node.id) for c in self.instances.get(n, ())}
        return [self.classes[c] for c in sorted(names) if c in self.classes]

    def _ancestors(self, c: ast.ClassDef) -> list[ast.ClassDef]:
        """`c`'s bases the module defines, and theirs, each once."""
        out: list[ast.ClassDef] = []
        todo = [b.id for b in c.bases if isinstance(b, ast.Name)]
        while todo:
            base = self.classes.get(todo.pop())
            if base is not None and base is not c and base not in out:
                out.append(base)
                todo.extend(b.id for b in base.bases if isinstance(b, ast.Name))
        return out

    def _metaclass(self, c: ast.ClassDef) -> ast.ClassDef | None:
        for k in c.keywords:
            if k.arg == "metaclass":
                return self.classes.get(k.value.id) if isinstance(k.value, ast.Name) else None
        for base in self._ancestors(c):
            for k in base.keywords:
                if k.arg == "metaclass" and isinstance(k.value, ast.Name):
                    return self.classes.get(k.value.id)
        return None

    def _methods(self, classes: list[ast.ClassDef], names: tuple[str, ...]) -> list[Function]:
        return [s for c in classes for s in c.body if isinstance(s, _DEFS) and s.name in names]

    def class_creation(self, c: ast.ClassDef) -> list[Function]:
        meta = self._metaclass(c)
        out = self._methods(self._ancestors(c), ("__init_subclass__",))
        if meta is not None:
            out += self._methods([meta, *self._ancestors(meta)], _CREATE)
        for s in c.body:  # `x = Field()` in the body: type.__new__ calls Field's `__set_name__`
            value = s.value if isinstance(s, (ast.Assign, ast.AnnAssign)) else None
            for k in self._instance_of(value) if value is not None else []:
                out += self._methods([k, *self._ancestors(k)], ("__set_name__",))
        return out

    def _class_call(self, c: ast.ClassDef) -> list[Function]:
        meta = self._metaclass(c)
        out = self._methods([c, *self._ancestors(c)], _CALL)
        if meta is not None:
            out += self._methods([meta, *self._ancestors(meta)], ("__call__",))
        return out


class Summaries(Generic[T]):
    """`own(f)` (what function f's own code does) joined over everything a node runs, transitively:
    each function's `own` and `code.calls` once, each function's transitive result once (Tarjan's
    strongly connected components, iterative: no recursion or depth limit)."""

    def __init__(self, code: ModuleCode, own: Callable[[Function], T], join: Callable[[Iterable[T]], T]) -> None:
        self.code, self.own, self.join = code, own, join
        self.owned = 0  # calls of `own`: at most one per function (the tests bound it)
        self._done: dict[int, T] = {}

    def of(self, node: ast.AST) -> T:
        """What running `node` (a module-level statement, or a part of one) runs, joined."""
        return self.join([self.function(f) for f in self.code.runs(node)])

    def function(self, f: Function) -> T:
        if id(f) not in self._done:
            self._tarjan(f)
        return self._done[id(f)]

    def _tarjan(self, root: Function) -> None:
        index: dict[int, int] = {}
        low: dict[int, int] = {}
        on: list[Function] = []
        onset: set[int] = set()
        work: list[tuple[Function, int]] = [(root, 0)]
        while work:
            f, i = work.pop()
            if i == 0:
                index[id(f)] = low[id(f)] = len(index)
                on.append(f)
                onset.add(id(f))
            callees = self.code.calls(f)
            if i < len(callees):
                work.append((f, i + 1))
                g = callees[i]
                if id(g) in self._done:
                    continue
                if id(g) not in index:
                    work.append((g, 0))
                elif id(g) in onset:
                    low[id(f)] = min(low[id(f)], index[id(g)])
                continue
            if work and work[-1][0] is not f:  # back in the caller: pass the low link up
                caller = work[-1][0]
                low[id(caller)] = min(low[id(caller)], low[id(f)])
            if low[id(f)] == index[id(f)]:
                members: list[Function] = []
                while True:
                    m = on.pop()
                    onset.discard(id(m))
                    members.append(m)
                    if m is f:
                        break
                ids = {id(m) for m in members}
                parts = [self._own(m) for m in members]
                parts += [self._done[id(g)] for m in members for g in self.code.calls(m) if id(g) not in ids]
                result = self.join(parts)
                for m in members:
                    self._done[id(m)] = result

    def _own(self, f: Function) -> T:
        self.owned += 1
        return self.own(f)

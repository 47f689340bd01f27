"""Who reaches a kept function (issue 21, names47; split out of kept_callbacks): a local bound once
that no nested scope reads (`t = Thread(target=g)`, `cbs = [g]`, `cbs = []` then `cbs.append(g)`,
`cbs += [g]`), or at module level a name the module binds once (`CBS = [lambda: v]`, names51). What it
holds runs where it is read (`t.start()`, `for cb in cbs: cb()`, `run(cbs)`; at import also where a
module function or class that reads it runs), not at its truth, `is None`, an attribute stored on it
or a store into it; a read of it as a value (`j = cbs`) lets more than it reach what goes in later."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .closures import free_reads, own_nodes
from .flow import Ctx
from .path_facts import subject
from .problem import Runtime
from .resolve import Resolver
from .scope_bindings import FUNCS, NameScope

if TYPE_CHECKING:  # the package runs on older targets too (target_probe)
    from .kept_callbacks import Kept

    Fn = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

STORES = ("append", "add", "insert", "appendleft", "extend", "setdefault", "update")  # a container's: call nothing
DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
_MADE_EMPTY = ("list", "set", "dict")  # `cbs = list()`: a container as a display makes one
_GROWN = (ast.Add, ast.BitOr)  # `cbs += [g]`, `cbs |= {g}`: in place, what the display holds is kept by cbs
_RUN_HERE = ("comprehension", "class")  # a read there is one of the scope around


class Holders(Resolver):
    tree: ast.Module
    keepers: set[str]
    shared: set[tuple[int, str]]
    declared_global: set[str]
    local_defs: dict[tuple[int, str], Fn]
    classes: dict[tuple[int, str], ast.ClassDef]

    def __init__(self, scopes: dict[int, NameScope], module: NameScope, runtime: Runtime) -> None:
        super().__init__(scopes, module, runtime)
        self.holders: set[tuple[int, str]] = set()  # (scope, local) holding a kept function
        self.containers: set[tuple[int, str]] = set()  # (scope, local) bound once to a display, `list()`
        self.held_by: dict[int, str] = {}  # a call's or display's node: the local its value is assigned to
        self.quiet: set[int] = set()  # reads of a holder that run nothing (`if cbs:`, `cbs.append(h)`)
        self.escaped: set[tuple[int, str]] = set()  # containers read as values (`j = cbs`): another name may run them
        self.fn_nodes: dict[int, ast.AST] = {}  # a function scope's def (Expressions.child)
        self._singles: dict[int, frozenset[str]] = {}

    def ctx(self, scope: NameScope) -> Ctx:
        raise NotImplementedError

    def _run(self, kept: list[Kept], line: int, c: Ctx) -> None:  # kept_callbacks.KeptCallbacks'
        raise NotImplementedError

    def keeps(self, func: ast.expr, c: Ctx) -> bool:
        """Is `func` functools.partial or threading.Thread/Timer, as the module imports them (_KEEPERS)?"""
        spelled = subject(func)
        if spelled not in self.keepers:
            return False
        root = spelled.partition(".")[0]  # at module level: bound once, by its import
        return self.single(root, c) if c.scope.kind == "module" else root not in c.scope.locals

    def holding(self, s: ast.Assign, c: Ctx) -> None:
        """`t = Thread(target=g)`, `cbs = [g]`, `cbs = []`: the local alone reaches what is kept there."""
        target = s.targets[0] if len(s.targets) == 1 else None
        if not isinstance(target, ast.Name) or not self.single(target.id, c):
            return
        value = s.value
        made = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args
        empty = made and value.func.id in _MADE_EMPTY and self.builtin(value.func.id)  # type: ignore[attr-defined]
        if isinstance(value, DISPLAYS) or empty:
            self.containers.add((id(c.scope), target.id))
            self.held_by[id(s.value)] = target.id
        elif isinstance(s.value, ast.Call) and self.keeps(s.value.func, c):
            self.held_by[id(s.value)] = target.id

    def single(self, name: str, c: Ctx) -> bool:
        """Is `name` a local of this function bound once, read by no scope nested in it? At module level:
        a name the module binds once, no function declaring it `global` (one run at import reads it where
        it runs: holders_read)."""
        fn = self.tree if c.scope.kind == "module" else self.fn_nodes.get(id(c.scope))
        if c.scope.kind not in ("function", "module") or fn is None or (id(c.scope), name) in self.shared:
            return False
        found = self._singles.get(id(c.scope))
        if found is None:
            found = self._singles[id(c.scope)] = _singles(fn) & c.scope.locals - self.declared_global  # type: ignore[arg-type]
        return name in found

    def container_store(self, call: ast.Call, c: Ctx) -> str | None:
        """`cbs.append(g)` (STORES) where cbs is a container this function holds: cbs (it calls nothing)."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in STORES and isinstance(func.value, ast.Name)):
            return None
        if (id(c.scope), func.value.id) not in self.containers:
            return None
        self.quiet.add(id(func.value))
        for a in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(a, DISPLAYS):
                self.held_by[id(a)] = func.value.id
        return func.value.id

    def grown(self, s: ast.AugAssign, c: Ctx) -> None:
        """`cbs += [g]`, `cbs |= {g}` (_GROWN) of a container this function holds: cbs keeps g."""
        if (
            isinstance(s.target, ast.Name)
            and id(s.target) in _grown((s,))
            and (id(c.scope), s.target.id) in self.containers
        ):
            self.held_by[id(s.value)] = s.target.id

    def holder_of(self, call: ast.Call, c: Ctx) -> str | None:
        """The local alone reaching what `call` keeps: `cbs` of `cbs.append(g)`, `t` of `t = Thread(target=g)`."""
        into = self.container_store(call, c) if self.containers else None
        return into or self.held_by.get(id(call))

    def escape(self, name: str, c: Ctx) -> None:
        """A read of a container local that is no quiet one (`j = cbs`, `run(cbs)`): what is stored in
        it from then on is reached by more than that local, so it runs at any later call (att50 #1)."""
        while c.scope.kind in _RUN_HERE and name not in c.scope.locals and c.scope.parent is not None:
            c = self.ctx(c.scope.parent)
        if (id(c.scope), name) in self.containers:
            self.escaped.add((id(c.scope), name))

    def reach(self, name: str, line: int, c: Ctx) -> None:
        """A read of a local holding kept functions: they may run here, and at any later call."""
        while c.scope.kind in _RUN_HERE and name not in c.scope.locals and c.scope.parent is not None:
            c = self.ctx(c.scope.parent)  # a comprehension, a class body: they run where they stand
        if (id(c.scope), name) not in self.holders:
            return
        self.holders.discard((id(c.scope), name))
        held = [k for k in c.flow.kept if k.holder == name]
        for k in held:
            k.holder = None
        self._run(held, line, c)

    def holders_read(self, fn: Fn, line: int, c: Ctx) -> None:
        """At import, `fn` runs: a module holder it reads (or a module function or class it reads does,
        and so on) runs what it holds here (`def go(): run_all(CBS)` / `go()`)."""
        key, seen, todo, read = id(c.scope), {id(fn)}, [fn], set[str]()
        while todo:
            for n in free_reads(todo.pop()) - read:
                read.add(n)
                cls = self.classes.get((key, n))
                more = [self.local_defs.get((key, n)), *(cls.body if cls is not None else [])]
                todo += [m for m in more if isinstance(m, (*FUNCS, ast.Lambda)) and id(m) not in seen]
                seen |= {id(m) for m in todo}
        for n in sorted(read):
            self.reach(n, line, c)

    def quiet_reads(self, node: ast.AST) -> None:
        """The reads in `node` that run nothing of a holder: its truth, `is None`, an attribute stored on it."""
        if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
            parts = [node.test]
        elif isinstance(node, ast.BoolOp):
            parts = node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            parts = [node.operand]
        elif isinstance(node, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in node.ops):
            parts = [node.left, *node.comparators]
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            parts = [node.value]
        else:
            return
        self.quiet.update(id(p) for p in parts if isinstance(p, ast.Name))


def _singles(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module) -> frozenset[str]:
    """The names `fn` binds once (a parameter counts), none of its nested scopes reading them (the
    module's: read where a function of it runs, holders_read)."""
    counts: dict[str, int] = {}
    nested: set[str] = set()
    nodes = [fn.body] if isinstance(fn, ast.Lambda) else own_nodes(fn)
    names = [] if isinstance(fn, ast.Module) else [a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)]
    grown = _grown(nodes)
    for n in nodes:
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and id(n) not in grown:
            names.append(n.id)
        elif isinstance(n, (*FUNCS, ast.ClassDef)):
            names.append(n.name)
            nested |= {x.id for x in ast.walk(n) if isinstance(x, ast.Name)}
        elif isinstance(n, ast.Lambda):
            nested |= {x.id for x in ast.walk(n) if isinstance(x, ast.Name)}
        elif isinstance(n, ast.alias):
            names.append(n.asname or n.name.partition(".")[0])
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names += n.names * 2
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.append(n.name)
        elif type(n).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
            names += [x for x in (getattr(n, "name", None), getattr(n, "rest", None)) if x]
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return frozenset(name for name, count in counts.items() if count == 1) - (
        set() if isinstance(fn, ast.Module) else nested
    )


def _grown(nodes: Iterable[ast.AST]) -> set[int]:
    """The targets of `cbs += [g]`, `cbs |= {g}` in `nodes`: a list, set or dict grown in place by a
    display (its items only; a tuple's `+=` makes a new one, which the local alone holds too). Not a
    binding that makes cbs another object a holder could share: the operand is no other object of the
    code's (`__radd__`, `__ror__` of one could reach cbs)."""
    return {
        id(n.target)
        for n in nodes
        if isinstance(n, ast.AugAssign) and isinstance(n.op, _GROWN) and isinstance(n.value, DISPLAYS)
    }

"""Functions of the scope kept to run later (issue 21 #3): passed to a call that may keep them
(`register(g)`, `Thread(target=g)`, `partial(g)`), put in a container (`cbs = [g]`, `cbs.append(g)`, `cbs += [g]`,
`cbs[k] = g`) or stored through an object (`self.cb = g`). Each kept one is a `Kept` of its scope's
flow, followed per path (names47):

- what it reads that was bound on every path to the store counts as bound where it runs, unless a `del`
  on a path through the store took it out since (a `del` in a sibling branch is another path's);
- held by a local only (`t = Thread(target=g)`, `cbs = [g]`; bound once, read by no nested scope): it
  runs only where that local is read (`t.start()`, `for cb in cbs: cb()`, `run(cbs)`, `return t`), not
  its truth (`if cbs:`), an attribute store (`t.daemon = True`) nor a store into it (`cbs.append(h)`);
  from there on it may run at any later call, as one kept any other way does;
- kept any other way: it may run at any later call, `return` or the end of the scope.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .closures import free_reads, own_nodes
from .flow import Ctx
from .path_facts import subject
from .problem import Runtime
from .resolve import Resolver
from .scope_bindings import FUNCS, NameScope

if TYPE_CHECKING:  # the package runs on older targets too (target_probe)
    Fn = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

_KEEPERS = {"functools": ("partial",), "threading": ("Thread", "Timer")}  # keep what they are passed, call none
STORES = ("append", "add", "insert", "appendleft", "extend", "setdefault", "update")  # a container's: call nothing
DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
_MADE_EMPTY = ("list", "set", "dict")  # `cbs = list()`: a container as a display makes one
_GROWN = (ast.Add, ast.BitOr)  # `cbs += [g]`, `cbs |= {g}`: in place, what the display holds is kept by cbs


@dataclass(eq=False)
class Kept:
    """One function kept: what was bound on every path where it was kept (less what a `del` on a path
    through there took out since), the flow's open parts there, and the one local that reaches it
    (None: any later call may run it)."""

    fn: Fn
    made: set[str]
    parts: tuple[int, ...]
    holder: str | None


class Stored(ast.expr):
    """On expr's stack below a call's operands: `g` (or a lambda) passed to it is kept (keep), held by `holder` when
    that local alone reaches what the call returns; "": what was kept may run now (run_stored)."""

    def __init__(self, name: str | ast.Lambda, lineno: int = 0, holder: str | None = None) -> None:
        super().__init__()
        self.name, self.lineno, self.holder = name, lineno, holder


def keepers(tree: ast.Module) -> set[str]:
    """The spellings of _KEEPERS the module imports (`threading.Thread`, `partial`)."""
    return {
        f"{a.asname or a.name}.{k}" if isinstance(s, ast.Import) else a.asname or a.name
        for s in tree.body
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for a in s.names
        for k in _KEEPERS.get(a.name if isinstance(s, ast.Import) else s.module or "", ())
        if isinstance(s, ast.Import) or a.name == k
    }


class KeptCallbacks(Resolver):
    local_defs: dict[tuple[int, str], Fn]
    keepers: set[str]
    def_bound: dict[int, frozenset[str]]
    shared: set[tuple[int, str]]
    lambdas: bool  # the module has a lambda (Expressions sets it)

    def __init__(self, scopes: dict[int, NameScope], module: NameScope, runtime: Runtime) -> None:
        super().__init__(scopes, module, runtime)
        self.stored_callbacks = False  # any kept so far (walk asks before each `return` and scope end)
        self.holders: set[tuple[int, str]] = set()  # (scope, local) holding a kept function
        self.containers: set[tuple[int, str]] = set()  # (scope, local) bound once to a display, `list()`
        self.held_by: dict[int, str] = {}  # a call's or display's node: the local its value is assigned to
        self.quiet: set[int] = set()  # reads of a holder that run nothing (`if cbs:`, `cbs.append(h)`)
        self.escaped: set[tuple[int, str]] = set()  # containers read as values (`j = cbs`): another name may run them
        self.fn_nodes: dict[int, ast.AST] = {}  # a function scope's def (Expressions.child)
        self._singles: dict[int, frozenset[str]] = {}

    def ctx(self, scope: NameScope) -> Ctx:
        raise NotImplementedError

    def around(self, c: Ctx) -> Ctx:
        raise NotImplementedError

    def runs(self, fn: Fn, line: int, c: Ctx, made: frozenset[str], kept: bool = False) -> None:
        raise NotImplementedError

    def keeps(self, func: ast.expr, c: Ctx) -> bool:
        """Is `func` functools.partial or threading.Thread/Timer, as the module imports them (_KEEPERS)?"""
        spelled = subject(func)
        return spelled in self.keepers and spelled.partition(".")[0] not in c.scope.locals

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
        """Is `name` a local of this function bound once, read by no scope nested in it?"""
        fn = self.fn_nodes.get(id(c.scope))
        if c.scope.kind != "function" or fn is None or (id(c.scope), name) in self.shared:
            return False
        found = self._singles.get(id(c.scope))
        if found is None:
            found = self._singles[id(c.scope)] = _singles(fn) & c.scope.locals  # type: ignore[arg-type]
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

    def kept_forms(self, node: ast.AST, c: Ctx) -> None:
        """`node`'s part in what is kept: a display keeps what it holds, a holder's truth runs nothing."""
        if self.holders or self.containers:
            self.quiet_reads(node)
        if (
            (self.local_defs or self.lambdas)
            and isinstance(node, DISPLAYS)
            and not isinstance(getattr(node, "ctx", None), ast.Store)
        ):
            self.display(node, c)

    def holder_of(self, call: ast.Call, c: Ctx) -> str | None:
        """The local alone reaching what `call` keeps: `cbs` of `cbs.append(g)`, `t` of `t = Thread(target=g)`."""
        into = self.container_store(call, c) if self.containers else None
        return into or self.held_by.get(id(call))

    def display(self, node: ast.AST, c: Ctx) -> None:
        """A display holding functions of this scope: kept by the local it is assigned to, or any other way."""
        elts = node.values if isinstance(node, ast.Dict) else getattr(node, "elts", [])
        holder = self.held_by.get(id(node))
        for e in elts:
            e = e.value if isinstance(e, ast.Starred) else e
            if isinstance(e, ast.Name) and isinstance(e.ctx, ast.Load):
                self.keep(e.id, c, holder)
            elif isinstance(e, ast.Lambda):
                self.keep(e, c, holder)
            elif isinstance(e, DISPLAYS) and holder is not None:
                self.held_by[id(e)] = holder

    def stored_through(self, s: ast.Assign, c: Ctx) -> None:
        """`self.cb = g`, `cbs[k] = g`: g is kept (by cbs, a container this function holds)."""
        if not isinstance(s.value, ast.Name) or all(isinstance(t, ast.Name) for t in s.targets):
            return
        for t in s.targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                held = (id(c.scope), t.value.id) in self.containers
                self.keep(s.value.id, c, t.value.id if held else None)
            elif not isinstance(t, ast.Name):
                self.keep(s.value.id, c, None)

    def keep(self, name: str | ast.Lambda, c: Ctx, holder: str | None = None) -> None:
        """`g`, a function this scope defined, or a lambda written where it is kept (`cbs.append(lambda:
        v)`, att50 #2), kept: held by `holder`, or run at any later call, `yield`, `await`, `return` of the
        scope or once the scope is done (issue 21 #3)."""
        if holder is not None and (c.scope.kind != "function" or (id(c.scope), holder) in self.escaped):
            holder = None
        c = self.around(c) if c.scope.kind != "comprehension" else self.ctx(c.scope.binding_scope())
        fn = name if isinstance(name, ast.Lambda) else self.local_defs.get((id(c.scope), name))
        if fn is None or (name not in c.flow.definite if isinstance(name, str) else c.scope.kind != "function"):
            return  # nor a lambda kept at import (`LazyDict({"k": lambda: f()})`, `Field(default_factory=...)`)
        flow = c.flow  # what a read here would find bound (on every path to the store) stays bound
        here = {n for n in free_reads(fn) if n in flow.definite or (n in flow.maybe and not flow.partly(n))}
        made = set(self.def_bound.get(id(fn), frozenset()) | here) - flow.dels
        flow.kept.append(Kept(fn, made, tuple(flow.open_parts), holder))
        self.stored_callbacks = True
        if holder is not None:
            self.holders.add((id(c.scope), holder))

    def escape(self, name: str, c: Ctx) -> None:
        """A read of a container local that is no quiet one (`j = cbs`, `run(cbs)`): what is stored in
        it from then on is reached by more than that local, so it runs at any later call (att50 #1)."""
        while c.scope.kind == "comprehension" and name not in c.scope.locals and c.scope.parent is not None:
            c = self.ctx(c.scope.parent)
        if (id(c.scope), name) in self.containers:
            self.escaped.add((id(c.scope), name))

    def reach(self, name: str, line: int, c: Ctx) -> None:
        """A read of a local holding kept functions: they may run here, and at any later call."""
        while c.scope.kind == "comprehension" and name not in c.scope.locals and c.scope.parent is not None:
            c = self.ctx(c.scope.parent)
        if (id(c.scope), name) not in self.holders:
            return
        self.holders.discard((id(c.scope), name))
        held = [k for k in c.flow.kept if k.holder == name]
        for k in held:
            k.holder = None
        self._run(held, line, c)

    def run_stored(self, line: int, c: Ctx) -> None:
        """The functions this scope kept so far, any local aside, may run here."""
        c = self.around(c) if c.scope.kind != "comprehension" else self.ctx(c.scope.binding_scope())
        self._run([k for k in c.flow.kept if k.holder is None], line, c)

    def _run(self, kept: list[Kept], line: int, c: Ctx) -> None:
        before = len(self.out)
        for k in kept:
            self.runs(k.fn, line, c, frozenset(k.made), kept=True)
        told = {p.key for p in self.out[:before]}  # told once (as names_check keys it), not at each later run
        self.out[before:] = [p for p in dict.fromkeys(self.out[before:]) if p.key not in told]

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


def _singles(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The names `fn` binds once (a parameter counts), none of its nested scopes reading them."""
    counts: dict[str, int] = {}
    nested: set[str] = set()
    nodes = [fn.body] if isinstance(fn, ast.Lambda) else own_nodes(fn)
    names = [a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)]
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
    return frozenset(name for name, count in counts.items() if count == 1) - nested


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


def passed_on(call: ast.Call) -> list[str | ast.Lambda]:
    """What `call` is passed that it may keep (after it has run: what it may change): names, then lambdas."""
    given = [*call.args, *(k.value for k in call.keywords)]
    return [*sorted({n.id for n in given if isinstance(n, ast.Name)}), *(n for n in given if isinstance(n, ast.Lambda))]

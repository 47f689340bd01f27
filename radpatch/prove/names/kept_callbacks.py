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
- kept any other way: it may run at any later call, `return` or the end of the scope;
- at import, a module name bound once holds it as such a local does (holders); a lambda kept at import
  by no one name (`LazyDict({"k": lambda: f()})`, `Field(default_factory=lambda: ...)`) is not followed
  as kept; one a call surely calls there runs at the call (lambda_runs, names53).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .closures import free_reads
from .flow import Ctx
from .holders import DISPLAYS, Holders
from .problem import Runtime
from .scope_bindings import NameScope

if TYPE_CHECKING:  # the package runs on older targets too (target_probe)
    Fn = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

_KEEPERS = {"functools": ("partial",), "threading": ("Thread", "Timer")}  # keep what they are passed, call none


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


class KeptCallbacks(Holders):
    local_defs: dict[tuple[int, str], Fn]
    keepers: set[str]
    def_bound: dict[int, frozenset[str]]
    shared: set[tuple[int, str]]
    lambdas: bool  # the module has a lambda (Expressions sets it)

    def __init__(self, scopes: dict[int, NameScope], module: NameScope, runtime: Runtime) -> None:
        super().__init__(scopes, module, runtime)
        self.stored_callbacks = False  # any kept so far (walk asks before each `return` and scope end)

    def ctx(self, scope: NameScope) -> Ctx:
        raise NotImplementedError

    def around(self, c: Ctx) -> Ctx:
        raise NotImplementedError

    def runs(self, fn: Fn, line: int, c: Ctx, made: frozenset[str], kept: bool = False) -> None:
        raise NotImplementedError

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
        if holder is not None and (c.scope.kind not in ("function", "module") or (id(c.scope), holder) in self.escaped):
            holder = None
        c = self.around(c) if c.scope.kind != "comprehension" else self.ctx(c.scope.binding_scope())
        fn = name if isinstance(name, ast.Lambda) else self.local_defs.get((id(c.scope), name))
        lazy = c.scope.kind != "function" and holder is None  # a lambda kept at import by no one name
        if fn is None or (name not in c.flow.definite if isinstance(name, str) else lazy):
            return  # (`LazyDict({"k": lambda: f()})`, `Field(default_factory=...)`: not followed, names51)
        flow = c.flow  # what a read here would find bound (on every path to the store) stays bound
        here = {n for n in free_reads(fn) if n in flow.definite or (n in flow.maybe and not flow.partly(n))}
        made = set(self.def_bound.get(id(fn), frozenset()) | here) - flow.dels
        flow.kept.append(Kept(fn, made, tuple(flow.open_parts), holder))
        self.stored_callbacks = True
        if holder is not None:
            self.holders.add((id(c.scope), holder))

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


def passed_on(call: ast.Call) -> list[str | ast.Lambda]:
    """What `call` is passed that it may keep (after it has run: what it may change): names, then lambdas."""
    given = [*call.args, *(k.value for k in call.keywords)]
    return [*sorted({n.id for n in given if isinstance(n, ast.Name)}), *(n for n in given if isinstance(n, ast.Lambda))]

"""Resolving a read, pass 2's judgement: a name read in a scope is a local (bound yet on this path?),
a free variable of an enclosing function, a class attribute, or a module name; module names are
decided once the module is walked to its end (a function body sees what the import binds by then,
module-level code only what is bound earlier). A `global` name must resolve to a module binding;
a star import or globals() may provide any name from its position on.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from .first_pass import never_first
from .flow import Ctx, Flow
from .path_facts import Facts
from .problem import (
    BINDS_BUILTIN,
    CLASS_ATTRIBUTE,
    DELETED,
    LATER,
    MAYBE_UNBOUND,
    METHOD_ONLY,
    READS_BUILTIN,
    TYPING_ONLY,
    UNBOUND,
    UNDEFINED,
    Problem,
    Runtime,
)
from .scope_bindings import NameScope
from .update_only import global_assigners

_MODULE_DUNDERS = frozenset(
    {
        "__file__",
        "__name__",
        "__doc__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__path__",
        "__cached__",
        "__annotations__",
        "__dict__",
        "__debug__",
    }
)
_CLASS_DUNDERS = frozenset({"__module__", "__qualname__", "__class__"})


@dataclass(frozen=True)
class GlobalUse:
    name: str
    line: int
    scope: NameScope
    import_time: bool
    own: bool = False  # a `global` name the reading function itself has assigned before (on some path)


class Resolver:
    """What pass 2 knows so far (each scope's flow, the reads of module names to decide at the end)
    and how it resolves one read."""

    def __init__(self, scopes: dict[int, NameScope], module: NameScope, runtime: Runtime) -> None:
        self.module, self.rt = module, runtime
        self.enumerate_bound = any("enumerate" in s.bound for s in scopes.values())  # first_pass's index
        self.flows: dict[int, Flow] = {}
        self.out: list[Problem] = []
        self.uses: list[GlobalUse] = []
        self.typing: dict[str, int] = {}  # names bound only for type checkers, where
        self.star: int | None = None  # line of the first run-time star import
        self.dynamic: int | None = None  # line of the first use of globals()
        self.global_assigners = global_assigners(scopes.values())
        self.global_assigned = set(self.global_assigners)
        self.early: dict[int, frozenset[str]] = {}  # Expressions.child's
        self.builtin_reads: dict[str, int] = {}  # builtins read where the module binds no such name: first line
        self.flips: dict[int, frozenset[str]] = {}  # per `name = <constant>` walked in a loop: what was bound there

    def flow(self, scope: NameScope) -> Flow:
        f = self.flows.get(id(scope))
        if f is None:
            f = self.flows[id(scope)] = Flow()
        return f

    def use(self, name: str, line: int, c: Ctx) -> None:
        scope = c.scope
        c.flow.read_fresh(name, line)  # a name a loop around deletes (loops.loop)
        if name == "globals" and self.dynamic is None:  # globals().update(...) may bind any name from here on
            self.dynamic = line
        if scope.kind == "module":
            self.module_read(name, line, scope, c.flow)
        elif name in scope.globals_:
            if c.flow.partly(name) and not self.global_elsewhere(name, scope, line):
                self.out.append(Problem(line, name, scope.qual, MAYBE_UNBOUND, f" (line {c.flow.maybe[name]})"))
                return
            self.uses.append(GlobalUse(name, line, scope, scope.import_time, name in c.flow.maybe))
        elif scope.kind == "class" and name in scope.locals:
            if name not in c.flow.maybe:  # not bound in the class yet: the module's (LOAD_NAME)
                self.global_read(name, line, scope)
        elif name in scope.locals:
            self.local_read(name, line, scope, c.flow)
        else:
            self.free_read(name, line, scope)

    def global_elsewhere(self, name: str, scope: NameScope, line: int) -> bool:
        """May a `global` name a function binds on some paths only be bound by the time it reads it:
        by the module, another function, a star import or globals()?"""
        others = self.global_assigners.get(name, set()) - {id(scope)}
        return name in self.flow(self.module).maybe or bool(others) or self.starred(name, line)

    def local_read(self, name: str, line: int, scope: NameScope, flow: Flow) -> None:
        if name in flow.definite:
            return
        if flow.partly(name):
            self.out.append(Problem(line, name, scope.qual, MAYBE_UNBOUND, f" (line {flow.maybe[name]})", True))
            return
        hides = name in self.module.bound or self.builtin(name) or name in flow.dels
        if name in flow.maybe:
            # Bound on some path only: the usual `if ...: x = ...` pattern, unless the local hides a
            # module name or builtin (an assignment that turned a global into a local).
            if hides:
                self.out.append(
                    Problem(line, name, scope.qual, UNBOUND, "is not assigned (or is deleted) on some path", True)
                )
            return
        self.local_check(name, line, scope, flow, hides)

    # A check that a loop decides later is queued as a partial of a method, never as a closure that
    # names itself: that would be a reference cycle holding the walker, and with it the whole tree,
    # until the cyclic collector runs (which radpatch pauses while it analyses a module).

    def local_check(
        self, name: str, line: int, scope: NameScope, flow: Flow, hides: bool, facts: Facts | None = None
    ) -> None:
        # assigned further down the loop: the first pass reads it before any binding (a later pass sees a binding
        # only where an earlier pass made it), unless under a test false on the first pass (first_pass; `facts`)
        if facts is None:
            facts = dict(flow.facts)
        if name in flow.maybe:
            if flow.closing is not None and never_first(name, facts, flow.closing, self.flips):
                return
            why = " (it hides the global)" if hides else ""
            self.out.append(
                Problem(line, name, scope.qual, UNBOUND, f"is not assigned before the loop's first pass{why}", True)
            )
        elif not flow.later(functools.partial(self.local_check, name, line, scope, flow, hides, facts)):
            self.out.append(Problem(line, name, scope.qual, UNBOUND, "is not assigned yet", True))

    def module_read(self, name: str, line: int, scope: NameScope, flow: Flow) -> None:
        self.module_check(name, line, scope, self.flow(self.module))

    def module_check(self, name: str, line: int, scope: NameScope, module_flow: Flow) -> None:
        if module_flow.partly(name) and not self.starred(name, line) and name not in self.global_assigned:
            self.out.append(Problem(line, name, scope.qual, MAYBE_UNBOUND, f" (line {module_flow.maybe[name]})"))
            return
        if name not in module_flow.maybe and not module_flow.later(
            functools.partial(self.module_later, name, line, scope, module_flow)
        ):
            self.uses.append(GlobalUse(name, line, scope, True))

    def module_later(self, name: str, line: int, scope: NameScope, module_flow: Flow) -> None:
        """A module-level read in a loop's body, unbound there: bound further down the loop, the first
        pass still reads it before that binding (resolve_global: a builtin, a star import or a
        function's `global` may provide it); else asked again of the loop around it."""
        if name in module_flow.maybe or not module_flow.later(
            functools.partial(self.module_later, name, line, scope, module_flow)
        ):
            self.uses.append(GlobalUse(name, line, scope, True))

    def global_read(self, name: str, line: int, scope: NameScope) -> None:
        if scope.import_time:
            self.module_read(name, line, scope, self.flow(self.module))
        else:
            self.uses.append(GlobalUse(name, line, scope, False))

    def free_read(self, name: str, line: int, scope: NameScope) -> None:
        child, s = scope, scope.parent
        while s is not None:
            if s.kind == "module":
                self.global_read(name, line, scope)
                return
            visible = s.kind != "class" or child.kind == "annotation"
            if visible and name in s.globals_:
                if self.early_partly(name, child, s) and not self.global_elsewhere(name, s, line):
                    self.out.append(
                        Problem(line, name, scope.qual, MAYBE_UNBOUND, f" (line {self.flow(s).maybe[name]})")
                    )
                    return
                self.global_read(name, line, scope)
                return
            if visible and name in s.locals:
                outer = self.flow(s)
                if name not in outer.maybe and s.kind != "class":
                    self.out.append(
                        Problem(
                            line, name, scope.qual, UNBOUND, f"is not assigned yet in {s.qual}() (free variable)", True
                        )
                    )
                elif self.early_partly(name, child, s):
                    self.out.append(
                        Problem(line, name, scope.qual, MAYBE_UNBOUND, f" (line {outer.maybe[name]})", True)
                    )
                return
            child, s = s, s.parent

    def early_partly(self, name: str, child: NameScope, s: NameScope) -> bool:
        """Was `name` bound on some paths only of `s` where `child` (a closure, a comprehension, a class)
        is defined, and is it still, now that the closure may run (a later binding clears it)?"""
        return name in self.early.get(id(child), ()) and self.flow(s).partly(name)

    def resolve_global(self, use: GlobalUse) -> None:
        name = use.name
        module_flow = self.flow(self.module)
        if self.builtin(name) or (name in _CLASS_DUNDERS and use.scope.kind != "module"):
            if name in self.rt.builtins and name not in module_flow.maybe and name not in self.global_assigned:
                self.builtin_reads.setdefault(name, use.line)
            return
        if use.import_time:
            if name in self.global_assigned or self.starred(name, use.line):
                return
            if name in module_flow.maybe:
                self.out.append(Problem(use.line, name, use.scope.qual, LATER, f" (line {module_flow.maybe[name]})"))
                return
        elif name in module_flow.maybe or self.assigned_elsewhere(use) or self.starred(name, None):
            return
        self.out.append(self.missing(use))

    def assigned_elsewhere(self, use: GlobalUse) -> bool:
        """Does a function bind this `global` name before `use` may read it: another function (which may
        run first), or the reading one itself, earlier on its path? Not the assignment that follows the
        read in the same function: the first call fails there."""
        return use.own or bool(self.global_assigners.get(use.name, set()) - {id(use.scope)})

    def missing(self, use: GlobalUse) -> Problem:
        name, module_flow = use.name, self.flow(self.module)
        if name in module_flow.deleted:
            return Problem(use.line, name, use.scope.qual, DELETED, f" (del at line {module_flow.deleted[name]})")
        if name in self.typing:
            return Problem(use.line, name, use.scope.qual, TYPING_ONLY, f" (line {self.typing[name]})")
        owner = next((s for s in _ancestors(use.scope) if s.kind == "class" and name in s.locals), None)
        if owner is not None:
            return Problem(use.line, name, use.scope.qual, CLASS_ATTRIBUTE, f" of {owner.qual}")
        return Problem(use.line, name, use.scope.qual, UNDEFINED)

    def facts(self) -> list[Problem]:
        """What new_problems compares across versions: builtins read, builtin names bound at module level."""
        out = [Problem(line, name, "<module>", READS_BUILTIN) for name, line in self.builtin_reads.items()]
        bound = self.flow(self.module).maybe
        for name in sorted(set(bound) | self.global_assigned):
            if name in self.rt.builtins and not (name.startswith("__") and name.endswith("__")):
                out.append(Problem(bound.get(name, 0), name, "<module>", BINDS_BUILTIN))
        return out

    def method_only(self, name: str, line: int, scope: NameScope) -> None:
        """A zero-argument super() must sit in the body of a function defined in a class (a generator
        expression, or before 3.12 any comprehension, is a function of its own); `__class__` in any
        function nested in such a method."""
        if name == "super":
            s = scope
            while s.kind == "comprehension" and s.parent is not None:
                if s.generator or self.rt.version < (3, 12):
                    break
                s = s.parent
            ok = s.kind == "function" and _owner(s) == "class"
        else:
            ok = any(s.kind == "function" and _owner(s) == "class" for s in (scope, *_ancestors(scope)))
        if not ok:
            self.out.append(Problem(line, name, scope.qual, METHOD_ONLY))

    def builtin(self, name: str) -> bool:
        return name in self.rt.builtins or name in _MODULE_DUNDERS

    def starred(self, name: str, line: int | None) -> bool:
        """Could a run-time star import or globals() (before `line`, if given) provide `name`?"""
        if self.dynamic is not None and (line is None or self.dynamic < line):
            return True
        return self.star is not None and not name.startswith("_") and (line is None or self.star < line)

    def unbind(self, name: str, line: int, c: Ctx) -> None:
        scope = c.scope
        if scope.kind != "module" and name in scope.globals_:
            return
        c.flow.unbind(name, line)


def _owner(scope: NameScope) -> str:
    """The kind of scope a function is defined in (past a PEP 695 type-parameter scope)."""
    s = scope.parent
    while s is not None and s.kind == "annotation":
        s = s.parent
    return s.kind if s is not None else ""


def _ancestors(scope: NameScope) -> Iterator[NameScope]:
    s: NameScope | None = scope.parent
    while s is not None:
        yield s
        s = s.parent

"""Which functions of a scope a node of its code may run, for rewrite.later_runs (att56 F8): a call
by the name of a def or of a name bound to a def or lambda (`run = _reset; run(CFG)`, `_reset =
lambda d: ...; _reset(CFG)`, `h = a if c else b`: each; a loop variable over a list or tuple
display, `for h in (a, b):`, rewrite.loop_displays), a decorator (`@_register` calls
`_register` with the def or class), and, where the text cannot say which function a call runs (a
callee that is not such a name: `map(_reset, [CFG])`, `HANDLERS[0](CFG)`, `@app.route(...)`), every
function the scope lets out as a value: passed, stored, returned or aliased beyond a plain name, a
decorated def, a lambda not bound to a name; a name read inside a function means what the nearest
function around it binds under it (a local shadows: rewrite.let_out_order), and each function let
out has the place in import order where it is first let out (None: at any time). Also the code a
scope runs where it is (`own`): not a function's or lambda's body, but what runs where one is
defined, and a class body.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from radpatch.rewrite.evaluates_to import yields, yields_all
from radpatch.rewrite.known_callees import imported, wraps_only
from radpatch.rewrite.let_out_order import Enclosing, Position
from radpatch.rewrite.loop_displays import displayed
from radpatch.rewrite.rebound_names import ANY, rebound

if TYPE_CHECKING:
    Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Callees:
    """A scope's functions by name (its defs at any depth of its own code, `f = lambda ...`), the
    names bound to other names (`run = _reset`), the names it binds any other way (a callee that is
    one runs what the text cannot tell), its decorators, and the functions it lets out as values
    (`escaped`: its own or inner ones, named by a name read other than as a callee, a decorated def, a
    lambda its own code does not bind to a name), each with the names the statement letting it out
    mentions outside the statements it holds (a def's: its decorators, defaults, annotations; none
    for a statement starting in `unsaid`, the value's own binding: a display holding a function
    does not hand it the value)."""

    def __init__(
        self,
        body: Sequence[ast.AST],
        unsaid: tuple[tuple[int, int], tuple[int, int]] | None = None,
        rebinds: frozenset[str] | None = None,  # rebound(body), where the caller has it (one walk per module)
    ) -> None:
        self.functions: dict[str, list[Function]] = {}
        self.aliases: dict[str, set[str]] = {}
        self.other: set[str] = set()  # names also bound to something else than a function or a name
        self.decorators: set[int] = set()
        self._body = body
        named: set[int] = set()  # lambdas bound to a name, and targets so bound
        skip: set[int] = set()  # Names that are a call's callee, a decorator, a plain alias's value
        ran = list(own(body))
        loops = displayed(body, ran)  # `for h in (a, b):`: h is a or b
        for node in ran:
            if isinstance(node, (*_DEFS, ast.ClassDef)):
                self.decorators.update(id(d) for d in node.decorator_list)
                if isinstance(node, _DEFS):
                    self.functions.setdefault(node.name, []).append(node)
                    if any(not self.transparent(d) for d in node.decorator_list):
                        self.other.add(node.name)  # bound to what its decorator returns, maybe not it (att62 F1)
                else:
                    self.other.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    named.update(self._bind(t, node.value, skip))
            elif isinstance(node, ast.Name) and id(node) in loops:
                self._loop(node.id, loops[id(node)])
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in named:
                self.other.add(node.id)  # `for run in ...`, `with ... as run`, `del run`
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.other.update((x.asname or x.name).split(".")[0] for x in node.names)
        self.rebound = rebound(body) if rebinds is None else rebinds  # `globals()["_f"] = ...` (att62 F6)
        self.other.update(self.functions if ANY in self.rebound else self.rebound & self.functions.keys())
        escaped: dict[int, tuple[Function, frozenset[str]]] = {}
        self.scopes = Enclosing(body)
        self.let_out: dict[int, Position | None] = {}  # where in import order each is first let out
        own_ids = {id(n) for n in ran}
        stmts = [n for top in body for n in ast.walk(top) if isinstance(n, ast.stmt)]
        every: dict[str, list[Function]] = {}  # defs at any depth, inner ones too: a name let out may be one
        for fn in (n for n in stmts if isinstance(n, _DEFS)):
            every.setdefault(fn.name, []).append(fn)
        for stmt in [*stmts, *(t for t in body if not isinstance(t, ast.stmt))]:  # a lambda's body: an expression
            header = _header(stmt)
            at = (getattr(stmt, "lineno", 0), getattr(stmt, "col_offset", 0))
            inside = unsaid is not None and unsaid[0] <= at < unsaid[1]  # the value's own binding: holds, not hands
            said = frozenset() if inside else _said(stmt)
            skip.update(id(n.func) for n in header if isinstance(n, ast.Call))
            skip.update(id(d) for d in getattr(stmt, "decorator_list", []))
            out: list[tuple[Function, ast.AST]] = []
            for n in header:
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in skip:
                    out += [(f, n) for f in self._named(n, every)]
                elif isinstance(n, _DEFS) and n.decorator_list:
                    out.append((n, n))  # handed to its decorator
                elif isinstance(n, ast.Lambda) and id(n) not in named:
                    out.append((n, n))  # a lambda not bound to a name by the scope's own code
            for let, part in out:
                escaped[id(let)] = (let, escaped.get(id(let), (let, frozenset()))[1] | said)
                when = self.scopes.let_out_at(stmt, part, own_ids)
                was = self.let_out.get(id(let), when)
                self.let_out[id(let)] = None if when is None or was is None else min(when, was)
        self.escaped = list(escaped.values())
        out_at = self.let_out  # in the order let out: any time first, then by place
        self.in_order = sorted(self.escaped, key=lambda e: (out_at[id(e[0])] is not None, out_at[id(e[0])] or (0, 0)))
        self.every = every

    def transparent(self, decorator: ast.expr) -> bool:
        """A decorator after which a call of the name still runs the def's body: a known wrapper
        (rewrite.known_callees), `staticmethod`, `classmethod`, `property` and its setters."""
        said = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(said, ast.Name) and said.id in ("staticmethod", "classmethod", "property"):
            return True
        return (
            isinstance(said, ast.Attribute)
            and said.attr in ("setter", "getter", "deleter")
            or wraps_only(decorator, self.imported)
        )

    @cached_property
    def imported(self) -> dict[str, str]:
        """What the scope's imports make of a name (rewrite.known_callees), read when first asked."""
        return imported(self._body)

    def handed(self, call: ast.AST) -> set[int]:
        """The functions a call's arguments name as values (`map(_reset, ...)`, a lambda): ids."""
        parts = [*call.args, *(k.value for k in call.keywords)] if isinstance(call, ast.Call) else []
        out: set[int] = set()
        for n in (n for part in parts for n in ast.walk(part)):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out.update(id(f) for f in self._named(n, self.every))
            elif isinstance(n, ast.Lambda):
                out.add(id(n))
        return out

    def _named(self, name: ast.Name, every: dict[str, list[Function]]) -> list[Function]:
        """The functions a name read as a value may be: in a function's body, what the nearest
        function around it binds under it (a local shadows); else the scope's (and any def so named)."""
        found = self.resolve(name.id)[0] + every.get(name.id, [])
        meant = self.scopes.meant(name) if found else None  # an inner def so named is among `every`
        return meant if meant is not None else found

    def _loop(self, target: str, elts: list[ast.expr]) -> None:
        """Record `for target in (a, lambda: ...)`: the target is each element (rewrite.loop_displays)."""
        for e in elts:
            if isinstance(e, ast.Lambda):
                self.functions.setdefault(target, []).append(e)
            elif isinstance(e, ast.Name) and e.id != target:
                self.aliases.setdefault(target, set()).add(e.id)
        if not elts:
            self.aliases.setdefault(target, set())

    def _bind(self, target: ast.AST, value: ast.expr, skip: set[int]) -> list[int]:
        """Record `target = value` where it binds a name to a lambda or to other names (`h = a if c
        else b`: a or b); the ids of the lambda and the target so recorded."""
        if not isinstance(target, ast.Name):
            return []
        if isinstance(value, ast.Lambda):
            self.functions.setdefault(target.id, []).append(value)
            return [id(value), id(target)]
        names = _picked(value)
        if names is None:
            return []  # the Name target is recorded as bound otherwise when walked
        skip.update(id(n) for n in names)
        self.aliases.setdefault(target.id, set()).update(n.id for n in names if n.id != target.id)
        return [id(target)]

    def resolve(self, name: str, seen: frozenset[str] = frozenset()) -> tuple[list[Function], bool]:
        """The functions `name` may be (through aliases, each of them) and whether it may also be
        something the text cannot tell (bound otherwise, or not by this scope at all)."""
        if name in seen:
            return [], False
        fns = list(self.functions.get(name, []))
        unknown = name in self.other or (name not in self.functions and name not in self.aliases)
        for other in sorted(self.aliases.get(name, ())):
            more, maybe = self.resolve(other, seen | {name})
            fns += [f for f in more if all(f is not g for g in fns)]
            unknown = unknown or maybe
        return fns, unknown


def _picked(value: ast.expr) -> list[ast.Name] | None:
    """The names an expression's value is one of (`a`, `a if c else b`, `a or b`); None for any other."""
    if isinstance(value, ast.Name):
        return [value]
    parts = [value.body, value.orelse] if isinstance(value, ast.IfExp) else getattr(value, "values", None)
    if not isinstance(value, (ast.IfExp, ast.BoolOp)) or parts is None:
        return None
    out: list[ast.Name] = []
    for part in parts:
        got = _picked(part)
        if got is None:
            return None
        out += got
    return out


def _said(stmt: ast.AST) -> frozenset[str]:
    """What a statement may hand on: the names its expressions may evaluate to (rewrite.evaluates_to)."""
    if not isinstance(stmt, ast.stmt):
        return yields(stmt)
    return yields_all(c for c in ast.iter_child_nodes(stmt) if not isinstance(c, ast.stmt))


def _header(stmt: ast.AST) -> list[ast.AST]:
    """A statement and the nodes of it outside the statements it holds (its expressions; a def's
    decorators, defaults and annotations, not its body)."""
    out, stack = [stmt], list(ast.iter_child_nodes(stmt))
    while stack:
        node = stack.pop()
        if not isinstance(node, ast.stmt):
            out.append(node)
            stack.extend(ast.iter_child_nodes(node))
    return out


def body_of(fn: Function) -> list[ast.AST]:
    """What a function runs when called: a def's statements, a lambda's expression."""
    return [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)


def parameters(fn: Function) -> set[str]:
    """Every parameter of `fn` as holding the value (`*args`/`**kw` as containers of it)."""
    a = fn.args
    return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} | {
        p.arg + "[]" for p in filter(None, (a.vararg, a.kwarg))
    }


def own_names(fn: Function) -> frozenset[str]:
    """The names `fn` binds in its own scope (its parameters too), less those it declares global."""
    a = fn.args
    out = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg)))}
    declared: set[str] = set()
    for node in own(body_of(fn)):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, (*_DEFS, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((x.asname or x.name).split(".")[0] for x in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    return frozenset(out - declared)


def own(body: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Every node of the code the scope runs, in source order: not a function's or lambda's body, but
    what runs where one is defined (decorators, defaults, annotations) and a class body (att52 #2b, #2c)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_DEFS, ast.Lambda)):
            stack.extend(reversed(_runs_at_definition(node)))
        else:
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _runs_at_definition(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.AST]:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    out: list[ast.AST] = [*getattr(node, "decorator_list", []), *args.defaults]
    out += [d for d in args.kw_defaults if d is not None] + [a.annotation for a in every if a.annotation]
    returns = getattr(node, "returns", None)
    return out + ([returns] if returns is not None else [])

"""What of a scope's code runs after the statement that binds a name, and through which names it
reaches the value bound there: what rewrite.later_changes reads (issue 21, later53, later2).

Runs after the binding: every node of the scope's own code (its blocks and comprehensions, a class
body, what runs where a def is: decorators, defaults, annotations; not a function's body) that
starts after the binding ends; and one above it inside a loop that holds both (`for`, or `while`
with its test), which runs again after the binding on the next pass, unless the binding is a
statement of that loop's body with no `break` or `continue` before it (then every pass binds a
fresh value after it). Reaches the value: the name itself, a name given it later (`ALIAS = CFG`,
at any depth of aliases), a name given a display holding it (`T = (CFG,)`: `T[0]`, `f(*T)`), and
the bodies of the functions the scope defines that a later node runs (rewrite.import_callees: a
call by a def's name or a name bound to a def or lambda, `run = _reset`; a decorator; an inner def
of a followed function called there), transitively (to depth _DEPTH; each function once per set of
names reaching the value in it, so recursion ends): there, a parameter the call passes the value
to (positionally, by keyword, spread by `*X`/`**X`: every parameter; into `*args`/`**kw`: their
indexes and iteration), the scope's own names the function does not bind itself (not in a class
body, whose names its functions do not see), an enclosing function's names (an inner def), and
aliases made inside. Where the text cannot say which function runs (att56 F8: a callee that is not
such a name, `map(_reset, [CFG])`, `HANDLERS[0](CFG)`, a decorator not so named, `@make(...)`'s
result), every function the scope lets out as a value runs, each parameter holding the value where
that call or the statement letting it out names the value; an inner def a followed function lets
out (returns, passes) runs with each parameter holding it. Refused unread (Unfollowed): a call
deeper than _DEPTH, a `*args`/`**kw` holding the value used other than by index, iteration, `len`
or spread. A function from elsewhere, a method by attribute, the value put in another object (but
a display bound to a name) are not followed.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from typing import TYPE_CHECKING

from radpatch.rewrite.import_callees import Callees, body_of, own, own_names, parameters

if TYPE_CHECKING:
    from radpatch.rewrite.import_callees import Function

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)
_DEPTH = 8  # calls followed inside followed bodies; one deeper that may reach the value is refused
_SHOWN = (ast.Tuple, ast.List, ast.Set)
_BUILTINS = frozenset(dir(builtins))


class Unfollowed(ast.expr):
    """A place where the value may go on where radpatch does not read: a call deeper than _DEPTH,
    or a `*args`/`**kwargs` parameter holding it that the body uses other than by index, iteration,
    `len` or passing it on spread. later_changes takes it as a change (a refusal) and names the
    call the module makes."""


def reaches(node: ast.AST, names: frozenset[str]) -> bool:
    """`node` may be the value: a name that holds it, or an index of a name holding a container it
    is in (`args[0]`, `T[0]` after `T = (CFG,)`; `names` has such a name as `T[]`)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return node.value.id + "[]" in names
    return isinstance(node, ast.Name) and node.id in names


def runs_after(
    body: list[ast.stmt], name: str, bound: ast.AST, free: bool = True
) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
    """(node, the names that hold the value bound at `bound` where the node runs, the node a refusal
    names: the node itself, or the call or decorator that runs a followed function's body), for each
    node of the scope's code that may run after `bound`, in source order (a followed body right after
    what runs it). `free`: the scope's functions see its names (a module, a function; not a class body)."""
    start, end = _start(bound), _end(bound)
    again = _loops_again(body, bound)
    scope = Callees(body, (start, end))
    holders = {name}
    seen: set[tuple[int, frozenset[str]]] = set()
    locals_of: dict[int, frozenset[str]] = {}
    done: set[tuple[frozenset[str], frozenset[str], bool, bool, frozenset[int]]] = (
        set()
    )  # the functions let out, followed for these
    for node in own(body):
        at = _start(node)
        if not at[0] or (at < end and not any(lo <= at < hi for lo, hi in again)) or start <= at < end:
            continue
        _bind(node, holders)
        names = frozenset(holders)
        yield node, names, node
        follow = _CallWalk(scope, names if free else frozenset(), node, (seen, locals_of, done), free)
        yield from follow.runs(node, names, None, frozenset(), 0)


class _CallWalk:
    """The bodies of the scope's functions a node runs (rewrite.import_callees), with what runs in
    them, transitively: each function once per set of names reaching the value in it (recursion
    ends), to _DEPTH calls; a function the text cannot tell runs (let out as a value, where a callee
    is unknown) from depth 0 (it may run from anywhere), its parameters holding the value where the
    call or the statement letting it out names the value."""

    def __init__(
        self,
        scope: Callees,
        outer: frozenset[str],
        shown: ast.AST,
        memo: tuple[
            set[tuple[int, frozenset[str]]],
            dict[int, frozenset[str]],
            set[tuple[frozenset[str], frozenset[str], bool, bool, frozenset[int]]],
        ],
        nested: bool,
    ) -> None:
        self.scope, self.outer, self.shown = scope, outer, shown
        self.seen, self.locals_of, self.done = memo  # what was followed; each function's own names, read once
        self.nested = nested  # a call in a followed body names the scope's functions (not a class's)

    def runs(
        self, node: ast.AST, names: frozenset[str], local: Callees | None, shadowed: frozenset[str], depth: int
    ) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        """What `node` runs: a call of a function the scope (or `local`, a followed function's own
        code, whose names are `shadowed`) defines; a decorator; where the callee is not told, every
        function let out."""
        decorator = id(node) in self.scope.decorators or (local is not None and id(node) in local.decorators)
        callee = node.func if isinstance(node, ast.Call) else node if decorator else None
        if callee is None:
            return
        fns, unknown = self._resolve(callee, names, local, shadowed)
        for fn, sees in fns:
            passed = _passed(node, fn, names) if isinstance(node, ast.Call) else set()
            yield from self.follow(fn, passed | self._visible(sees, fn), depth)
        if unknown or (decorator and isinstance(node, ast.Call)):  # `@make(...)`: what make returns is applied
            value = frozenset(n.removesuffix("[]") for n in names | self.outer)
            given, passes = _hands(node, value), frozenset(self.scope.handed(node))
            # a callee that may be a function let out (not a method, not a builtin): any may get the value
            opaque = not isinstance(callee, ast.Attribute) and not (
                isinstance(callee, ast.Name) and callee.id in _BUILTINS and not fns and callee.id not in shadowed
            )
            if (self.outer, value, given, opaque, passes) in self.done:
                return  # every function let out followed so already
            self.done.add((self.outer, value, given, opaque, passes))
            for fn, mentions in self.scope.escaped:
                hands = (given or mentions & value) and (opaque or id(fn) in passes)
                held = parameters(fn) if hands else set()
                yield from self.follow(fn, held | self._visible(self.outer, fn), 0)

    def _resolve(
        self, callee: ast.AST, names: frozenset[str], local: Callees | None, shadowed: frozenset[str]
    ) -> tuple[list[tuple[Function, frozenset[str]]], bool]:
        """The functions `callee` may be, each with the names it sees there, and whether it may be
        another the text cannot tell."""
        if not isinstance(callee, ast.Name):
            return [], True
        if local is not None and callee.id in shadowed:
            fns, unknown = local.resolve(callee.id)
            return [(f, names) for f in fns], unknown or not fns
        if local is not None and not self.nested:
            return [], True
        fns, unknown = self.scope.resolve(callee.id)
        return [(f, self.outer) for f in fns], unknown

    def follow(self, fn: Function, inner: set[str], depth: int) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        key = (id(fn), frozenset(inner))
        if not inner or key in self.seen:
            return
        if depth >= _DEPTH:
            yield Unfollowed(), frozenset(inner), self.shown
            return
        self.seen.add(key)
        held = set(inner)
        body = body_of(fn)
        local = Callees(body)
        shadowed = self.locals_of.setdefault(id(fn), own_names(fn))
        loose = _loose(body, {n[:-2] for n in inner if n.endswith("[]")})
        for node in own(body):
            _bind(node, held)
            here = frozenset(held)
            if node in loose:
                yield Unfollowed(), here, self.shown
            yield node, here, self.shown
            yield from self.runs(node, here, local, shadowed, depth + 1)
        for nested, _ in local.escaped:  # an inner def let out (returned, passed): may run, given anything
            yield from self.follow(nested, parameters(nested) | self._visible(frozenset(held), nested), depth + 1)

    def _visible(self, sees: frozenset[str], fn: Function) -> set[str]:
        """The names of the enclosing scope holding the value that `fn` sees (does not bind itself)."""
        if id(fn) not in self.locals_of:
            self.locals_of[id(fn)] = own_names(fn)
        local = self.locals_of[id(fn)]
        return {n for n in sees if n.removesuffix("[]") not in local}


def _hands(node: ast.AST, value: frozenset[str]) -> bool:
    """A call's arguments may hold the value: one of `value` named there other than as the object of
    an attribute (`print(CFG)`, `f([CFG])`, `f(T[0])`; not `f(CFG.items())`)."""
    parts = [*node.args, *(k.value for k in node.keywords)] if isinstance(node, ast.Call) else []
    walked = [n for part in parts for n in ast.walk(part)]
    objects = {id(n.value) for n in walked if isinstance(n, ast.Attribute)}
    return any(isinstance(n, ast.Name) and n.id in value and id(n) not in objects for n in walked)


def _bind(node: ast.AST, held: set[str]) -> None:
    """Names `node` gives the value: `d = CFG` (an alias), `d = args[0]`, `T = (CFG,)` (a container:
    `T[]`), `for d in args:`."""
    names = frozenset(held)
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        if reaches(value, names):
            held.update(t.id for t in targets if isinstance(t, ast.Name))
        elif _contains(value, names):
            held.update(t.id + "[]" for t in targets if isinstance(t, ast.Name))
    elif isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
        if _contains(node.iter, names) or (isinstance(node.iter, ast.Name) and node.iter.id + "[]" in names):
            held.add(node.target.id)


def _contains(value: ast.AST, names: frozenset[str]) -> bool:
    """A display holding the value as an element (a dict's: as a value)."""
    elts = value.elts if isinstance(value, _SHOWN) else value.values if isinstance(value, ast.Dict) else []
    return any(reaches(e, names) for e in elts)


def _loose(body: list[ast.AST], containers: set[str]) -> set[ast.AST]:
    """The uses of a `*args`/`**kwargs` parameter holding the value other than `args[i]`, `for x in
    args`, `len(args)`, `f(*args)` or `f(**kw)`: the value may go anywhere from there."""
    if not containers:
        return set()
    kept: set[int] = set()
    uses: list[ast.Name] = []
    for node in own(body):
        if isinstance(node, ast.Name) and node.id in containers:
            uses.append(node)
        inner: list[ast.AST] = []
        if isinstance(node, (ast.Subscript, ast.Starred)) or (isinstance(node, ast.keyword) and node.arg is None):
            inner = [node.value]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            inner = [node.iter]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            inner = list(node.args)
        kept.update(id(x) for x in inner)
    return {u for u in uses if id(u) not in kept}


def _start(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _end(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0


def _loops_again(body: list[ast.stmt], bound: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The spans (start, end) of the code above `bound` that a loop holding it runs again after it."""
    at = _start(bound)
    out = []
    for loop in own(body):
        if not isinstance(loop, _LOOPS) or not loop.body:
            continue
        first = loop.test if isinstance(loop, ast.While) else loop.body[0]
        if not _start(first) <= at < _end(loop.body[-1]):
            continue
        before = [s for s in loop.body if _end(s) <= at]
        jumps = any(isinstance(n, (ast.Break, ast.Continue)) for s in before for n in ast.walk(s))
        if any(isinstance(s, _SIMPLE) and _start(s) <= at < _end(s) for s in loop.body) and not jumps:
            continue  # each pass binds a fresh value after what it ran above
        out.append((_start(first), at))
    return out


def _passed(call: ast.Call, fn: Function, names: frozenset[str]) -> set[str]:
    """The parameters of `fn` that `call` passes the value to (positionally or by keyword; into
    `*args` or `**kw`: that name as a container, `args[]`); a `*X` or `**X` argument that may hold it:
    every parameter (the text cannot say which)."""
    a = fn.args
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    every = {*positional, *(p.arg for p in a.kwonlyargs)}
    every |= {p.arg + "[]" for p in filter(None, (a.vararg, a.kwarg))}
    out: set[str] = set()
    spread = False  # after a `*X`, positions are unknown
    for i, arg in enumerate(call.args):
        spread = spread or isinstance(arg, ast.Starred)
        if isinstance(arg, ast.Starred) and _may_hold(arg.value, names) or spread and _may_hold(arg, names):
            return every
        if _box(arg, names) and not spread:
            out.add((positional[i] if i < len(positional) else a.vararg.arg if a.vararg else "") + "[]")
        elif reaches(arg, names) and not spread:
            out.add(positional[i] if i < len(positional) else a.vararg.arg + "[]" if a.vararg else "")
    for kw in call.keywords:
        if kw.arg is None and _may_hold(kw.value, names):
            return every
        if kw.arg is not None and _box(kw.value, names):
            out.add((kw.arg if kw.arg in every else a.kwarg.arg if a.kwarg else "") + "[]")
        elif kw.arg is not None and reaches(kw.value, names):
            out.add(kw.arg if kw.arg in every else a.kwarg.arg + "[]" if a.kwarg else "")
    return out - {"", "[]"}


def _box(node: ast.AST, names: frozenset[str]) -> bool:
    """A name holding a container the value is in (`T` after `T = (CFG,)`)."""
    return isinstance(node, ast.Name) and node.id + "[]" in names


def _may_hold(node: ast.AST, names: frozenset[str]) -> bool:
    return reaches(node, names) or _contains(node, names) or _box(node, names)

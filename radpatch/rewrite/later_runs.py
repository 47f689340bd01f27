"""What of a scope's code runs after the statement that binds a name, and through which names it reaches the value
bound there: what rewrite.later_changes reads (issue 21, later53, later2).

Runs after the binding: every node of the scope's own code (its blocks and comprehensions, a class body, what
runs where a def is: decorators, defaults, annotations; not a function's body) that starts after the binding
ends; and one above it inside a loop that holds both (`for`, or `while` with its test), which runs again after
the binding on the next pass, unless the binding is a statement of that loop's body with no `break` or
`continue` before it (then every pass binds a fresh value after it). Reaches the value: the name itself, a name
given it later (`ALIAS = CFG`, `d := CFG`, ..., rewrite.passed_values), a display bound to a name (`T = (CFG,)`:
`T[0]`), and the bodies of the functions the scope defines that a later node runs (rewrite.import_callees: a
call by a def's name or a name bound to a def or lambda, `run = _reset`; a decorator; an inner def of a followed
function called there), transitively (to depth _DEPTH; each function once per set of names reaching the value in
it, so recursion ends): there, a parameter the call passes the value to (positionally, by keyword, spread by
`*X`/`**X`: every parameter; into `*args`/`**kw`: their indexes and iteration), the scope's own names the
function does not bind itself (not in a class body), an enclosing function's names (an inner def), and aliases
made inside. Where the text cannot say which function runs (att56 F8: a callee that is not such a name,
`map(_reset, [CFG])`, `HANDLERS[0](CFG)`, a decorator not so named, `@make(...)`'s result, but a wrapper from
elsewhere, `@contextmanager`, rewrite.known_callees; not a loop variable over a display, `for h in (a, b):
h(CFG)`: a or b), every function the scope lets out as a value before that call runs (issue 21,
rewrite.let_out_order: before the node of the scope's code running it, up to the end of a loop holding it; any
time in a function that runs later, an inner def let out, a generator) runs, each parameter holding the value
where that call or the statement letting it out names the value; a function followed for an earlier node and run
again by a later one has its such calls followed again with what was let out since. An inner def a followed
function lets out (returns, passes) runs later, seeing that function's names holding the value; its parameters
hold it only where a call the text cannot tell hands it on (such a def is let out). Refused unread:
`Unfollowed`. Also run: rewrite.implicit_runs (esc53); where the value goes to code not followed:
rewrite.escapes.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from radpatch.rewrite.implicit_runs import Implicit
from radpatch.rewrite.import_callees import Callees, body_of, own, own_names, parameters
from radpatch.rewrite.known_callees import wraps_only
from radpatch.rewrite.let_out_order import Position, horizon, spans_again
from radpatch.rewrite.passed_values import bind, hands, loose, meets, passed, reaches

if TYPE_CHECKING:
    from radpatch.rewrite.import_callees import Function

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)
_Site = tuple[frozenset[str], frozenset[str], bool, bool, frozenset[int]]  # an unknown call: outer, value, given...
_Key = tuple[int, frozenset[str], bool]  # a function followed: its id, the names holding the value, run late
_Item = _Key | tuple[_Site, bool]
_LATER = (ast.Yield, ast.YieldFrom, ast.Await)  # a body holding one runs later than its call
_DEPTH = 8  # calls followed inside followed bodies; one deeper that may reach the value is refused
_BUILTINS = frozenset(dir(builtins))
__all__ = ["Unfollowed", "reaches", "runs_after"]


class Unfollowed(ast.expr):
    """Where the value may go on unread: a call deeper than _DEPTH, a `*args`/`**kwargs` holding it
    used other than by index, iteration, `len` or spread on. later_changes refuses there."""


def runs_after(
    body: list[ast.stmt], name: str, bound: ast.AST, free: bool = True, rebinds: frozenset[str] | None = None
) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
    """(node, the names that hold the value bound at `bound` where the node runs, the node a refusal
    names: the node itself, or the call or decorator that runs a followed function's body), for each
    node of the scope's code that may run after `bound`, in source order (a followed body right after
    what runs it). `free`: the scope's functions see its names (a module, a function; not a class body)."""
    start, end = _start(bound), _end(bound)
    again = _loops_again(body, bound)
    scope = Callees(body, (start, end), rebinds)  # `rebinds`: rebound_names.rebound(body), the caller's
    holders = {name}
    memo = _Memo()
    ran = list(own(body))
    spans = spans_again(ran)
    implicit = Implicit(body, start) if free else None  # esc53: what Python runs without a call naming it
    for node in ran:
        at = _start(node)
        if not at[0] or (at < end and not any(lo <= at < hi for lo, hi in again)) or start <= at < end:
            continue
        bind(node, holders)
        names = frozenset(holders)
        yield node, names, node
        walk = _CallWalk(scope, names if free else frozenset(), (node, spans), memo, free)
        runs = walk.runs(node, names, None, frozenset(), 0, False)
        yield from runs if implicit is None else implicit.around(runs, node, walk.late, names)


@dataclass
class _Memo:
    """What the walks of one scope followed: each function per set of names (the functions and unknown
    calls it reaches), each unknown call (the functions it reached, how many of those let out in order
    it followed), how many let out each function's unknown calls were replayed with; each function's
    own names, read once."""

    seen: dict[_Key, dict[_Item, None]] = field(default_factory=dict)
    sites: dict[tuple[_Site, bool], dict[_Item, None]] = field(default_factory=dict)
    done: dict[_Site, int] = field(default_factory=dict)
    replayed: dict[_Key, int] = field(default_factory=dict)
    locals_of: dict[int, frozenset[str]] = field(default_factory=dict)
    replaying: set[tuple[_Site, bool]] = field(default_factory=set)


class _CallWalk:
    """The bodies of the scope's functions a node runs, transitively (as the module says): each
    function once per set of names reaching the value in it, to _DEPTH calls; one run where a callee
    is unknown from depth 0, if let out before the call may run (rewrite.let_out_order)."""

    def __init__(
        self,
        scope: Callees,
        outer: frozenset[str],
        shown: tuple[ast.AST, list[tuple[Position, Position, bool]]],
        memo: _Memo,
        nested: bool,
    ) -> None:
        self.scope, self.outer, (self.shown, self.spans) = scope, outer, shown
        self.by_then: list[tuple[Function, frozenset[str]]] | None = None  # let out by the time shown runs
        self.memo, self.locals_of = memo, memo.locals_of
        self.open: list[dict[_Item, None]] = []  # what the follow or unknown call under way reaches
        self.nested = nested  # a call in a followed body names the scope's functions (not a class's)

    def runs(
        self,
        node: ast.AST,
        names: frozenset[str],
        local: Callees | None,
        shadowed: frozenset[str],
        depth: int,
        late: bool,
    ) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        """What `node` runs: a call of a function the scope (or `local`, a followed function's own code, whose names
        are `shadowed`) defines; a decorator; where the callee is not told, every function let out by then (`late`:
        it runs at any time after the node of the scope's code); none where it is a wrapper from elsewhere."""
        decorator = id(node) in self.scope.decorators or (local is not None and id(node) in local.decorators)
        callee = node.func if isinstance(node, ast.Call) else node if decorator else None
        if callee is None:
            return
        fns, unknown = self._resolve(callee, names, local, shadowed)
        wrapper = decorator and not fns and wraps_only(node, self.scope.imported)
        for fn, sees in fns:
            given_to = passed(node, fn, names) if isinstance(node, ast.Call) else set()
            yield from self.follow(fn, given_to | self._visible(sees, fn), depth, late)
        if (unknown or (decorator and isinstance(node, ast.Call))) and not wrapper:  # `@make(...)`: its result applied
            value = names | self.outer
            given, passes = hands(node, value), frozenset(self.scope.handed(node))
            # a callee that may be a function let out (not a method, not a builtin): any may get the value
            opaque = not isinstance(callee, ast.Attribute) and not (
                isinstance(callee, ast.Name) and callee.id in _BUILTINS and not fns and callee.id not in shadowed
            )
            yield from self._unknown((self.outer, value, given, opaque, passes), late)

    def _unknown(self, site: _Site, late: bool) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        """Follow, from a call whose callee is not told, the functions let out by the time it runs
        that were not followed from it so yet (an earlier node of the scope's code saw fewer)."""
        if self.open:
            self.open[-1][(site, late)] = None
        outer, value, given, opaque, passes = site
        let_out = self._let_out(late)
        first = self.memo.done.get(site, 0)
        self.memo.done[site] = max(first, len(let_out))
        reached = self.memo.sites.setdefault((site, late), {})
        before = list(reached)
        self.open.append(reached)
        for fn, mentions in let_out[first:]:
            gives = (given or meets(mentions, value)) and (opaque or id(fn) in passes)
            held = parameters(fn) if gives else set()
            yield from self.follow(fn, held | self._visible(outer, fn), 0, late)
        self.open.pop()
        for key in before:  # followed from here for an earlier node: their unknown calls may now run more
            if len(key) == 3:
                yield from self._replay(key)
            elif key not in self.memo.replaying:  # an unknown call a replay reached from here: once at a time
                self.memo.replaying.add(key)
                yield from self._unknown(*key)
                self.memo.replaying.discard(key)

    def _replay(self, key: _Key) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        """A function followed for an earlier node of the scope's code, run again by this one: its
        unknown calls (at any depth), with the functions let out by this node's time."""
        let_out = len(self._let_out(key[2]))
        if self.memo.replayed.get(key, -1) >= let_out:
            return  # nothing let out since
        self.memo.replayed[key] = let_out
        for item in list(self.memo.seen[key]):
            if len(item) == 3:
                yield from self._replay(item)
            else:
                yield from self._unknown(*item)

    def _let_out(self, late: bool) -> list[tuple[Function, frozenset[str]]]:
        """The functions the scope lets out that a call may run, in the order they are let out:
        those let out by the time it runs (`late`: every one)."""
        if late:
            return self.scope.in_order
        if self.by_then is None:
            at = horizon(self.shown, self.spans)
            when = self.scope.let_out
            self.by_then = [e for e in self.scope.in_order if at is None or (p := when[id(e[0])]) is None or p < at]
        return self.by_then

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

    def late(self, fn: Function, given: set[str]) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        """`fn` run at any time after the node, seeing the scope's names, `given` holding the value too."""
        return self.follow(fn, self._visible(self.outer, fn) | given, 0, True)

    def follow(
        self, fn: Function, inner: set[str], depth: int, late: bool
    ) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        late = late or _deferred(fn)
        key = (id(fn), frozenset(inner), late)
        if not inner:
            return
        if key in self.memo.seen:  # its unknown calls again, with what this node's time lets out
            if self.open:
                self.open[-1][key] = None
            yield from self._replay(key)
            return
        if depth >= _DEPTH:
            yield Unfollowed(), frozenset(inner), self.shown
            return
        if self.open:
            self.open[-1][key] = None
        self.memo.seen[key] = {}
        self.memo.replayed[key] = len(self._let_out(late))
        self.open.append(self.memo.seen[key])
        yield from self._body(fn, inner, depth, late)
        self.open.pop()

    def _body(
        self, fn: Function, inner: set[str], depth: int, late: bool
    ) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        held = set(inner)
        body = body_of(fn)
        local = Callees(body)
        shadowed = self.locals_of.setdefault(id(fn), own_names(fn))
        unread = loose(body, {n[:-2] for n in inner if n.endswith("[]")})
        for node in own(body):
            bind(node, held)
            here = frozenset(held)
            if node in unread:
                yield Unfollowed(), here, self.shown
            yield node, here, self.shown
            yield from self.runs(node, here, local, shadowed, depth + 1, late)
        for nested, _ in local.escaped:  # an inner def let out (returned, passed): runs later, seeing its names
            yield from self.follow(nested, self._visible(frozenset(held), nested), depth + 1, True)

    def _visible(self, sees: frozenset[str], fn: Function) -> set[str]:
        """The names of the enclosing scope holding the value that `fn` sees (does not bind itself)."""
        if id(fn) not in self.locals_of:
            self.locals_of[id(fn)] = own_names(fn)
        local = self.locals_of[id(fn)]
        return {n for n in sees if n.removesuffix("[]") not in local}


def _deferred(fn: Function) -> bool:
    """A function whose body runs later than its call: a generator's, a coroutine's."""
    return isinstance(fn, ast.AsyncFunctionDef) or any(isinstance(n, _LATER) for n in own(body_of(fn)))


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

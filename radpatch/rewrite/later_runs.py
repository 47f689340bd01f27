"""What of a scope's code runs after the statement that binds a name, and through which names it
reaches the value bound there: what rewrite.later_changes reads (issue 21, later53, later2).

Runs after the binding: every node of the scope's own code (its blocks and comprehensions, a class
body, what runs where a def is: decorators, defaults, annotations; not a function's body) that
starts after the binding ends; and one above it inside a loop that holds both (`for`, or `while`
with its test), which runs again after the binding on the next pass, unless the binding is a
statement of that loop's body with no `break` or `continue` before it (then every pass binds a
fresh value after it). Reaches the value: the name itself, a name given it later (`ALIAS = CFG`,
at any depth of aliases), a name given a display holding it (`T = (CFG,)`: `T[0]`, `f(*T)`), and
the bodies of the functions the scope defines that a later call runs, transitively (a call made in
a followed body to another of the scope's functions, to depth _DEPTH; each function once per set of
names reaching the value in it, so recursion ends): there, a parameter the call passes the value
to (positionally, by keyword, spread by `*X`/`**X`: every parameter; into `*args`/`**kw`: their
indexes and iteration), the scope's own names the function does not bind itself (not in a class
body, whose names its functions do not see), and aliases made inside. Refused unread (Unfollowed):
a call deeper than _DEPTH, a `*args`/`**kw` holding the value used other than by index, iteration,
`len` or spread. A function from elsewhere, a method, the value put in another object (but a
display bound to a name) are not followed.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)
_DEPTH = 8  # calls followed inside followed bodies; one deeper that may reach the value is refused
_SHOWN = (ast.Tuple, ast.List, ast.Set)


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
    names: the node itself, or the call that runs a followed function's body), for each node of the
    scope's code that may run after `bound`, in source order (a followed body right after its call).
    `free`: the scope's functions see its names (a module, a function; not a class body)."""
    start, end = _start(bound), _end(bound)
    again = _loops_again(body, bound)
    defs = {d.name: d for d in own(body) if isinstance(d, _DEFS)}
    holders = {name}
    seen: set[tuple[int, frozenset[str]]] = set()
    for node in own(body):
        at = _start(node)
        if not at[0] or (at < end and not any(lo <= at < hi for lo, hi in again)) or start <= at < end:
            continue
        _bind(node, holders)
        names = frozenset(holders)
        yield node, names, node
        if isinstance(node, ast.Call):
            follow = _CallWalk(defs, names if free else frozenset(), node, seen, free)
            yield from follow.call(node, names, frozenset(), 0)


class _CallWalk:
    """The bodies of the scope's functions a call runs, with the calls made in them, transitively:
    each function once per set of names reaching the value in it (recursion ends), to _DEPTH."""

    def __init__(
        self,
        defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
        outer: frozenset[str],
        shown: ast.AST,
        seen: set[tuple[int, frozenset[str]]],
        nested: bool,
    ) -> None:
        self.defs, self.outer, self.shown, self.seen = defs, outer, shown, seen
        self.nested = nested  # a call in a followed body names the scope's functions (not a class's)

    def call(
        self, call: ast.Call, names: frozenset[str], shadowed: frozenset[str], depth: int
    ) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
        callee = call.func.id if isinstance(call.func, ast.Name) else ""
        fn = self.defs.get(callee) if callee not in shadowed else None
        if fn is None:
            return
        local = local_names(fn)
        inner = _passed(call, fn, names) | {n for n in self.outer if n.removesuffix("[]") not in local}
        key = (id(fn), frozenset(inner))
        if not inner or key in self.seen:
            return
        if depth >= _DEPTH:
            yield Unfollowed(), frozenset(inner), self.shown
            return
        self.seen.add(key)
        held = set(inner)
        loose = _loose(fn.body, {n[:-2] for n in inner if n.endswith("[]")})
        for node in own(fn.body):
            _bind(node, held)
            here = frozenset(held)
            if node in loose:
                yield Unfollowed(), here, self.shown
            yield node, here, self.shown
            if isinstance(node, ast.Call) and self.nested:
                yield from self.call(node, here, local, depth + 1)


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


def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names `fn` binds in its own scope (its parameters too), less those it declares global."""
    a = fn.args
    out = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg)))}
    declared: set[str] = set()
    for node in own(fn.body):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, (*_DEFS, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((x.asname or x.name).split(".")[0] for x in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    return frozenset(out - declared)


def _loose(body: list[ast.stmt], containers: set[str]) -> set[ast.AST]:
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


def own(body: list[ast.stmt]) -> Iterator[ast.AST]:
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


def _passed(call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef, names: frozenset[str]) -> set[str]:
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

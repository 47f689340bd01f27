"""Two proofs about where a patch's code ends up: it is not shadowed, and it is the code that runs.

- Shadowing: a definition the patch adds at module level must not share its name with anything
  the target binds there (import, assignment, def, class): one of the two would silently
  replace the other.
- Dead code: a rewrite must not change a `def`/`class` that a later statement of its scope
  replaces: in the same block or in one that runs after it (`def f` ... `def f` again, `f = ...`,
  `from x import f`), or on some path only (`if cond: def f`, a try's fallback, a loop body).
  A definition whose name is read by something that surely runs in between (`@f.setter`,
  `register(f)`), or that has a decorator radpatch does not know (it may register it), is alive.
- Unreachable code: nothing the patch adds or changes may follow, in its block, a statement
  control never gets past (return, raise, continue, break, an if/else or try whose every path
  leaves, `while True:` without a break, a `with` whose body returns).

Each check is one pass over the top-level statements or over all statement lists, taken from each
version's tree into a `Placement` (so only one whole-module tree is alive at a time); only the
definitions that could be dead are compared (with ast.dump) between the original and the patch.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PURE_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "cached_property",
        "cache",
        "lru_cache",
        "overload",
        "abstractmethod",
        "override",
        "final",
        "wraps",
        "contextmanager",
        "asynccontextmanager",
        "dataclass",
        "total_ordering",
    }
)


@dataclass(frozen=True)
class Binding:
    name: str
    line: int
    kind: str  # import | assignment | def | class | loop variable | with target


def module_bindings(tree: ast.Module) -> Iterator[Binding]:
    """What the module binds at its top level (including inside module-level if/try/with/for)."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        s = stack.pop()
        yield from _binds(s)
        if not isinstance(s, _DEFS):
            for f in ("finalbody", "orelse", "handlers", "body"):
                stack.extend(reversed([x for x in getattr(s, f, ()) if isinstance(x, ast.stmt)]))
            for h in getattr(s, "handlers", ()):
                stack.extend(reversed(h.body))
            for case in getattr(s, "cases", ()):
                stack.extend(reversed(case.body))


def _binds(s: ast.stmt) -> Iterator[Binding]:
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield Binding(s.name, s.lineno, "def")
    elif isinstance(s, ast.ClassDef):
        yield Binding(s.name, s.lineno, "class")
    elif isinstance(s, (ast.Import, ast.ImportFrom)):
        yield from (Binding(a.asname or a.name.split(".")[0], s.lineno, "import") for a in s.names if a.name != "*")
    elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        yield from (Binding(n.id, s.lineno, "assignment") for t in targets for n in _stored(t))
    elif isinstance(s, (ast.For, ast.AsyncFor)):
        yield from (Binding(n.id, s.lineno, "loop variable") for n in _stored(s.target))
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        yield from (
            Binding(n.id, s.lineno, "with target") for i in s.items if i.optional_vars for n in _stored(i.optional_vars)
        )


def _stored(target: ast.expr) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from _stored(e)
    elif isinstance(target, ast.Starred):
        yield from _stored(target.value)


@dataclass(frozen=True)
class DeadDef:
    """A def/class a later statement of its block replaces, as far as the dead-code proof needs it."""

    dump: str  # ast.dump of the definition: compared between the original and the patch
    line: int
    later_line: int
    alive: bool  # its name is read before it is replaced (`@f.setter`, `register(f)`): it runs
    conditional: bool = False  # replaced on some paths only (`if cond: def f`, a try's fallback)


@dataclass(frozen=True)
class Placement:
    """What both proofs need of one version of a module, taken from its tree in one pass, so the
    tree can be freed before the other version is parsed."""

    bindings: tuple[Binding, ...]
    dead: dict[tuple[str, str, int], DeadDef]
    unreachable: tuple[Unreachable, ...] = ()


@dataclass(frozen=True)
class Unreachable:
    """A statement after one that never falls through (return, raise, continue, break, or an
    if/else or try whose every path does): it never runs."""

    scope: str
    dump: str
    line: int
    after: int  # the line of the statement control cannot get past


def placement(tree: ast.Module) -> Placement:
    dead = {}
    for key, d in _dead(tree).items():
        later = d.later
        uses: tuple[ast.AST, ...] = (
            *d.between,
            *getattr(later, "decorator_list", ()),
            *([later.value] if isinstance(later, ast.Assign) else []),
        )
        dead[key] = DeadDef(ast.dump(d.node), d.node.lineno, later.lineno, _read_in(uses, key[1]), d.conditional)
    return Placement(tuple(module_bindings(tree)), dead, tuple(_unreachable(tree)))


def _unreachable(tree: ast.Module) -> Iterator[Unreachable]:
    stack: list[tuple[str, ast.AST]] = [("<module>", tree)]
    while stack:
        qual, node = stack.pop()
        parts = [getattr(node, f, None) for f in ("body", "orelse", "finalbody")]
        for stmts in parts:
            if not (isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt)):
                continue
            for i, s in enumerate(stmts[:-1]):
                if not _falls(s):
                    yield from (Unreachable(qual, ast.dump(x), x.lineno, s.lineno) for x in stmts[i + 1 :])
                    break
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                stack.append((child.name if qual == "<module>" else f"{qual}.{child.name}", child))
            elif isinstance(child, (ast.stmt, ast.ExceptHandler)) or type(child).__name__ == "match_case":
                stack.append((qual, child))


def _falls(s: ast.stmt) -> bool:
    """Can control get past `s` to the next statement of its block?"""
    if isinstance(s, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return False
    if isinstance(s, ast.If):
        return not s.orelse or _block_falls(s.body) or _block_falls(s.orelse)
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        t: ast.Try = s  # type: ignore[assignment]
        if t.finalbody and not _block_falls(t.finalbody):
            return False
        return (_block_falls(t.body) and _block_falls(t.orelse)) or any(_block_falls(h.body) for h in t.handlers)
    if isinstance(s, (ast.With, ast.AsyncWith)):  # a context manager may swallow an exception, not a return
        return not (s.body and isinstance(s.body[-1], (ast.Return, ast.Continue, ast.Break)))
    if isinstance(s, ast.While):  # `while True:` without a break of its own never ends
        forever = isinstance(s.test, ast.Constant) and bool(s.test.value)
        return not forever or _breaks(s.body)
    return True


def _block_falls(stmts: list[ast.stmt]) -> bool:
    return all(_falls(s) for s in stmts)


def _breaks(stmts: list[ast.stmt]) -> bool:
    """Does a `break` of this loop (not of a nested one) occur in its body?"""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While, *_DEFS)):
            continue
        for f in ("body", "orelse", "finalbody"):
            stack.extend(x for x in getattr(s, f, None) or () if isinstance(x, ast.stmt))
        stack.extend(x for h in getattr(s, "handlers", ()) for x in h.body)
        stack.extend(x for c in getattr(s, "cases", ()) for x in c.body)
    return False


def shadowed(before: Placement, after: Placement) -> list[str]:
    """A def/class the patch adds at module level under a name the original already binds."""
    old: dict[str, list[Binding]] = {}
    for b in before.bindings:
        old.setdefault(b.name, []).append(b)
    count_old: dict[str, int] = {}
    for bs in old.values():
        for b in bs:
            if b.kind in ("def", "class"):
                count_old[b.name] = count_old.get(b.name, 0) + 1
    now: dict[str, list[Binding]] = {}
    for b in after.bindings:
        if b.kind in ("def", "class") and b.name in old:
            now.setdefault(b.name, []).append(b)
    out = []
    for name, defs in now.items():  # which of them is the added one the trees cannot say: all are named
        if len(defs) > count_old.get(name, 0):
            first = old[name][0]
            lines = " and ".join(str(b.line) for b in defs) if len(defs) > 1 else str(defs[0].line)
            out.append(
                f"the {defs[-1].kind} `{name}` it adds would share its name with the {first.kind} `{name}` the "
                f"module has at line {first.line} (the patched module binds it at line{'s' if len(defs) > 1 else ''} "
                f"{lines}): one would replace the other"
            )
    return out


@dataclass(frozen=True)
class _Dead:
    key: tuple[str, str, int]  # (scope, name, n-th definition of that name in the scope, in source order)
    node: ast.stmt
    later: ast.stmt
    between: tuple[ast.AST, ...]
    conditional: bool  # the later statement replaces it on some paths only


def _rebinds(s: ast.stmt, name: str) -> bool:
    if isinstance(s, _DEFS):
        return s.name == name
    return any(b.name == name for b in _binds(s)) and not isinstance(s, (ast.AugAssign,))


def _typing_block(s: ast.stmt) -> bool:
    test = s.test if isinstance(s, ast.If) else None
    return test is not None and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _nested_rebind(s: ast.stmt, name: str) -> ast.stmt | None:
    """A statement inside compound `s` (in its scope: not in a def/class body, not under `if
    TYPE_CHECKING:`) that binds `name`: it replaces an earlier definition on the paths through it."""
    stack: list[ast.stmt] = [s]
    while stack:
        x = stack.pop()
        if x is not s and _rebinds(x, name):
            return x
        if isinstance(x, _DEFS):
            continue
        parts: list[list[ast.stmt]] = (
            [getattr(x, "orelse", [])]
            if _typing_block(x)
            else [getattr(x, f, None) or [] for f in ("body", "orelse", "finalbody")]
        )
        parts += [h.body for h in getattr(x, "handlers", ())] + [c.body for c in getattr(x, "cases", ())]
        for part in reversed(parts):
            stack.extend(reversed([y for y in part if isinstance(y, ast.stmt)]))
    return None


_Next = tuple[ast.stmt, bool]  # a statement that may run after a block ends, and whether only on some paths


def _dead(tree: ast.Module) -> dict[tuple[str, str, int], _Dead]:
    """Every plain def/class that a later statement of its scope replaces: one in the same block
    or in a block that runs after it (after the enclosing if/try/with/loop ends), directly or
    on some path (inside a later if/try/loop: `def f` ... `if cond: def f`)."""
    out: dict[tuple[str, str, int], _Dead] = {}
    nth: dict[tuple[str, str], int] = {}
    work: list[tuple[str, list[ast.stmt], tuple[_Next, ...]]] = [("<module>", tree.body, ())]
    while work:
        qual, stmts, after = work.pop()
        for j, s in enumerate(stmts):
            rest = tuple((x, False) for x in stmts[j + 1 :]) + after
            if isinstance(s, _DEFS):
                k = (qual, s.name)
                nth[k] = nth.get(k, 0) + 1
                if _plain(s):
                    found = _replacer(s, rest)
                    if found is not None:
                        key = (qual, s.name, nth[k] - 1)
                        out[key] = _Dead(key, s, *found)
                inner = s.name if qual == "<module>" else f"{qual}.{s.name}"
                work.append((inner, s.body, ()))
                continue
            if isinstance(s, ast.If) and _typing_block(s):  # its body never runs: it replaces nothing
                work.append((qual, s.orelse, rest))
                continue
            handlers = getattr(s, "handlers", ())
            final = tuple((x, False) for x in getattr(s, "finalbody", ()))
            if handlers:  # try: a handler may run after part of the body; else and finally after it
                caught = tuple((x, True) for h in handlers for x in h.body)
                orelse = tuple((x, False) for x in getattr(s, "orelse", ()))
                work.append((qual, getattr(s, "body", []), caught + orelse + final + rest))
                work.extend((qual, h.body, final + rest) for h in handlers)
                work.append((qual, getattr(s, "orelse", []), final + rest))
                work.append((qual, getattr(s, "finalbody", []), rest))
            elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                orelse = tuple((x, False) for x in s.orelse)
                work.append((qual, s.body, orelse + rest))
                work.append((qual, s.orelse, rest))
            else:
                for f in ("body", "orelse", "finalbody"):
                    part = getattr(s, f, None)
                    if isinstance(part, list) and part and isinstance(part[0], ast.stmt):
                        work.append((qual, part, rest))
                work.extend((qual, c.body, rest) for c in getattr(s, "cases", ()))
    return out


def _replacer(d: ast.stmt, rest: tuple[_Next, ...]) -> tuple[ast.stmt, tuple[ast.AST, ...], bool] | None:
    """(the statement that replaces `d`, what runs between them, only on some paths), or None."""
    name = d.name  # type: ignore[attr-defined]
    between: list[ast.AST] = []
    for s, some in rest:
        if _rebinds(s, name):
            return s, tuple(between), some
        nested = _nested_rebind(s, name) if not isinstance(s, _DEFS) else None
        if nested is not None:
            return nested, (*between, *_before(s, nested)), True
        if not some:
            between.extend(_certain(s))
    return None


def _certain(s: ast.stmt) -> Iterator[ast.AST]:
    """What of `s` runs whenever `s` does: a read there keeps an earlier definition alive. A read on
    some paths only (inside an `if`, a handler, a def's body) does not: on the others it is dead."""
    if isinstance(s, _DEFS):
        yield from s.decorator_list
        if isinstance(s, ast.ClassDef):
            yield from (*s.bases, *s.keywords)
        else:
            yield from (d for d in (*s.args.defaults, *s.args.kw_defaults) if d is not None)
    elif isinstance(s, ast.If):
        yield s.test
    elif isinstance(s, (ast.For, ast.AsyncFor)):
        yield s.iter
    elif isinstance(s, ast.While):
        yield s.test
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        yield from s.items
        for x in s.body:
            yield from _certain(x)
    elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        for x in (*getattr(s, "body", ()), *getattr(s, "finalbody", ())):
            yield from _certain(x)
    elif type(s).__name__ == "Match":
        yield s.subject  # type: ignore[attr-defined]
    else:
        yield s


def _before(s: ast.stmt, nested: ast.stmt) -> tuple[ast.AST, ...]:
    """What of compound `s` surely runs before `nested` replaces the definition: its own header
    (an `if` test, a `with` item), nothing of its bodies."""
    return tuple(x for x in _certain(s) if not isinstance(x, ast.stmt) and getattr(x, "lineno", 0) <= nested.lineno)


def _plain(node: ast.stmt) -> bool:
    """No decorator that could keep (register) the definition somewhere."""
    for d in getattr(node, "decorator_list", ()):
        target = d.func if isinstance(d, ast.Call) else d
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        if name not in _PURE_DECORATORS:
            return False
    return True


def _read_in(nodes: tuple[ast.AST, ...], name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for node in nodes
        for n in ast.walk(node)
    )


def dead_changes(before: Placement, after: Placement) -> list[str]:
    """Definitions the patch changes that a later statement of the same block replaces."""
    out = []
    for key, d in after.dead.items():
        o = before.dead.get(key)
        if o is not None and o.dump == d.dump or d.alive:
            continue
        block = "at module level" if key[0] == "<module>" else f"in {key[0]}"
        if d.conditional:
            out.append(
                f"it changes `{key[1]}` (line {d.line}, {block}), which line {d.later_line} replaces on some paths "
                "(a conditional redefinition): the code that runs may be the later one"
            )
        else:
            out.append(
                f"it changes `{key[1]}` (line {d.line}, {block}), which line {d.later_line} replaces: "
                "the running code is the later one"
            )
    return out


def unreachable_changes(before: Placement, after: Placement) -> list[str]:
    """Code the patch adds or changes where it can never run: after a return/raise/continue/break."""
    old: dict[tuple[str, str], int] = {}
    for u in before.unreachable:
        old[u.scope, u.dump] = old.get((u.scope, u.dump), 0) + 1
    out = []
    for u in after.unreachable:
        if old.get((u.scope, u.dump), 0):
            old[u.scope, u.dump] -= 1
            continue
        block = "at module level" if u.scope == "<module>" else f"in {u.scope}"
        out.append(
            f"its code at line {u.line} ({block}) is unreachable: line {u.after} returns, raises, breaks or "
            "continues before it, so it never runs"
        )
    return out


def first_failing(count: int, failing: Callable[[int], bool]) -> int | None:
    """The first k in 1..count with failing(k) (which rewrite, applied in order, causes it)."""
    return next((k for k in range(1, count + 1) if failing(k)), None)

"""Live versus dead definitions: a rewrite must not change a `def`/`class` that a later statement of
its scope replaces: in the same block or in one that runs after it (`def f` ... `def f` again,
`f = ...`, `from x import f`, `if (f := g):`), or on some path only (`if cond: def f`, a try's fallback, a loop
body). A definition whose name is read by something that surely runs in between (`@f.setter`,
`register(f)`), or that has a decorator radpatch does not know (it may register it), is alive.
Only the definitions that could be dead are compared (with ast.dump) between the original and
the patch. A later module-level attribute store replaces a definition too: `stores`."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .guards import type_checking_names
from .later_binds import _Known, _nested_rebind, _never_runs, _rebinds, _surely_binds
from .shadowing import DEFS, walrus

if TYPE_CHECKING:
    from . import Placement

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
class DeadDef:
    """A def/class a later statement of its block replaces, as far as the dead-code proof needs it."""

    dump: str  # ast.dump of the definition: compared between the original and the patch
    line: int
    later_line: int
    alive: bool  # its name is read before it is replaced (`@f.setter`, `register(f)`): it runs
    conditional: bool = False  # replaced on some paths only (`if cond: def f`, a try's fallback)
    part: str = ""  # what of it a later attribute store replaces ("defaults"), when not all of it


def dead_definitions(tree: ast.Module) -> dict[tuple[str, str, int], DeadDef]:
    """Every plain def/class a later statement of its scope replaces, keyed by (scope, name, n-th
    definition of that name in the scope)."""
    dead = {}
    for key, d in _dead(tree).items():
        later = d.later
        uses: tuple[ast.AST, ...] = (
            *d.between,
            *getattr(later, "decorator_list", ()),
            *([later.value] if isinstance(later, ast.Assign) else []),
            *(n.value for n in walrus(later)),  # `if (f := wrap(f)):` keeps f's code running
        )
        dead[key] = DeadDef(ast.dump(d.node), d.node.lineno, later.lineno, _read_in(uses, key[1]), d.conditional)
    return dead


@dataclass(frozen=True)
class _Dead:
    key: tuple[str, str, int]  # (scope, name, n-th definition of that name in the scope, in source order)
    node: ast.stmt
    later: ast.stmt
    between: tuple[ast.AST, ...]
    conditional: bool  # the later statement replaces it on some paths only


_Next = tuple[ast.stmt, bool]  # a statement that may run after a block ends, and whether only on some paths


def _dead(
    tree: ast.Module, keys: dict[tuple[str, str, int], ast.stmt] | None = None
) -> dict[tuple[str, str, int], _Dead]:
    """Every plain def/class that a later statement of its scope replaces: one in the same block
    or in a block that runs after it (after the enclosing if/try/with/loop ends), directly or
    on some path (inside a later if/try/loop: `def f` ... `if cond: def f`). `keys`, when given,
    gets every definition by its key."""
    out: dict[tuple[str, str, int], _Dead] = {}
    aliases = type_checking_names(tree)
    nth: dict[tuple[str, str], int] = {}
    known: _Known = {}  # what each statement binds: each read once, not once per earlier def
    work: list[tuple[str, list[ast.stmt], tuple[_Next, ...]]] = [("<module>", tree.body, ())]
    classes: set[str] = set()  # quals of class bodies: there locals() is the class namespace
    while work:
        qual, stmts, after = work.pop()
        in_class = qual in classes
        for j, s in enumerate(stmts):
            rest = tuple((x, False) for x in stmts[j + 1 :]) + after
            if isinstance(s, DEFS):
                k = (qual, s.name)
                nth[k] = nth.get(k, 0) + 1
                if keys is not None:
                    keys[(qual, s.name, nth[k] - 1)] = s
                if _plain(s):
                    found = _replacer(s, rest, aliases, in_class, known)
                    if found is not None:
                        key = (qual, s.name, nth[k] - 1)
                        out[key] = _Dead(key, s, *found)
                inner = s.name if qual == "<module>" else f"{qual}.{s.name}"
                if isinstance(s, ast.ClassDef):
                    classes.add(inner)
                else:
                    classes.discard(inner)
                work.append((inner, s.body, ()))
                continue
            dead = _never_runs(s, aliases)
            if isinstance(s, ast.If) and dead is not None:  # that branch replaces nothing
                work.append((qual, s.orelse if dead is s.body else s.body, rest))
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


def _replacer(
    d: ast.stmt, rest: tuple[_Next, ...], aliases: Collection[str], in_class: bool = False, known: _Known | None = None
) -> tuple[ast.stmt, tuple[ast.AST, ...], bool] | None:
    """(the statement that replaces `d`, what runs between them, only on some paths), or None.
    `in_class`: `d` is in a class body."""
    name = d.name  # type: ignore[attr-defined]
    ran: list[ast.stmt] = []  # what surely runs in between, read for its parts only once found

    def between() -> tuple[ast.AST, ...]:
        return tuple(x for r in ran for x in _certain(r))

    for s, some in rest:
        if _rebinds(s, name, in_class, known):
            return s, between(), some or not _surely_binds(s, name)
        nested = _nested_rebind(s, name, aliases, in_class, known) if not isinstance(s, DEFS) else None
        if nested is not None:
            return nested, (*between(), *_before(s, nested)), True
        if not some:
            ran.append(s)
    return None


def _certain(s: ast.stmt) -> Iterator[ast.AST]:
    """What of `s` runs whenever `s` does: a read there keeps an earlier definition alive. A read on
    some paths only (inside an `if`, a handler, a def's body) does not: on the others it is dead."""
    if isinstance(s, DEFS):
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
    """Definitions the patch changes that a later statement of the same block replaces, or that a later
    module-level attribute store replaces (`C.f = ...`, `f.__defaults__ = ...`)."""
    out = []
    for key, d in after.stored.items():
        o = before.stored.get(key)
        if o is not None and o.dump == d.dump:
            continue
        what = f"`{key[1]}`" if key[0] == "<module>" else f"`{key[0]}.{key[1]}`"
        how = "on some paths " if d.conditional else ""
        part = f"the {d.part} of " if d.part in ("defaults", "keyword defaults") else ""
        out.append(
            f"it changes {part}{what} (line {d.line}), which a module-level store at line {d.later_line} "
            f"replaces {how}(an attribute assignment, setattr or globals()): what runs is what is stored there"
        )
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


# Attribute stores at module level that replace a definition after it runs: `C.f = ...`,
# `setattr(C, "f", ...)`, `del C.f`, `globals()["f"] = ...`, `setattr(sys.modules[__name__], "f", ...)`,
# or, of a function, the part `f.__defaults__` / `f.__kwdefaults__` / `f.__code__` names.

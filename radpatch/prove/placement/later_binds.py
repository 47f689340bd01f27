"""What a later statement binds in its scope (a def or class, an assignment, a `match` capture, a
store through `locals()`/`vars()` in a class body), and the statements inside a compound one that
may run (not a branch under `if TYPE_CHECKING:`): for `live`'s walk of the definitions a later
statement replaces, and `stores`."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

from .aliases import chain
from .guards import type_checking
from .shadowing import DEFS, binds


def _rebinds(s: ast.stmt, name: str, in_class: bool = False, known: _Known | None = None) -> bool:
    """Does `s` bind `name` in its scope? `in_class`: `s` is in a class body, where `locals()` and
    `vars()` are the class namespace (`locals()["m"] = g` replaces the method m). `known`: the
    names each statement binds, read once per statement (for one tree)."""
    if known is None:
        return name in _bound(s, in_class)
    key = (id(s), in_class, 0)
    if key not in known:
        known[key] = _bound(s, in_class)
    return name in known[key]


_Known = dict[tuple[int, bool, int], frozenset[str]]


def _bound(s: ast.stmt, in_class: bool) -> frozenset[str]:
    """Every name `s` binds in its scope, as _rebinds asks."""
    if isinstance(s, DEFS):
        return frozenset({s.name})
    out = set(_captures(s)) if type(s).__name__ == "Match" else set()  # `case f:` binds f
    if in_class:
        out |= _namespace_stores(s)
    if not isinstance(s, ast.AugAssign):
        out.update(b.name for b in binds(s))
    return frozenset(out)


def _captures(s: ast.stmt) -> set[str]:
    """The names a `match` statement's patterns capture (`case f:`, `case [*f]:`, `case {**f}:`)."""
    out = set()
    for case in getattr(s, "cases", ()):
        for n in ast.walk(case.pattern):
            name = getattr(n, "name", None) or getattr(n, "rest", None)
            if isinstance(name, str):
                out.add(name)
    return out


def _surely_binds(s: ast.stmt, name: str) -> bool:
    """False for a `match` whose capture of `name` runs on some paths only: any but a first
    `case name:` with no guard (another case may match first, a pattern may fail); and for a `try`
    whose handler binds `name` (`except E as f:`, which unbinds f when it ends): only when E is raised."""
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        return False
    if type(s).__name__ != "Match":
        return True
    first = s.cases[0]  # type: ignore[attr-defined]
    pattern = first.pattern
    return first.guard is None and getattr(pattern, "pattern", 0) is None and getattr(pattern, "name", None) == name


def _namespace_stores(s: ast.stmt) -> set[str]:
    """The literal names `s` stores through `locals()`/`vars()` (in a class body: the class
    namespace): `locals()["m"] = g`, `vars().update(m=g)`, `locals().__setitem__("m", g)`."""
    out: set[str] = set()
    if isinstance(s, ast.Assign):
        for t in s.targets:
            if isinstance(t, ast.Subscript) and _locals_call(t.value) and isinstance(t.slice, ast.Constant):
                out.add(str(t.slice.value))
    call = s.value if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) else None
    if call is not None and isinstance(call.func, ast.Attribute) and _locals_call(call.func.value):
        if call.func.attr == "update":
            out.update(kw.arg for kw in call.keywords if kw.arg)
            for a in call.args:
                if isinstance(a, ast.Dict):
                    out.update(str(k.value) for k in a.keys if isinstance(k, ast.Constant))
        elif call.func.attr == "__setitem__" and call.args and isinstance(call.args[0], ast.Constant):
            out.add(str(call.args[0].value))
    return out


def _locals_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and not node.args and chain(node.func) in ("locals", "vars", "builtins.locals")


def _never_runs(s: ast.stmt, aliases: Collection[str]) -> list[ast.stmt] | None:
    """The branch of an `if` that never runs at run time, by the TYPE_CHECKING guard predicate: the
    body of `if TYPE_CHECKING:` (an alias of it, `TYPE_CHECKING and ...`), the `else` of `if not
    TYPE_CHECKING:`; None for any other statement."""
    if not isinstance(s, ast.If):
        return None
    truth = type_checking(s.test, aliases)
    return None if truth is None else s.body if truth else s.orelse


def _runs(s: ast.stmt, aliases: Collection[str]) -> list[list[ast.stmt]]:
    """The statement lists of compound `s` that may run (all but a branch that never runs)."""
    dead = _never_runs(s, aliases)
    parts: list[list[ast.stmt]] = [getattr(s, f, None) or [] for f in ("body", "orelse", "finalbody")]
    parts += [h.body for h in getattr(s, "handlers", ())] + [c.body for c in getattr(s, "cases", ())]
    return [p for p in parts if p is not dead]


def _nested_rebind(
    s: ast.stmt, name: str, aliases: Collection[str], in_class: bool = False, known: _Known | None = None
) -> ast.stmt | None:
    """A statement inside compound `s` (in its scope: not in a def/class body, not under `if
    TYPE_CHECKING:`) that binds `name`: it replaces an earlier definition on the paths through it.
    With `known`, the names bound anywhere inside `s` are read once, and `s` skipped when `name` is not one."""
    if known is not None:
        key = (id(s), in_class, 1)  # 1: names bound inside s, unlike _rebinds' own keys
        if key not in known:
            known[key] = frozenset(n for x in _inside(s, aliases) for n in _bound(x, in_class))
        if name not in known[key]:
            return None
    stack: list[ast.stmt] = [s]
    while stack:
        x = stack.pop()
        if x is not s and _rebinds(x, name, in_class, known):
            return x
        if isinstance(x, DEFS):
            continue
        for part in reversed(_runs(x, aliases)):
            stack.extend(reversed([y for y in part if isinstance(y, ast.stmt)]))
    return None


def _inside(s: ast.stmt, aliases: Collection[str]) -> Iterator[ast.stmt]:
    """The statements inside compound `s` that _nested_rebind reads."""
    stack: list[ast.stmt] = [s]
    while stack:
        x = stack.pop()
        if x is not s:
            yield x
        if not isinstance(x, DEFS):
            stack.extend(y for part in _runs(x, aliases) for y in part if isinstance(y, ast.stmt))

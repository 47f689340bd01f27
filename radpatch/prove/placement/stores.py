"""Later module-level attribute stores that replace a definition (`C.f = ...`,
`setattr(C, "f", ...)`, `globals()["f"] = ...`, `f.__defaults__ = ...`: stored_definitions), also
through an alias of the namespace or of the module (`_g = globals()`, `import pkg.mod as _me`:
module_aliases), in a module-level class body, or from a named lambda the module calls; and the
module's statements as they run (`module_statements`, `class_bodies`), which `rebinding` reads too."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace

from .aliases import Aliases, chain, collect, namespace
from .calls import call_stores, lambda_calls, module_calls, named_lambdas
from .guards import type_checking_names
from .later_binds import _runs
from .live import DeadDef, _dead
from .shadowing import DEFS

_PARTS = {"__defaults__": "defaults", "__kwdefaults__": "keyword defaults", "__code__": "code"}
# A replaced `__code__` keeps the function's defaults, which the new code may or may not read: the
# whole definition counts as replaced.


@dataclass(frozen=True)
class _Store:
    key: tuple[str, str]  # (scope, name) of the definition it replaces
    part: str  # "" for the whole definition, else a _PARTS value
    node: ast.stmt
    conditional: bool


def stored_definitions(tree: ast.Module, module: tuple[str, bool] | None = None) -> dict[tuple[str, str, int], DeadDef]:
    """Every def (module level, or in a class reachable from the module by name) that a later
    module-level statement replaces by an attribute store, keyed as dead_definitions keys it.
    Kept alive when what runs before the store, or its value, reads the definition (`C.f =
    wrap(C.f)`, `_orig = C.f`): its code still runs. A replaced part (`__defaults__`) is compared
    alone: a change elsewhere in the function still runs. A store through an alias of the module or
    of its namespace (`_g = globals()`, `_self = sys.modules[__name__]`, `import pkg.mod as _me`:
    module_aliases; `module` is (dotted name, is a package)) counts as the direct form."""
    keys: dict[tuple[str, str, int], ast.stmt] = {}
    _dead(tree, keys)
    classes: set[str] = set()  # classes reachable from the module by name: C, C.D
    for (scope, name, _), node in sorted(keys.items(), key=lambda kv: kv[0][0].count(".")):
        if isinstance(node, ast.ClassDef) and (scope == "<module>" or scope in classes):
            classes.add(name if scope == "<module>" else f"{scope}.{name}")
    aliases = module_aliases(tree, module)
    stores = list(_stores(tree, classes, aliases))
    if not stores:
        return {}
    top = _module_statements(tree)
    out: dict[tuple[str, str, int], DeadDef] = {}
    for key, node in keys.items():
        for st in stores:
            if st.key != key[:2] or st.node.lineno <= _end(node):
                continue
            if not st.part:
                ran = [x for x, _ in top if node.lineno < x.lineno < st.node.lineno] + [st.node]
                if _reads(ran, key, aliases):
                    continue
            dump = _part_dump(node, st.part)
            out[key] = DeadDef(dump, node.lineno, st.node.lineno, False, st.conditional, st.part)
            break
    return out


def _end(node: ast.stmt) -> int:
    return getattr(node, "end_lineno", None) or node.lineno


def _part_dump(node: ast.stmt, part: str) -> str:
    args = getattr(node, "args", None)
    if part == "defaults" and args is not None:
        return ast.dump(ast.Tuple(list(args.defaults), ast.Load()))
    if part == "keyword defaults" and args is not None:
        return ast.dump(ast.Tuple([d for d in args.kw_defaults if d is not None], ast.Load()))
    return ast.dump(node)


def _module_statements(tree: ast.Module, aliases: Collection[str] | None = None) -> list[tuple[ast.stmt, bool]]:
    """Module-level statements, in source order, with those inside if/try/with/loops (not def/class
    bodies, not a branch that never runs: `if TYPE_CHECKING:`), each with whether it runs on some
    paths only. `aliases`: the module's other names for TYPE_CHECKING, when `tree` is only a part of
    it (a class body)."""
    if aliases is None:
        aliases = type_checking_names(tree)
    out: list[tuple[ast.stmt, bool]] = []
    stack: list[tuple[ast.stmt, bool]] = [(s, False) for s in reversed(tree.body)]
    while stack:
        s, some = stack.pop()
        out.append((s, some))
        if isinstance(s, DEFS):
            continue
        inner = some or not isinstance(s, (ast.With, ast.AsyncWith))
        for part in reversed(_runs(s, aliases)):
            stack.extend(reversed([(x, inner) for x in part if isinstance(x, ast.stmt)]))
    return out


def class_bodies(s: ast.stmt) -> list[tuple[ast.stmt, bool]]:
    """The statements of class `s`'s body that run when its `class` statement runs (and of the
    classes nested there), as _module_statements gives them; empty for another statement. Their
    `globals()` is the module's namespace, their `locals()` and `vars()` the class's own."""
    out: list[tuple[ast.stmt, bool]] = []
    todo = [(s, False)]
    while todo:
        c, some = todo.pop()
        if not isinstance(c, ast.ClassDef):
            continue
        for x, inner in _module_statements(ast.Module(body=c.body, type_ignores=[])):
            out.append((x, some or inner))
            todo.append((x, some or inner))
    return out


def module_aliases(tree: ast.Module, module: tuple[str, bool] | None = None) -> Aliases:
    """The Aliases of `tree` (aliases.collect over its module-level statements); `module`: its
    (dotted name, is a package), for imports of itself."""
    return collect([s for s, _ in _module_statements(tree)], module)


def _store_key(owner: str | None, attr: str, classes: set[str]) -> tuple[tuple[str, str], str] | None:
    """What a store of `attr` on `owner` replaces: ((scope, name), part), or None."""
    if owner is None:
        return None
    if owner == "<module>":
        return ("<module>", attr), ""
    if attr in _PARTS:  # f.__defaults__, C.m.__code__: a part of the function `owner`
        scope, _, name = owner.rpartition(".")
        return (scope or "<module>", name), _PARTS[attr]
    if owner in classes:
        return (owner, attr), ""
    return None


def _stores(tree: ast.Module, classes: set[str], aliases: Aliases) -> Iterator[_Store]:
    statements = _module_statements(tree)
    lambdas = named_lambdas(s for s, _ in statements)
    inside = replace(aliases, in_function=True)  # a class body's or a lambda's `locals()` is its own
    for top, some in statements:
        for s, more in [(top, some), *((x, some or inner) for x, inner in class_bodies(top))]:
            for call in lambda_calls(s, lambdas):  # a named lambda called there, a class body too
                yield from _call_stores(call, inside, classes, top, more)
            yield from _statement_stores(s, more, classes, aliases if s is top else inside, top)


def _call_stores(call: ast.Call, aliases: Aliases, classes: set[str], s: ast.stmt, some: bool) -> Iterator[_Store]:
    for owner, key in call_stores(call, aliases):
        if key is None:
            continue  # a name radpatch cannot read: the rebinding proof refuses it
        found = (("<module>", key), "") if owner is None else _store_key(chain(owner, aliases), key, classes)
        if found is not None:
            yield _Store(found[0], found[1], s, some)


def _statement_stores(s: ast.stmt, some: bool, classes: set[str], aliases: Aliases, top: ast.stmt) -> Iterator[_Store]:
    """What `s` stores, each recorded as a store by `top`, the module-level statement it runs in."""
    targets: list[ast.expr] = []
    if isinstance(s, ast.Assign):
        targets = list(s.targets)
    elif isinstance(s, ast.AnnAssign) and s.value is not None:
        targets = [s.target]
    elif isinstance(s, ast.Delete):
        targets = list(s.targets)
    flat: list[ast.expr] = []
    while targets:
        t = targets.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            targets.extend(t.elts)
        else:
            flat.append(t)
    for t in flat:
        found = None
        if isinstance(t, ast.Attribute):
            found = _store_key(chain(t.value, aliases), t.attr, classes)
        elif (
            isinstance(t, ast.Subscript)
            and namespace(t.value, aliases)
            and isinstance(t.slice, ast.Constant)
            and isinstance(t.slice.value, str)
        ):
            found = ("<module>", t.slice.value), ""
        if found is not None:
            yield _Store(found[0], found[1], top, some)
    for call in module_calls(s):
        yield from _call_stores(call, aliases, classes, top, some)


def _reads(nodes: list[ast.stmt], key: tuple[str, str, int], aliases: Aliases) -> bool:
    """Does any of `nodes` read the definition `key` names (`C.f`, `f`, `getattr(C, "f")`)? A store's
    own target is not a read."""
    scope, name = key[0], key[1]
    want = name if scope == "<module>" else f"{scope}.{name}"
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load) and chain(n, aliases) == want:
                return True
            if (
                isinstance(n, ast.Call)
                and chain(n.func) == "getattr"
                and len(n.args) >= 2
                and chain(n.args[0], aliases) == scope
                and isinstance(n.args[1], ast.Constant)
                and n.args[1].value == name
            ):
                return True
    return False

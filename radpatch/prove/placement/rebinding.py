"""Later dynamic rebinding: a module-level statement after the binding a patch adds or changes
may replace it by a name radpatch cannot read from the code: a star import (`from .local import
*`, Django's settings pattern), `globals().update(...)`, `vars()[name] = ...` or `locals()[name] =
...` (at module level both are `globals()`), `setattr(C, name,
...)` or `setattr(sys.modules[__name__], name, ...)` with a computed name, `exec(...)`. With a
literal name (`globals().update(X=7)`, `setattr(mod, "X", ...)`) it replaces that name only.
The patch's binding is then what runs only if the later statement does not bind it: refused,
unless a star import's module provably does not bind the name (`star_binds`: prove.star_exports,
one rule for its source read without importing it from the target's path, or, in verify, from the
release's wheel). Stores inside functions (run when called) are followed into the module-level
functions the module calls at module level by their name, transitively (`_boot()` calls `_setup()`,
which stores: reached.ModuleCode and Summaries, each function once, no depth limit), through a
decorator, `with`, an alias or an instance of a module class too, also from a
module-level class body (`class K: _setup()`), into the methods creating or calling a class of the
module runs (a metaclass's `__new__`/`__init__`, a base's `__init_subclass__`), and into what a class
body stores of the names it declares `global`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .aliases import Aliases, chain, in_body, namespace
from .calls import _literal, call_stores, lambda_calls, module_calls, named_lambdas
from .guards import type_checking_names
from .reached import ModuleCode, Summaries
from .shadowing import DEFS, binds
from .store_calls import global_enum_names
from .stores import _module_statements, class_bodies, module_aliases

if TYPE_CHECKING:
    from . import Placement
    from .reached import Function

# (star import's level, module), name -> does that module bind name? None when it cannot tell
StarBinds = Callable[[tuple[int, "str | None"], str], "bool | None"]


@dataclass(frozen=True)
class Rebinder:
    """A module-level statement that may bind names of `owner` radpatch cannot list."""

    owner: str  # "<module>", or a class reachable from the module by name ("C", "C.D")
    line: int
    what: str  # the statement, shortened, for the message
    names: frozenset[str] | None  # the names it binds; None: it may bind any
    star: tuple[int, str | None] | None  # a star import's (level, module)
    conditional: bool  # it runs on some paths only
    reads: frozenset[str] = frozenset()  # what it reads (`f`, `C.f`): a store that wraps the old value keeps it


def rebinders(tree: ast.Module, module: tuple[str, bool] | None = None) -> tuple[Rebinder, ...]:
    """`module`: (dotted name, is a package), to see a store through an import of the module itself."""
    out: list[Rebinder] = []
    classes = _classes(tree)
    aliases = module_aliases(tree, module)
    statements = _module_statements(tree)
    lambdas = named_lambdas(s for s, _ in statements)
    runs = ModuleCode(s for s, _ in statements)
    summaries = Summaries(runs, lambda f: _function_stores(f, classes, aliases, lambdas), _join)
    inside = replace(aliases, in_function=True)  # a class body's or a lambda's `locals()` is its own

    def reached(node: ast.AST) -> tuple[list[Found], frozenset[str]]:
        """What the module's functions and methods `node` runs, transitively, store and read."""
        found, reads = summaries.of(node)
        return list(found), reads

    for s, some in statements:
        found = list(_rebinds(s, classes, aliases))
        bodies = [x for x, _ in class_bodies(s)]
        for x in bodies:  # a module-level class body runs at import: `globals()['X'] = 2` there
            found += _rebinds(x, classes, inside)
        found += _class_globals(s)  # `class K: global X; X = 2`
        reads = _reads(s, aliases)
        for x in [s, *bodies]:  # what s runs, its class bodies too, may call a storing lambda
            for call in lambda_calls(x, lambdas):  # `_cb = lambda: globals().update(X=2)`, then `_cb()`
                found += _call_rebinds(call, classes, inside)
            for name in _calls(x) & lambdas.keys():  # what a called lambda stores may be what it reads
                body = ast.Expr(value=lambdas[name].body)
                reads |= _reads(body, inside)
                more, read = reached(body)  # `_cb = lambda: _setup()`, then `_cb()`
                found += more
                reads |= read
        more, read = reached(s)  # the functions s calls, transitively; the class it creates, its hooks
        found += more
        reads |= read
        for owner, names, star in found:
            text = ast.unparse(s).splitlines()[0] if not isinstance(s, DEFS) else _header(s)
            what = text if len(text) <= 60 else text[:57] + "..."
            out.append(Rebinder(owner, s.lineno, what, names, star, some, reads))
    return tuple(out)


def _join(parts: Iterable[tuple[tuple[Found, ...], frozenset[str]]]) -> tuple[tuple[Found, ...], frozenset[str]]:
    """What several functions store (each once, in order) and read."""
    pairs = list(parts)
    found = dict.fromkeys(x for f, _ in pairs for x in f)
    return tuple(found), frozenset(x for _, r in pairs for x in r)


def _header(s: ast.stmt) -> str:
    """`@register def g` for a decorated def or class, `class K` for a class."""
    kind = "class" if isinstance(s, ast.ClassDef) else "def"
    decorators = "".join(f"@{ast.unparse(d)} " for d in getattr(s, "decorator_list", ()))
    return f"{decorators}{kind} {getattr(s, 'name', '')}"


def _function_stores(
    f: Function, classes: set[str], aliases: Aliases, lambdas: Mapping[str, ast.Lambda]
) -> tuple[tuple[Found, ...], frozenset[str]]:
    """What a function of the module (or a method: reached.ModuleCode) stores of the module's names when
    it runs (`global X; X = ...`, `globals()['X'] = ...` in its body, nested code too, or in a named
    lambda (`lambdas`) the body calls), and what it reads. What it calls is reached.ModuleCode's to follow."""
    declared = {n for x in ast.walk(f) if isinstance(x, ast.Global) for n in x.names}
    names = [x for x in ast.walk(f) if isinstance(x, ast.Name) and not isinstance(x.ctx, ast.Load)]
    stored = {x.id for x in names if x.id in declared}
    for x in ast.walk(f):
        if x is not f and isinstance(x, DEFS) and x.name in declared:
            stored.add(x.name)
        elif isinstance(x, (ast.Import, ast.ImportFrom)):
            stored.update(b for a in x.names if (b := a.asname or a.name.split(".")[0]) in declared)
    found: list[Found] = [("<module>", frozenset(stored), None)] if stored else []
    inside = in_body(aliases, f)  # its `locals()` is its own; `_g = globals()` in it counts
    through = {n.func.id for n in ast.walk(f) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    bodies = [ast.Expr(value=lambdas[n].body) for n in sorted(through & lambdas.keys())]
    for x in ast.walk(f):
        if x is not f and isinstance(x, ast.stmt):
            found += _rebinds(x, classes, inside)
    for body in bodies:  # `def _run(): _cb()` with `_cb = lambda: globals().update(X=2)`
        found += _rebinds(body, classes, inside)
    if not found:
        return (), frozenset()
    loads = [n for x in (f, *bodies) for n in ast.walk(x)]
    return tuple(found), frozenset(n.id for n in loads if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))


def _class_globals(s: ast.stmt) -> Iterator[Found]:
    """What the body of class `s` (or of a class nested there) binds of the module's names it declares
    `global` there (`class K: global f; f = g`): the body runs at import."""
    todo = [s]
    while todo:
        c = todo.pop()
        if not isinstance(c, ast.ClassDef):
            continue
        body = [x for x, _ in _module_statements(ast.Module(body=c.body, type_ignores=[]))]
        declared = {n for x in body if isinstance(x, ast.Global) for n in x.names}
        stored = {b.name for x in body for b in binds(x) if b.name in declared}
        if stored:
            yield "<module>", frozenset(stored), None
        todo.extend(x for x in body if isinstance(x, ast.ClassDef))


def _calls(s: ast.stmt) -> set[str]:
    """The names `s` itself calls at module level (in its own expressions: not in a def, class or lambda body)."""
    out: set[str] = set()
    stack: list[ast.AST] = [s]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            out.add(n.func.id)
        if isinstance(n, ast.Lambda) or (n is not s and isinstance(n, ast.stmt)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return out


def bindings(tree: ast.Module, owners: set[str]) -> dict[tuple[str, str], tuple[tuple[int, str], ...]]:
    """Per (owner, name): the (line, ast.dump) of each statement binding it, for `owners` only."""
    out: dict[tuple[str, str], list[tuple[int, str]]] = {}
    aliases = type_checking_names(tree)
    blocks: list[tuple[str, list[ast.stmt]]] = [("<module>", tree.body)]
    while blocks:
        owner, body = blocks.pop()
        for s, _ in _module_statements(ast.Module(body=body, type_ignores=[]), aliases):
            if owner in owners:
                for b in binds(s):
                    out.setdefault((owner, b.name), []).append((s.lineno, ast.dump(s)))
            if isinstance(s, ast.ClassDef):
                blocks.append((s.name if owner == "<module>" else f"{owner}.{s.name}", s.body))
    return {k: tuple(v) for k, v in out.items()}


def _classes(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    aliases = type_checking_names(tree)
    blocks: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    while blocks:
        prefix, body = blocks.pop()
        for s, _ in _module_statements(ast.Module(body=body, type_ignores=[]), aliases):
            if isinstance(s, ast.ClassDef):
                out.add(prefix + s.name)
                blocks.append((prefix + s.name + ".", s.body))
    return out


def _reads(s: ast.stmt, aliases: Aliases) -> frozenset[str]:
    """What running `s` reads: not a def's body (`@register def g(): return X` does not read X now)."""
    out = set()
    stack: list[ast.AST] = [s]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load):
            dotted = chain(n, aliases)
            if dotted is not None:
                out.add(dotted)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend([*n.decorator_list, n.args, *([n.returns] if n.returns else [])])
            continue
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(out)


def _owner(node: ast.expr, classes: set[str], aliases: Aliases) -> str | None:
    dotted = chain(node, aliases)
    return dotted if dotted == "<module>" or dotted in classes else None


Found = tuple[str, "frozenset[str] | None", "tuple[int, str | None] | None"]


def _rebinds(s: ast.stmt, classes: set[str], aliases: Aliases) -> Iterator[Found]:
    if isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names):
        yield "<module>", None, (s.level, s.module)
        return
    exported = global_enum_names(s)  # `@enum.global_enum`: the class's members become the module's names
    if exported is None or exported:
        yield "<module>", exported, None
    targets: list[ast.expr] = []
    if isinstance(s, (ast.Assign, ast.Delete)):
        targets = list(s.targets)
    elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
        targets = [s.target]
    for t in targets:
        if isinstance(t, ast.Subscript) and namespace(t.value, aliases):
            key = _literal(t.slice)
            yield "<module>", None if key is None else frozenset({key}), None
        elif isinstance(t, ast.Attribute) and _owner(t.value, classes, aliases) is not None:
            yield _owner(t.value, classes, aliases) or "", frozenset({t.attr}), None
    if isinstance(s, ast.AugAssign) and namespace(s.target, aliases):  # `_g |= {...}`
        yield "<module>", None, None
    for call in module_calls(s):
        yield from _call_rebinds(call, classes, aliases)


def _call_rebinds(call: ast.Call, classes: set[str], aliases: Aliases) -> Iterator[Found]:
    for owner_node, key in call_stores(call, aliases):
        owner = "<module>" if owner_node is None else _owner(owner_node, classes, aliases)
        if owner is not None:
            yield owner, None if key is None else frozenset({key}), None


def rebound_changes(before: Placement, after: Placement, star_binds: StarBinds | None = None) -> list[str]:
    """Bindings the patch adds or changes that a later dynamic rebinding may replace."""
    if not after.rebinders:
        return []
    had: dict[tuple[tuple[str, str], str], int] = {}
    for key, entries in before.bound.items():
        for _, dump in entries:
            had[key, dump] = had.get((key, dump), 0) + 1
    out = []
    for key, entries in after.bound.items():
        for line, dump in entries:
            if had.get((key, dump), 0):
                had[key, dump] -= 1
                continue
            found = _first_rebinder(after.rebinders, key, line, star_binds)
            if found is None:
                continue
            r, star_bound = found
            owner, name = key
            what = f"`{name}`" if owner == "<module>" else f"`{owner}.{name}`"
            how = " on some paths" if r.conditional else ""
            if r.names is not None or star_bound:
                why = f"rebinds it{how}: the value that runs is the later one"
            elif r.star is not None:
                why = f"may rebind it{how} (radpatch cannot tell that the module it reads does not bind {what})"
            else:
                why = f"may rebind it{how} (radpatch cannot tell which names it binds)"
            out.append(f"it changes {what} (line {line}), and `{r.what}` at line {r.line} {why}")
            break
    return out


def _first_rebinder(
    found: tuple[Rebinder, ...], key: tuple[str, str], line: int, star_binds: StarBinds | None
) -> tuple[Rebinder, bool] | None:
    """The first later statement that may rebind `key`, and whether a star import's module surely binds it."""
    for r in found:
        if r.owner != key[0] or r.line <= line or (r.names is not None and key[1] not in r.names):
            continue
        if (key[1] if key[0] == "<module>" else f"{key[0]}.{key[1]}") in r.reads:
            continue  # its value reads the patched binding (`C.f = wrap(C.f)`): the change still runs
        told = star_binds(r.star, key[1]) if r.star is not None and star_binds is not None else None
        if told is False:
            continue  # the star-imported module was read and does not bind it
        return r, bool(told)
    return None

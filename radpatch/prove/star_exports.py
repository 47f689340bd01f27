"""Does `from M import *` bind a name? One rule, read from M's source without importing it, for
apply (M found on the target's import path, `path_reader`) and verify (M read from the release's
wheel, `wheel_reader`), so both judge a later star import the same way (rebinding.rebound_changes).

Python's rule: with `__all__`, exactly the names it lists; without it, every public name (no
leading `_`) in M's namespace. That namespace is what M binds at module level, what its own star
imports bind (followed, recursively), and, for a package, any submodule some import has loaded
(`pkg.sub` is set on the package). The answer is None (cannot tell) when M is not readable here
(another distribution's module in verify, an extension module, a module the patch itself
changes), binds names dynamically (`globals()`, `vars()`, `sys.modules`, `__dict__`, `__path__`),
edits `__all__` other than by literal lists, or when a followed star import cannot be told.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from radpatch.prove.names.import_lookup import resolved
from radpatch.prove.names.scope_bindings import Collector

_MAX_SOURCE = 4 << 20
_DEPTH = 8  # star imports followed through at most this many modules
_STAR = re.compile(rb"\bimport[ \t\\\r\n]*\*")  # a cheap test before parsing: a star import may be there


@dataclass(frozen=True)
class ModuleSource:
    """A module's source as a reader found it."""

    module: str  # its dotted name
    package: bool  # a package's `__init__` (its submodules are attributes too, once imported)
    data: bytes


Read = Callable[[str], "ModuleSource | None"]  # dotted module -> its source, None: not readable here
Submodule = Callable[[str, str], "bool | None"]  # (package, name) -> has it that submodule? None: cannot tell


def no_submodule_known(package: str, name: str) -> bool | None:
    return None


def star_binds(read: Read, module: str, name: str, submodule: Submodule = no_submodule_known) -> bool | None:
    """Does `from module import *` bind `name`? None when the sources cannot tell."""
    return _exports(read, module, name, submodule, ())


def _exports(read: Read, module: str, name: str, submodule: Submodule, seen: tuple[str, ...]) -> bool | None:
    if module in seen or len(seen) >= _DEPTH:
        return None  # a cycle of star imports, or too deep to follow
    found = read(module)
    facts = None if found is None else _facts(found.data)
    if found is None or facts is None:
        return None
    if facts.listed is not None and not facts.dynamic:
        return name in facts.listed  # `__all__`, literal lists only: exactly its names
    if facts.listed is None and not facts.dynamic and name.startswith("_"):
        return False  # without `__all__`, a star import takes public names only
    there = _attribute(read, found, facts, name, submodule, seen)
    if there is False:
        return False  # not in its namespace: `__all__` cannot list it (the import would fail)
    return True if there and facts.listed is None and not facts.dynamic else None


def _attribute(
    read: Read, found: ModuleSource, facts: _Facts, name: str, submodule: Submodule, seen: tuple[str, ...]
) -> bool | None:
    """Is `name` in the module's namespace once it ran?"""
    if facts.dynamic:
        return None
    if name in facts.bound:
        return True
    told: list[bool | None] = []
    for level, of in facts.stars:
        base = resolved(ast.ImportFrom(module=of, names=[], level=level), (found.module, found.package))
        told.append(None if base is None else _exports(read, base, name, submodule, (*seen, found.module)))
    if True in told:
        return True
    if None in told:
        return None
    if found.package and submodule(found.module, name) is not False:
        return None  # a submodule of that name is an attribute once imported
    return False


@dataclass(frozen=True)
class _Facts:
    listed: frozenset[str] | None  # what `__all__` may hold (literal lists); None: never set
    bound: frozenset[str]  # the names bound at module level (or declared `global`)
    stars: tuple[tuple[int, str | None], ...]  # its star imports' (level, module)
    dynamic: bool  # it binds names (or sets `__all__`) in ways the code does not spell


@functools.lru_cache(maxsize=16)
def _facts(data: bytes) -> _Facts | None:
    """What a module's source says of its namespace; None when it cannot be parsed."""
    if len(data) > _MAX_SOURCE:
        return None
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    stars: list[tuple[int, str | None]] = []
    dynamic = False
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            stars.append((n.level, n.module))
        elif isinstance(n, ast.Name) and n.id in ("globals", "vars", "__path__"):
            dynamic = True
        elif isinstance(n, ast.Attribute) and n.attr in ("modules", "__dict__", "__path__"):
            dynamic = True
    try:
        scopes = Collector(tree).scopes
    except (RecursionError, MemoryError):
        return None
    bound = set(scopes[id(tree)].bound)
    for s in scopes.values():
        bound |= s.globals_
    listed = _all(tree)
    if listed == frozenset({"*"}):
        return _Facts(None, frozenset(bound), tuple(stars), True)
    return _Facts(listed, frozenset(bound), tuple(stars), dynamic)


def _all(tree: ast.Module) -> frozenset[str] | None:
    """The names `__all__` may hold: the union of the literal lists it is set to (`=`, `: ... =`,
    `+=`); None when the module never sets it; {"*"} when it is set or changed any other way."""
    names: set[str] = set()
    literal_targets: set[int] = set()
    setting = False
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            mine = [t for t in targets if isinstance(t, ast.Name) and t.id == "__all__"]
            if not mine:
                continue
            ok = (
                len(targets) == 1
                and (not isinstance(n, ast.AugAssign) or isinstance(n.op, ast.Add))
                and (got := _strings(n.value)) is not None
            )
            if not ok:
                return frozenset({"*"})
            names |= got or set()
            literal_targets.update(id(t) for t in mine)
            setting = True
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == "__all__" and id(n) not in literal_targets:
            return frozenset({"*"})  # read (it may be changed in place: `__all__.append(...)`) or set otherwise
    return frozenset(names) if setting else None


def _strings(node: ast.expr | None) -> set[str] | None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    out = set()
    for e in node.elts:
        if not (isinstance(e, ast.Constant) and isinstance(e.value, str)):
            return None
        out.add(e.value)
    return out


# --- where the sources come from -----------------------------------------------------------------


def star_imports(data: bytes) -> Iterator[tuple[int, str | None]]:
    """The (level, module) of each star import in a module's source (none when it cannot be parsed)."""
    if not _STAR.search(data):
        return
    facts = _facts(data)
    if facts is not None:
        yield from facts.stars


def relpaths(module: str) -> tuple[str, str]:
    """The files a module may be in a wheel (or under an import path root): its `.py`, its package's `__init__`."""
    base = module.replace(".", "/")
    return f"{base}.py", f"{base}/__init__.py"


def module_of(relpath: str) -> tuple[str, bool] | None:
    """A wheel member's (dotted module, is a package), for a `.py` file."""
    if not relpath.endswith(".py"):
        return None
    parts = relpath[: -len(".py")].split("/")
    package = parts[-1] == "__init__"
    if package:
        parts = parts[:-1]
    return (".".join(parts), package) if parts and all(p.isidentifier() for p in parts) else None


def wanted(read: Callable[[str], bytes | None], relpaths_: Collection[str]) -> frozenset[str]:
    """The wheel members the star imports of the `.py` members `relpaths_` (those `read` has) may
    be: both files each star-imported module may be."""
    out: set[str] = set()
    for rel in relpaths_:
        me = module_of(rel)
        data = read(rel) if me is not None else None
        if data is None:
            continue
        for level, of in star_imports(data):
            base = resolved(ast.ImportFrom(module=of, names=[], level=level), me)
            if base is not None:
                out.update(relpaths(base))
    return frozenset(out)


def reachable(read: Callable[[str], bytes | None], relpath: str) -> tuple[ModuleSource, ...]:
    """The modules a file's star imports read, followed through theirs, as `read` has them (a
    module it does not have is left out: readers then cannot tell)."""
    out: dict[str, ModuleSource] = {}
    todo = [relpath]
    while todo:
        rel = todo.pop()
        for more in wanted(read, [rel]):
            got = module_of(more)
            data = read(more)
            if got is None or data is None or got[0] in out:
                continue
            if not got[1] and read(relpaths(got[0])[1]) is not None:
                continue  # a package wins over a same-named `.py`, as `import` decides
            out[got[0]] = ModuleSource(got[0], got[1], data)
            todo.append(more)
    return tuple(sorted(out.values(), key=lambda s: s.module))


def wheel_reader(sources: Collection[ModuleSource], skip: Collection[str] = ()) -> Read:
    """A Read over the modules verify read from the release's wheel; `skip`: the patch's own modules."""
    by_name = {s.module: s for s in sources if s.module not in skip}
    return by_name.get


def path_reader(paths: list[str], skip: Collection[str] = ()) -> tuple[Read, Submodule]:
    """A Read and a Submodule over the target's import path (files found without importing them);
    `skip`: the patch's own modules (their planned text is not the file on disk)."""
    specs: dict[str, object] = {}

    def spec(dotted: str) -> object:
        if dotted not in specs:
            parent, _, _ = dotted.rpartition(".")
            try:
                if not parent:
                    specs[dotted] = importlib.machinery.PathFinder.find_spec(dotted, paths)
                else:
                    p = spec(parent)
                    where = getattr(p, "submodule_search_locations", None)
                    specs[dotted] = importlib.machinery.PathFinder.find_spec(dotted, list(where)) if where else None
            except (ImportError, OSError, ValueError):
                specs[dotted] = None
        return specs[dotted]

    def read(dotted: str) -> ModuleSource | None:
        if dotted in skip:
            return None
        s = spec(dotted)
        origin = getattr(s, "origin", None)
        if not isinstance(origin, str) or not origin.endswith(".py"):
            return None
        try:
            with open(origin, "rb") as fh:
                data = fh.read(_MAX_SOURCE + 1)
        except OSError:
            return None
        return ModuleSource(dotted, getattr(s, "submodule_search_locations", None) is not None, data)

    def submodule(package: str, name: str) -> bool | None:
        try:
            return spec(f"{package}.{name}") is not None
        except RecursionError:
            return None

    return read, submodule

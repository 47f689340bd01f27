"""What the target's import path holds, found without importing anything: a module's spec
(importlib's PathFinder; a namespace portion's directories read as they are), what its `.py` file
binds at module level (parsed with ast, once per content for the whole process), and whether an
import hook may provide a top-level name. What cannot be told from the files is unknown (None): an
extension module, a module that binds names dynamically (a star import, a module `__getattr__`,
`globals()`, `sys.modules`, `__path__` edits), a name an import hook may provide (an editable
install's finder, a .pth that names it)."""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import os
from collections.abc import Callable
from typing import Any

from .scope_bindings import Collector

# (module, None): is there such a module?  (module, name): does it bind `name` or have that submodule?
# True / False, or None when the files cannot tell.
Lookup = Callable[[str, "str | None"], "bool | None"]

_UNKNOWN = object()
_MAX_SOURCE = 4 << 20


def path_lookup(paths: list[str]) -> Lookup:
    """A Lookup over the target's import path `paths`, finding files without importing them."""
    specs: dict[str, Any] = {}
    bound: dict[str, Any] = {}
    facts: dict[str, tuple[Any, bool]] = {}  # a module file -> what it binds, whether it finds submodules itself

    def read(origin: object) -> tuple[Any, bool]:
        """(_bindings, _finds_submodules_itself) of a spec's origin, its file parsed once per lookup."""
        if not isinstance(origin, str) or not origin.endswith(".py"):
            return _UNKNOWN, origin not in (None, "namespace")
        if origin not in facts:
            facts[origin] = _module_facts(origin)
        return facts[origin]

    def spec(dotted: str) -> Any:
        if dotted in specs:
            return specs[dotted]
        parent, _, _ = dotted.rpartition(".")
        result: Any
        try:
            if not parent:
                result = importlib.machinery.PathFinder.find_spec(dotted, paths)
                if result is None and _hooked(dotted, paths):
                    result = _UNKNOWN
            else:
                p = spec(parent)
                if p is None or p is _UNKNOWN:
                    result = p
                elif read(getattr(p, "origin", None))[1]:
                    result = _UNKNOWN  # six.moves: a module that installs an import hook serves its own
                elif not p.submodule_search_locations:
                    result = None
                else:
                    result = _find(dotted, _locations(p))
        except (ImportError, OSError, ValueError):
            result = _UNKNOWN
        specs[dotted] = result
        return result

    def binds(dotted: str) -> Any:
        if dotted in bound:
            return bound[dotted]
        s = spec(dotted)
        names: Any = _UNKNOWN
        origin = getattr(s, "origin", None)
        if s is not None and s is not _UNKNOWN and origin in (None, "namespace"):
            names = frozenset()  # a namespace package binds nothing of its own
        elif isinstance(origin, str) and origin.endswith(".py"):
            names = read(origin)[0]
        bound[dotted] = names
        return names

    def lookup(dotted: str, name: str | None) -> bool | None:
        s = spec(dotted)
        if s is _UNKNOWN:
            return None
        if name is None:
            return s is not None
        if s is None:
            return None
        names = binds(dotted)
        if names is _UNKNOWN:
            return None
        if name in names:
            return True
        if s.submodule_search_locations:
            sub = spec(f"{dotted}.{name}")
            return None if sub is _UNKNOWN else sub is not None
        return False

    return lookup


def _hooked(name: str, paths: list[str]) -> bool:
    """Could an import hook provide top-level `name`: a .pth file or an editable install's finder naming it?"""
    for d in paths:
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for e in entries:
            if e.endswith(".pth") or (e.startswith("__editable__") and e.endswith(".py")):
                try:
                    with open(os.path.join(d, e), "rb") as fh:
                        if name.encode() in fh.read(_MAX_SOURCE):
                            return True
                except OSError:
                    return True
    return False


# sha256 of a module file's bytes -> what _module_facts tells of them, for the whole process: every
# lookup (a new path_lookup per proof) read and parsed the same standard-library and installed files
# again. The answer is a function of the bytes alone (this interpreter's ast.parse of them, then two
# walks of the tree), so their digest is the whole key; the file itself is read on every lookup, so
# an edited file (whatever its size and mtime) is a new key. A parse that ran out of memory or stack
# is not kept: it may pass another time.
_FACTS: dict[bytes, tuple[Any, bool]] = {}
_FACTS_MAX = 4096


def _module_facts(path: str) -> tuple[Any, bool]:
    """What module `path` binds (_bindings) and whether it finds its submodules itself
    (_finds_submodules_itself), from one read; (_UNKNOWN, True) when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_SOURCE + 1)
    except OSError:
        return _UNKNOWN, True
    if len(data) > _MAX_SOURCE:
        return _UNKNOWN, True
    key = hashlib.sha256(data).digest()
    if key in _FACTS:
        return _FACTS[key]
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        facts: tuple[Any, bool] = (_UNKNOWN, True)
    except (RecursionError, MemoryError):
        return _UNKNOWN, True
    else:
        facts = (_bindings(tree), _finds_submodules_itself(tree))
    if len(_FACTS) >= _FACTS_MAX:
        _FACTS.pop(next(iter(_FACTS)))
    _FACTS[key] = facts
    return facts


def _finds_submodules_itself(tree: ast.Module) -> bool:
    """Whether a module (a package's `__init__`, or a plain module like six) may change where its
    submodules are found (`__path__`, `sys.modules`, the import system's hooks). A module
    `__getattr__` or `globals()` binds attributes, never a submodule: `import pkg.sub` searches
    `pkg.__path__`."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return True  # it may bind __path__
        if isinstance(n, ast.Name) and n.id in ("__path__", "extend_path"):
            return True
        if isinstance(n, ast.Attribute) and n.attr in ("modules", "__path__", "meta_path", "path_hooks", "extend_path"):
            return True
    return False


def _bindings(tree: ast.Module) -> Any:
    """The names a module binds at module level (or declares `global` in a function); _UNKNOWN
    when it binds names dynamically. A module `__getattr__` (PEP 562: a module-level `def`, an
    assignment or import of that name, a `global __getattr__`) answers any attribute; one in a class
    or a function's own scope is that object's, not the module's."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return _UNKNOWN
        if isinstance(n, ast.Name) and n.id in ("globals", "vars", "__path__"):
            return _UNKNOWN
        if isinstance(n, ast.Attribute) and n.attr in ("modules", "__dict__", "__path__"):
            return _UNKNOWN
    scopes = Collector(tree).scopes
    names = set(scopes[id(tree)].bound)
    for s in scopes.values():
        names |= s.globals_
    return _UNKNOWN if "__getattr__" in names else frozenset(names)


def _locations(spec: Any) -> list[str]:
    """A package spec's search locations. A namespace package's (`_NamespacePath`) recomputes itself
    from its parent in sys.modules when read, and the parent was never imported here (nothing is):
    its own list of directories is read instead (att40b #5: KeyError, exit 70)."""
    locations = spec.submodule_search_locations
    try:
        return list(locations)
    except KeyError:
        return [str(p) for p in getattr(locations, "_path", [])]


def _find(dotted: str, locations: list[str]) -> Any:
    """PathFinder's spec of the submodule `dotted` in `locations`. A namespace portion makes it build a
    `_NamespacePath`, which reads the parent from sys.modules (never imported here): KeyError. Then
    the spec is a namespace package's, its directories those of `locations` that hold it."""
    try:
        return importlib.machinery.PathFinder.find_spec(dotted, locations)
    except KeyError:
        last = dotted.rpartition(".")[2]
        dirs = [os.path.join(loc, last) for loc in locations if os.path.isdir(os.path.join(loc, last))]
        if not dirs:
            return None
        spec = importlib.machinery.ModuleSpec(dotted, None, is_package=True)
        spec.submodule_search_locations = dirs
        return spec

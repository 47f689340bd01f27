"""What the patched module's package imports, read as text from the installed files (never
imported): `imports_top`, whether any module of the package imports a top-level module; and
`package_imported`, which of some submodules (`xml.dom.minidom`) another module of the package
imports, which binds them for the whole process. Each file's imports are kept by its content's hash.
`init_binds`: whether a fresh `import pkg` binds a submodule outside the standard library
(`import toyx` then `toyx.sub`), from the package's `__init__` file.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import re
from collections.abc import Callable, Collection
from pathlib import Path

from .scopes import FUNCS
from .typing_only import type_checking, type_checking_names


def imports_top(paths: list[str], package: str, module: str) -> bool:
    """Whether any module of `package` (on the target's path) imports `module`'s top-level module:
    read as text, only when a new import names a module the target lacks."""
    top = module.split(".")[0]
    pattern = re.compile(rf"^[ \t]*(?:import|from)[ \t]+{re.escape(top)}\b", re.MULTILINE)
    for root in paths:
        home = Path(root) / package
        if not home.is_dir():
            continue
        for file in home.rglob("*.py"):
            try:
                if pattern.search(file.read_text("utf-8", "replace")):
                    return True
            except OSError:
                continue
    return False


_STATEMENT = re.compile(
    rb"[ \t]*(?:import[ \t]+([\w. \t,]+)|from[ \t]+(\w[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|(?:[\w \t,]|\\\n)*))"
)
_FILE_IMPORTS: dict[bytes, frozenset[str]] = {}  # a file's sha1 -> the modules its import statements name
_RUN_IMPORTS: dict[bytes, frozenset[str] | None] = {}  # a file's sha1 -> what its module-level imports import


def file_imported(data: bytes) -> frozenset[str]:
    """Every absolute module an import statement in `data` may import, read as text (`import a.b`:
    a.b; `from a.b import c`: a.b, a.b.c, which may be a submodule; each imports its parents too).
    Only the lines holding `import` are matched; a statement in a string counts too (this only ever
    lets a read pass)."""
    found: set[str] = set()
    at = data.find(b"import")
    while at != -1:
        m = _STATEMENT.match(data, data.rfind(b"\n", 0, at) + 1)
        if m and m.group(1):
            found.update(part.split()[0] for part in m.group(1).decode().split(",") if part.split())
        elif m and m.group(2):
            base = m.group(2).decode()
            found.add(base)
            names = m.group(3).decode().strip("()").replace("\\", " ").split(",")
            found.update(f"{base}.{n.split()[0]}" for n in names if n.split())
        at = data.find(b"import", at + 6)
    return frozenset(found)


def package_imported(paths: list[str], package: str, wanted: Collection[str], own: str = "") -> set[str]:
    """Which of the modules `wanted` the import statements of `package`'s files (on the target's path)
    import (each import imports its parents too): another module of the package that imports
    `xml.dom.minidom` binds it for the whole process. Read as text, each file's imports kept by its
    content's hash; a file whose text names one counts only when a module-level import that runs
    imports it (parsed: not in a def, not under `if TYPE_CHECKING:`/`if False:`, not in a string).
    The scan stops once every one is found. `own`: the patched module, whose own
    imports bind a read only where they surely run first (import_order), never by its file's text."""
    found: set[str] = set()
    left = set(wanted)
    for root in paths:
        home = Path(root) / package
        if not home.is_dir():
            continue
        for file in home.rglob("*.py"):
            if own and _dotted(file, Path(root)) == own:
                continue
            try:
                data = file.read_bytes()
            except OSError:
                continue
            digest = hashlib.sha1(data).digest()
            if digest not in _FILE_IMPORTS:
                _FILE_IMPORTS[digest] = file_imported(data)
            theirs = _FILE_IMPORTS[digest]
            hit = {w for w in left if any(d == w or d.startswith(w + ".") for d in theirs)}
            if hit:  # the text names it: does a module-level import that runs import it?
                if digest not in _RUN_IMPORTS:
                    _RUN_IMPORTS[digest] = _module_level_imports(data)
                ran = _RUN_IMPORTS[digest]
                hit = {w for w in hit if ran is None or any(d == w or d.startswith(w + ".") for d in ran)}
            found |= hit
            left -= hit
            if not left:
                return found
        break  # the first directory of that name is the package that imports
    return found


_DYNAMIC = frozenset({"__getattr__", "globals", "vars", "__path__", "extend_path", "modules", "__dict__"})


def init_binds(paths: list[str]) -> Callable[[str, str], bool | None]:
    """(package, submodule) -> does a fresh `import package` bind `submodule` (`package.child`, or
    deeper), its `__init__` read as a file (never imported): True when at module level it imports
    the submodule (`from . import child`, `from .child import x`, `import package.child`) or binds
    the child's name in its parent; None when it cannot
    tell (not a `.py` file, a star import, a module `__getattr__`, `globals()`, `sys.modules`,
    `__path__` edits); False otherwise (a namespace package binds nothing)."""

    def binds(package: str, submodule: str) -> bool | None:
        parts = package.split(".")
        try:
            spec = importlib.machinery.PathFinder.find_spec(parts[0], paths)
            for i in range(1, len(parts)):
                if spec is None or not spec.submodule_search_locations:
                    return None
                locations = list(spec.submodule_search_locations)
                spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]), locations)
        except (ImportError, OSError, ValueError):
            return None
        origin = getattr(spec, "origin", None)
        if spec is None or not spec.submodule_search_locations:
            return None
        if origin in (None, "namespace"):
            return False
        if not isinstance(origin, str) or not origin.endswith(".py"):
            return None
        try:
            tree = ast.parse(Path(origin).read_bytes())
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        return _binds(tree, package, submodule)

    return binds


def _binds(tree: ast.Module, package: str, sub: str) -> bool | None:
    parent, _, child = sub.rpartition(".")
    aliases = type_checking_names(tree)
    names: set[str] = set()  # what the module-level statements that run bind
    stack: list[ast.stmt] = list(tree.body)
    while stack:  # not a def's body, not under `if TYPE_CHECKING:`
        s = stack.pop()
        if isinstance(s, ast.Import):
            if any(a.name == sub or a.name.startswith(sub + ".") for a in s.names):
                return True
            names.update(a.asname or a.name.split(".")[0] for a in s.names)
        elif isinstance(s, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (s.level - 1)] if s.level else []
            module = ".".join([*base, *([s.module] if s.module else [])])
            if module == sub or module.startswith(sub + "."):
                return True
            if module == parent and any(a.name == child for a in s.names):
                return True
            names.update(a.asname or a.name for a in s.names)
        elif isinstance(s, (*FUNCS, ast.ClassDef)):
            names.add(s.name)
        elif isinstance(s, ast.If):
            guard = type_checking(s.test, aliases)
            stack.extend([*([] if guard is True else s.body), *([] if guard is False else s.orelse)])
            continue
        for t in getattr(s, "targets", None) or [x for x in [getattr(s, "target", None)] if x is not None]:
            names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        if not isinstance(s, (*FUNCS, ast.ClassDef)):
            stack.extend(x for x in ast.iter_child_nodes(s) if isinstance(x, ast.stmt))
            stack.extend(x for h in getattr(s, "handlers", ()) for x in h.body)
    if parent == package and child in names:  # `sub = ...`, `import x as sub`
        return True
    for n in ast.walk(tree):  # what binds names or finds submodules as it runs: not told by the file
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return None
        if isinstance(n, ast.Name) and n.id in _DYNAMIC or isinstance(n, ast.Attribute) and n.attr in _DYNAMIC:
            return None
        if isinstance(n, FUNCS) and n.name == "__getattr__":
            return None
    return False


def _dotted(file: Path, root: Path) -> str:
    """The module a file under `root` is (`pkg/m.py`: pkg.m; `pkg/sub/__init__.py`: pkg.sub)."""
    parts = list(file.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level_imports(data: bytes) -> frozenset[str] | None:
    """The absolute modules the import statements that run when the file is imported import: at
    module level (or in a class body), not in a def, not under `if TYPE_CHECKING:` or `if False:`,
    never in a string. None when the file does not parse (its text is all there is)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    aliases = type_checking_names(tree)
    out: set[str] = set()
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Import):
            out.update(a.name for a in s.names)
        elif isinstance(s, ast.ImportFrom) and not s.level and s.module:
            out.update([s.module, *(f"{s.module}.{a.name}" for a in s.names)])
        elif isinstance(s, ast.If):
            never = (not s.test.value) if isinstance(s.test, ast.Constant) else type_checking(s.test, aliases)
            stack.extend([*([] if never is True else s.body), *([] if never is False else s.orelse)])
        elif not isinstance(s, FUNCS):
            stack.extend(x for x in ast.iter_child_nodes(s) if isinstance(x, ast.stmt))
            stack.extend(x for h in getattr(s, "handlers", ()) for x in h.body)
            stack.extend(x for c in getattr(s, "cases", ()) for x in c.body)
    return frozenset(out)

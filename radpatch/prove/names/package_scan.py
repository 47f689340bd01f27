"""What the patched module's package imports, read as text from the installed files (never
imported): `imports_top`, whether any module of the package imports a top-level module; and
`package_imported`, which of some submodules (`xml.dom.minidom`) a module of the package that surely
runs before the read imports, which binds them for the whole process. Each file's imports are kept
by its content's hash.
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

from .import_order import surely_imported
from .scope_bindings import FUNCS
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


_RUNS: dict[tuple[bytes, str], frozenset[str] | None] = {}  # (file's sha1, its package) -> what it surely imports


def package_imported(
    paths: list[str], package: str, wanted: Collection[str], own: str, first: Collection[str] = ()
) -> set[str]:
    """Which of the modules `wanted` a module of `package` that surely runs in a process importing
    `own` imports (each import imports its parents too; `xml.dom.minidom` imported by another module
    of the package is bound for the whole process only once that module ran). What surely runs:
    `own`'s parent packages (their `__init__` runs before `own`'s body), the modules `first` (those
    `own`'s own imports surely ran before the read: import_order), and, transitively, what each of
    those imports at module level on every path (import_order.surely_imported: not in a def, not
    under `if TYPE_CHECKING:`/`if False:`). A module nothing that runs imports counts for nothing,
    however it spells the import; nor do `own`'s own imports (import_order's to tell), nor a file
    that does not parse. Read from the installed files, never imported; each file's imports kept by
    its content's hash. The walk stops once every one is found."""
    home = next((Path(r) for r in paths if (Path(r) / package).is_dir()), None)
    if home is None:
        return set()
    parts = own.split(".")
    queue = [".".join(parts[:i]) for i in range(1, len(parts))]
    queue += [m for f in first for m in _with_parents(f) if m.split(".")[0] == package]
    seen: set[str] = set()
    found: set[str] = set()
    left = set(wanted)
    while queue and left:
        name = queue.pop()
        if name in seen or name == own:
            continue
        seen.add(name)
        ran = {name} | _surely_imports(home, name)
        hit = {w for w in left if any(d == w or d.startswith(w + ".") for d in ran)}
        found |= hit
        left -= hit
        queue.extend(m for d in ran for m in _with_parents(d) if m.split(".")[0] == package and m not in seen)
    return found


def _with_parents(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _surely_imports(home: Path, name: str) -> frozenset[str]:
    """What module `name` (a file under `home`) imports on every path when it runs; nothing when it
    is no `.py` file there or does not parse."""
    base = home.joinpath(*name.split("."))
    file, here = (base / "__init__.py", name) if base.is_dir() else (base.with_suffix(".py"), name.rpartition(".")[0])
    try:
        data = file.read_bytes()
    except OSError:
        return frozenset()
    key = (hashlib.sha1(data).digest(), here)
    if key not in _RUNS:
        try:
            _RUNS[key] = surely_imported(completed_only(ast.parse(data)), here)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _RUNS[key] = None
    return _RUNS[key] or frozenset()


def completed_only(tree: ast.Module, line: int | None = None) -> ast.Module:
    """`tree` (changed in place) without the body and `else` of each `try` whose handlers may
    swallow an exception (one not ending in `raise`), unless it holds `line`: what such a body
    imports may not have run to its end (`try: from . import other` / `except ImportError: pass`,
    where `other` stops at its own missing import before its `import xml.dom.minidom`), so neither
    that module nor any import after a statement that can raise there surely ran. The `finally`
    part stays: it runs either way. Read by import_order, which takes a `try` body as run."""
    _Completed(line).visit(tree)
    return tree


class _Completed(ast.NodeTransformer):
    def __init__(self, line: int | None) -> None:
        self.line = line

    def visit_Try(self, node: ast.Try) -> ast.AST | list[ast.stmt]:  # noqa: N802 (ast's visitor names)
        self.generic_visit(node)
        holds = self.line is not None and node.lineno <= self.line <= (node.end_lineno or node.lineno)
        if holds or all(h.body and isinstance(h.body[-1], ast.Raise) for h in node.handlers):
            return node
        return list(node.finalbody)

    visit_TryStar = visit_Try  # noqa: N815 (3.11+: `except*`)


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

"""The import stack `import pkg.mod` builds, simulated with `ast` from the installed files: the
parents' `__init__`s run in order, each import-time import followed into the package's modules not
started yet, depth first, until one reaches the module; each module on the stack as it is then
(`Paused`: where it stopped, what it had bound). For `partial_package`."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from radpatch.prove import cycles
from radpatch.prove.names.scope_bindings import Collector

MAX_MODULES = 500  # modules followed per package __init__ statement


@dataclass(frozen=True)
class Paused:
    """A module started and not finished when the patched module runs: paused at `line` of `file`
    (relative to its site directory), the module-level statement whose imports reach the patched module."""

    file: str
    line: int
    before: frozenset[str]  # the names it binds above that statement
    binds: frozenset[str]  # every name it binds at module level
    submodules: frozenset[str]  # names that are its submodules (`from pkg import sub` imports it)
    dynamic: bool  # it binds names dynamically above that statement: not judged
    pending: frozenset[str] = frozenset()  # its submodules not imported yet then (nor running)

    def too_late(self, taken: str) -> bool:
        return not self.dynamic and taken not in self.submodules and taken not in self.before and taken in self.binds


def _import_stack(module: str, paths: Sequence[str]) -> dict[str, Paused]:
    """The modules of `module`'s package still running when `import module` runs it: its parent
    packages' `__init__`s run first, in order, each import-time import followed into the package's
    modules not started yet, depth first, until one reaches `module` (empty when none does)."""
    top = module.split(".")[0]
    root = next((Path(p) for p in paths if cycles.module_file(Path(p), top) is not None), None)
    if root is None:
        return {}
    started: set[str] = set()

    def run(dotted: str) -> list[tuple[str, Path, ast.Module, int]] | None:
        started.add(dotted)
        f = cycles.module_file(root, dotted)
        try:
            tree = ast.parse(f.read_bytes()) if f is not None else None
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if f is None or tree is None:
            return None
        for i, stmt in enumerate(tree.body):
            for target in sorted(cycles.tree_edges([stmt], dotted, f.name == "__init__.py")):
                if target == module:
                    return [(dotted, f, tree, i)]
                if target in started or target.split(".")[0] != top or len(started) >= MAX_MODULES:
                    continue
                found = run(target)
                if found is not None:
                    return [(dotted, f, tree, i), *found]
        return None

    parts = module.split(".")
    for n in range(1, len(parts)):
        parent = ".".join(parts[:n])
        found = None if parent in started else run(parent)
        if found is not None:
            done = started - {m for m, _, _, _ in found}
            return {m: _paused(root, m, f, tree, i, done | {module}) for m, f, tree, i in found}
    return {}


def _paused(root: Path, dotted: str, f: Path, tree: ast.Module, i: int, started: set[str]) -> Paused:
    earlier = ast.Module(body=tree.body[:i], type_ignores=[])
    pending: set[str] = set()
    if f.name == "__init__.py":
        for sub in f.parent.iterdir():
            n = sub.name[:-3] if sub.name.endswith(".py") else sub.name if (sub / "__init__.py").is_file() else ""
            if n.isidentifier() and n != "__init__" and f"{dotted}.{n}" not in started:
                pending.add(n)
    binds = Collector(tree).module.bound
    subs = frozenset(n for n in binds if f.name == "__init__.py" and cycles.module_file(root, f"{dotted}.{n}"))
    return Paused(
        str(f.relative_to(root)),
        tree.body[i].lineno,
        frozenset(Collector(earlier).module.bound),
        frozenset(binds),
        subs,
        _dynamic(earlier),
        frozenset(pending),
    )


def _dynamic(tree: ast.Module) -> bool:
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
            return True
        if isinstance(n, ast.Name) and n.id in ("globals", "vars"):
            return True
    return False

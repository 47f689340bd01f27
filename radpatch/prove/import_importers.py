"""The modules that import a patched module: the import check imports them too (import_check.py).

A patch can leave its module importable and break a module that imports it at import time: a
signature changed under a call at another module's top level, an attribute of a class read there,
a value a decorator checks. The names proof reads the names another module takes (names_check);
what they do with them only shows when they are imported. So, once a patched module imports, the
modules of its top-level package that import it at import time (found with `ast`, outside function
bodies, as cycles.py reads them; the planned text for the files the run changes) are imported after
it, in one subprocess, at most MAX_IMPORTERS, nearest first: the modules that import it by name
(distance 1), then those that import one of them (2), and so on, each distance in name order, so the
cap never hides a direct importer behind a farther one; how many were found and not checked is
counted (the search stops after the distance that fills the cap, or once it has parsed
MAX_FARTHER_PARSES files past the direct importers, which `deeper` says: in vLLM, whose `__init__`
modules import much, every module is a few steps from any other). A module
imports its parent packages (every module of `pp.sub` imports `pp.sub`, whose `__init__` may import
the patched module): that counts. The modules the run changes are checked themselves, and a package's `__init__` has
no importers here: every module of the package imports it."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from radpatch.prove.cycles import MAX_MODULES, planned_bytes, tree_edges

MAX_IMPORTERS = 64  # modules imported after a patched one, at most
MAX_FARTHER_PARSES = 300  # files parsed, at most, looking past the direct importers (vLLM's whole tree: ~12 s)


@dataclass(frozen=True)
class Importers:
    names: list[str] = field(default_factory=list)  # imported after the module, nearest first
    unchecked: int = 0  # found, beyond the cap
    deeper: bool = False  # the search stopped at the cap: modules farther away were not looked for

    def __bool__(self) -> bool:
        return bool(self.names)


def importers(
    root: Path, module: str, package: bool, served: Mapping[str, bytes], changed: Collection[str]
) -> Importers:
    """The modules under site directory `root` of `module`'s top-level package that import `module`
    at import time, directly or through one another, nearest first, without `changed` (the run's
    modules); none for a package."""
    top = root / module.split(".")[0]
    if package or not top.is_dir():
        return Importers()
    files = _files(root, top, module, served)
    edges: dict[str, set[str] | None] = {}  # parsed on first need: most files never are
    found: list[str] = []
    seen = {module}
    frontier = {module}
    budget, cut = MAX_FARTHER_PARSES, False
    while frontier and len(found) < MAX_IMPORTERS and not cut:
        lasts = {m.rsplit(".", 1)[-1].encode() for m in frontier}
        level = []
        for name, (data, is_package) in files.items():
            if name in seen or not any(last in data for last in lasts):  # cheap: naming none of them
                continue
            if name not in edges:
                if frontier != {module}:  # past the direct importers, which are always all found
                    budget -= 1
                    cut = budget < 0
                    if cut:
                        break
                edges[name] = _edges(data, name, is_package)
            reaches = edges[name]
            if reaches and reaches & frontier:
                level.append(name)
        seen.update(level)
        found.extend(n for n in level if n not in changed)
        frontier = set(level)
    return Importers(found[:MAX_IMPORTERS], max(0, len(found) - MAX_IMPORTERS), bool(frontier) or cut)


def _files(root: Path, top: Path, module: str, served: Mapping[str, bytes]) -> dict[str, tuple[bytes, bool]]:
    """Each module's text under `top` and whether it is a package's, by name, sorted (the planned
    text for a served file)."""
    out: dict[str, tuple[bytes, bool]] = {}
    for n, f in enumerate(sorted(top.rglob("*.py"))):
        if n >= MAX_MODULES:
            break
        parts = list(f.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        if name == module or not all(p.isidentifier() for p in parts):
            continue
        data = planned_bytes(served, f)
        if data is None:
            continue
        out[name] = (data, is_package)
    return out


def _edges(data: bytes, name: str, is_package: bool) -> set[str] | None:
    """What module `name` imports at import time, its parent packages included."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree_edges(tree.body, name, is_package)

"""The modules that import a patched module: the import check imports them too (import_check.py).

A patch can leave its module importable and break a module that imports it at import time: a
signature changed under a call at another module's top level, an attribute of a class read there,
a value a decorator checks. The names proof reads the names another module takes (names_check);
what they do with them only shows when they are imported. So, once a patched module imports, the
modules of its top-level package that import it by name at import time (found with `ast`, outside
function bodies, as cycles.py reads them; the planned text for the files the run changes) are
imported after it, in one subprocess, at most MAX_IMPORTERS in name order. The modules the run
changes are checked themselves, and a package's `__init__` has no importers here: every module of
the package imports it."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from pathlib import Path

from radpatch.prove.cycles import MAX_MODULES, tree_edges

MAX_IMPORTERS = 64  # modules imported after a patched one, at most


def importers(
    root: Path, module: str, package: bool, served: Mapping[str, bytes], changed: Collection[str]
) -> list[str]:
    """The modules under site directory `root` of `module`'s top-level package that import
    `module` at import time, sorted, without `changed` (the run's modules); [] for a package."""
    top = root / module.split(".")[0]
    if package or not top.is_dir():
        return []
    last = module.rsplit(".", 1)[-1].encode()
    out: list[str] = []
    for n, f in enumerate(sorted(top.rglob("*.py"))):
        if n >= MAX_MODULES or len(out) >= MAX_IMPORTERS:
            break
        parts = list(f.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        if name == module or name in changed or not all(p.isidentifier() for p in parts):
            continue
        data = served.get(str(f))
        if data is None:
            try:
                data = f.read_bytes()
            except OSError:
                continue
        if last not in data:  # cheap: a module naming it nowhere does not import it
            continue
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if module in tree_edges(tree.body, name, is_package):
            out.append(name)
    return out

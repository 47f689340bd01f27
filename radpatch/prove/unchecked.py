"""What a proof step leaves unchecked without an installed target (verify: releases read from the
index, no interpreter of the target, no site directory): the parts of apply's steps that ask the
target's interpreter or read the other files on its import path, each named (what is not checked)
where this patch gives it something to judge, so verify says "not checked: needs an installed
target (what)" instead of passing it silently.

Asked only when the Case has no target (`python` is None): apply always has one, and runs them.
"""

from __future__ import annotations

import ast
import sys

from radpatch.install.target_python import stdlib_binds
from radpatch.prove import partial_package, placement
from radpatch.prove.analysis import analysis_of
from radpatch.prove.names import module_of
from radpatch.prove.names.fallback_only import fallback_uses

NEEDS = "needs an installed target"  # how verify words each: "not checked: needs an installed target (what)"


def running() -> tuple[int, int]:
    return (sys.version_info[0], sys.version_info[1])


def grammar(version: tuple[int, int] | None) -> list[str]:
    """The compile and names steps read the module with radpatch's own Python: another target version's
    grammar, builtins and standard library are not checked."""
    if version is None or version == running():
        return []
    here, there = ".".join(map(str, running())), ".".join(map(str, version))
    return [f"compile, names: Python {there}'s grammar, builtins and standard library (radpatch runs on {here})"]


def _imports(data: bytes) -> set[tuple[int, str]] | None:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: set[tuple[int, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(0, a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out |= {(node.level, f"{node.module or ''}:{a.name}") for a in node.names}
    return out


def _spelled(key: tuple[int, str]) -> str:
    level, text = key
    module, _, name = text.partition(":")
    return f"from {'.' * level}{module} import {name}" if name else f"import {module}"


def _known(new: set[tuple[int, str]], version: tuple[int, int] | None) -> set[tuple[int, str]]:
    """The new imports the target's standard library answers without the target: on radpatch's own
    Python version, a module of its standard library (`import math`), and a name of one, asked of
    radpatch's own interpreter as apply asks the target's (install.target_python.stdlib_binds)."""
    if version is not None and version != running():
        return set()
    stdlib = frozenset(getattr(sys, "stdlib_module_names", ()))
    ours = {k: _parts(k[1]) for k in new if k[0] == 0 and _parts(k[1])[0].split(".")[0] in stdlib}
    asked = sorted({p for p in ours.values() if p[1]})
    told = dict(zip(asked, stdlib_binds(sys.executable, asked))) if asked else {}
    return {k for k, p in ours.items() if not p[1] or told.get(p) is True}


def _parts(text: str) -> tuple[str, str]:
    """An import key's (module, name): name "" for a plain `import module`."""
    module, _, name = text.partition(":")
    return module, name


def names(
    before: bytes,
    after: bytes,
    module: str | None,
    filename: str,
    version: tuple[int, int] | None,
    package: bool = False,
) -> list[str]:
    """The names step's reads of the target: new imports (on its import path; the cycles and
    partially imported packages they may close), names taken away that other modules of the
    installed package import, and new uses of a name only a guarded import's fallback binds there.
    `package`: the package's other modules were read from the release (releases.package_files), so
    the cycles, partially imported packages and importers were checked."""
    out = []
    old, new = _imports(before), _imports(after)
    added_imports = set() if old is None or new is None else new - old
    added_imports -= _known(added_imports, version)
    if added_imports:
        added = "; ".join(f"`{_spelled(k)}`" for k in sorted(added_imports))
        closes = "" if package else ", and the import cycles and partially imported packages a new import may close"
        out.append(f"names: whether the target's import path has {added}{closes}")
    package_reads = set() if package else _own_package_reads(after, module) - _own_package_reads(before, module)
    if package_reads:
        read = "; ".join(f"`{r}`" for r in sorted(package_reads))
        out.append(
            f"names: whether {read}, read at import time through its own package, is there while the package "
            "is still importing it (partially imported packages)"
        )
    me = module_of(module, filename)
    a, b = analysis_of(before, me).placement, analysis_of(after, me).placement
    if a is not None and b is not None and not package:
        now = {x.name for x in b.bindings}
        gone = sorted({x.name for x in a.bindings} - now)
        if gone and "__getattr__" not in now:
            out.append(f"names: whether another module of the installed package imports {', '.join(gone)} from it")
    at = version or running()
    if fallback_uses(before, after, at, lambda _: True) != fallback_uses(before, after, at, lambda _: False):
        out.append("names: whether a guarded import the new code relies on succeeds on the target")
    return out


def fallbacks(before: bytes, after: bytes, module: str | None, filename: str) -> list[str]:
    """The placement step's guarded-import handlers the patch changes (prove.guarded_imports asks the
    target whether the import fails, so whether the patched fallback runs at all)."""
    me = module_of(module, filename)
    a, b = analysis_of(before, me).placement, analysis_of(after, me).placement
    if a is None or b is None:
        return []
    return [
        f"placement: whether the fallback at line {f.handler_line} (the `try:` at line {f.line}) runs: "
        f"whether {'; '.join(f'`{i}`' for i in f.imports)} fails on the target"
        for f in placement.changed_fallbacks(a.fallbacks, b.fallbacks)
    ]


def _own_package_reads(data: bytes, module: str | None) -> set[str]:
    """The attribute chains the module reads at import time through a name a module-level import
    binds to its own top-level package or a module of it (`import pkg`, then `B = pkg.other.A`):
    apply asks the installed package whether they exist while it is still importing this module."""
    if module is None or "." not in module:
        return set()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    top = module.split(".")[0]
    bound: set[str] = set()
    for s in tree.body:
        if isinstance(s, ast.Import):
            bound |= {a.asname or a.name.split(".")[0] for a in s.names if a.name.split(".")[0] == top}
        elif isinstance(s, ast.ImportFrom) and (s.level or (s.module or "").split(".")[0] == top):
            bound |= {a.asname or a.name for a in s.names if a.name != "*"}
    out: set[str] = set()
    for node in partial_package.import_time(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            base: ast.expr = node
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in bound:
                out.add(ast.unparse(node))
    return {r for r in out if not any(o.startswith(r + ".") for o in out)}  # the whole chain, once

"""Which entries of a series another entry needs in order to import: the entry that creates a
module it newly imports, or that adds the name it newly imports from a module.

Why: a series applied by GNU patch is only ever seen whole, so a patch may import a module that
a LATER patch of the same series creates (Emu3.5's vLLM series: `configs/__init__.py` imports
`configs/emu3_5.py`, added by the next patch file), or a name an unrelated earlier patch adds.
Touching the same file does not link such entries; without `requires:` the importing entry
applied alone (or the providing one reverted alone) leaves a package that does not import, and
the proof refuses the import it cannot see yet. So the importing entry requires the provider,
earlier or later in the series: `apply` applies the provider first, `revert` of the provider
names the entry that needs it.

What is read: every `import` and `from ... import` the patched module has and the module before
the patch did not (anywhere in the module: a function-level import runs too), relative ones
resolved against the module's package. A module counts as created by the entry whose file
section creates it; a name as added by the entry whose patched module binds it at top level
(def, class, assignment, import, also inside top-level if/try/with) and the module before it did
not. A requirement that would close a cycle (the provider already needs the importing entry's
text, directly or through others) cannot be written: the two patch files only work together.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from radpatch.importing.emit import as_python
from radpatch.importing.import_steps import DiffFile


@dataclass(frozen=True)
class Need:
    """A requirement found: entry `needs` imports `what` (a module, or `module.name`), `provider` gives it."""

    needs: int
    provider: int
    what: str
    created: bool  # the provider creates the module (else it adds the name)


def module_of(rel: str) -> tuple[str, str] | None:
    """(the module's dotted name, the package its relative imports start from) of a site-relative
    .py file; None for a file that is not a module name (a dash in a directory, say)."""
    if not rel.endswith(".py"):
        return None
    parts = rel[:-3].split("/")
    if not all(p.isidentifier() for p in parts):
        return None
    if parts[-1] == "__init__":
        name = ".".join(parts[:-1])
        return (name, name) if name else None
    return ".".join(parts), ".".join(parts[:-1])


def _parse(text: str | None) -> ast.Module | None:
    if not text:
        return None
    try:
        return ast.parse(as_python(text)[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # Undecodable is a ValueError
        return None


def _imports(tree: ast.Module | None, package: str) -> set[tuple[str, str | None]]:
    """(module, None) for every module an import loads, and (module, name) for every name a
    `from` import takes (which may be a submodule: both are listed)."""
    out: set[tuple[str, str | None]] = set()
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                out |= {(".".join(parts[: k + 1]), None) for k in range(len(parts))}
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base is None:
                continue
            parts = base.split(".") if base else []
            out |= {(".".join(parts[: k + 1]), None) for k in range(len(parts))}
            for a in node.names:
                if a.name == "*":
                    continue
                out.add((f"{base}.{a.name}" if base else a.name, None))
                if base:
                    out.add((base, a.name))
    return out


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    if not node.level:
        return node.module or None
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts) or (node.level - 1 == len(parts) and not node.module):
        return None
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])]) or None


def _bound(body: Iterable[ast.stmt]) -> Iterator[str]:
    """Names a module's top level binds (through top-level if/try/with blocks too)."""
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield s.name
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                yield from (n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                if a.name != "*":
                    yield a.asname or a.name.split(".")[0]
        elif isinstance(s, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)):
            for field in ("body", "orelse", "finalbody"):
                yield from _bound(getattr(s, field, []) or [])
            for h in getattr(s, "handlers", []) or []:
                yield from _bound(h.body)


def needs(entries: list[tuple[DiffFile, ...]]) -> list[Need]:
    """Every requirement by import among the entries of one series (each: the files it changes,
    before and after as GNU patch gives them), in entry order; none on itself."""
    creates: dict[str, list[int]] = {}
    adds: dict[tuple[str, str], list[int]] = {}
    for n, changes in enumerate(entries):
        for c in changes:
            mod = module_of(c.rel)
            if mod is None or c.after is None:
                continue
            if c.before is None:
                creates.setdefault(mod[0], []).append(n)
                continue
            before, after = _parse(c.before), _parse(c.after)
            if before is None or after is None:
                continue
            for added in set(_bound(after.body)) - set(_bound(before.body)):
                adds.setdefault((mod[0], added), []).append(n)
    out: list[Need] = []
    for n, changes in enumerate(entries):
        found: dict[int, Need] = {}
        for c in changes:
            mod = module_of(c.rel)
            if mod is None or c.after is None:
                continue
            new = _imports(_parse(c.after), mod[1]) - _imports(_parse(c.before), mod[1])
            for module, name in sorted(new, key=lambda x: (x[0], x[1] or "")):
                providers = adds.get((module, name), []) if name is not None else creates.get(module, [])
                m = _nearest(providers, n)
                if m is not None and m not in found:
                    found[m] = Need(n, m, f"{module}.{name}" if name else module, name is None)
        out += [found[m] for m in sorted(found)]
    return out


def _nearest(providers: list[int], n: int) -> int | None:
    """The provider an entry relies on: the latest one before it, else the first one after it."""
    earlier = [m for m in providers if m < n]
    if earlier:
        return earlier[-1]
    later = [m for m in providers if m > n]
    return later[0] if later else None


def reaches(requires: dict[int, set[int]], start: int, goal: int) -> bool:
    """Whether `start` requires `goal`, directly or through others."""
    seen: set[int] = set()
    frontier = [start]
    while frontier:
        current = frontier.pop()
        if current == goal:
            return True
        if current in seen:
            continue
        seen.add(current)
        frontier.extend(requires.get(current, ()))
    return False

"""Names a patch takes away that another module of the same package imports (att21 F3): the patch
deletes `LEGACY = 1` (or renames `def helper`), and `pkg/other.py` does `from pkg.mod import LEGACY`
(or `from .mod import LEGACY`, or reads `mod.LEGACY` through `from . import mod`, `import pkg.mod`):
`import pkg.other` then fails with ImportError, though the patched module itself imports fine.

Found with `ast` from the installed files of the module's top-level package on the target's import
path, never by importing them: the names the module binds at its top level (in module-level
if/try/with/for too) before the patch and not after it, and every import of one of them by name
from the module (or attribute read of it through the module), anywhere in another file of the
package. An import guarded by `except ImportError` (or a broader handler) expects the failure and
is not counted; a patched module that defines a module-level `__getattr__` may still provide the
name and is not judged. The files the same run changes (`own`) are not judged by their disk text.

Standard library only and relative imports, as the rest of the names package.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

from .problem import IMPORTED_ELSEWHERE, Problem
from .star_importers import listed, star_reads, star_taken
from .version_guard import catches

MAX_FILES = 5000  # files of the package read at most
_SWALLOWS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def top_bindings(tree: ast.Module) -> dict[str, int]:
    """The names the module binds at its top level (also inside module-level if/try/with/for/match),
    each with the line of its first binding."""
    out: dict[str, int] = {}
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        s = stack.pop()
        for name in _binds(s):
            out.setdefault(name, s.lineno)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for f in ("finalbody", "orelse", "body"):
            stack.extend(reversed([x for x in getattr(s, f, ()) if isinstance(x, ast.stmt)]))
        for h in getattr(s, "handlers", ()):
            if h.name:
                out.setdefault(h.name, h.lineno)
            stack.extend(reversed(h.body))
        for case in getattr(s, "cases", ()):
            stack.extend(reversed(case.body))
    return out


def _binds(s: ast.stmt) -> Iterator[str]:
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield s.name
    elif isinstance(s, (ast.Import, ast.ImportFrom)):
        yield from (a.asname or a.name.split(".")[0] for a in s.names if a.name != "*")
    else:
        targets: list[ast.expr] = []
        if isinstance(s, ast.Assign):
            targets = list(s.targets)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            targets = [s.target] if not isinstance(s, ast.AnnAssign) or s.value is not None else []
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            targets = [s.target]
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in s.items if i.optional_vars is not None]
        yield from (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        for n in ast.walk(s):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                yield n.target.id


def removed_names(old: ast.Module, new: ast.Module) -> dict[str, int]:
    """The names `old` binds at its top level and `new` does not (each with its line in `old`); none
    when `new` has a module-level `__getattr__` (it may still provide them)."""
    now = top_bindings(new)
    if "__getattr__" in now:
        return {}
    return {name: line for name, line in top_bindings(old).items() if name not in now}


def importers(
    before: bytes,
    after: bytes,
    module: tuple[str, bool] | None,
    paths: Sequence[str],
    own: Collection[str] = (),
    removed: dict[str, int] | None = None,
) -> list[Problem]:
    """A Problem per name the patch removes from `module`'s namespace that another module of its
    installed package imports from it (read from the files under `paths`), naming the importer file:line.
    `removed`: the removed names (removed_names) when the caller has them already, so nothing is parsed
    again; the package's files are read only when there are some."""
    if module is None or before == after:
        return []
    if removed is None:
        try:
            removed = removed_names(ast.parse(before), ast.parse(after))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
    gone = removed
    if not gone:
        return []
    top = module[0].split(".")[0]
    root = next((Path(p) for p in paths if (Path(p) / top / "__init__.py").is_file()), None)
    if root is None:
        return []
    files = sorted((root / top).rglob("*.py"))[:MAX_FILES]
    out: list[Problem] = []
    first = functools.cache(lambda: star_taken(before, after, gone))
    queue: list[tuple[str, bool, dict[str, int], Callable[[], tuple[set[str], set[str]]]]] = [(*module, gone, first)]
    seen = {module[0], *own}
    while queue and len(seen) <= _REEXPORTS:  # the module, then each module that passes the names on by star
        dotted, is_package, names, star = queue.pop(0)
        passing: list[tuple[str, bool, ast.Module]] = []
        for where, line, taken in _scan(root, files, dotted, is_package, names, seen, star, passing):
            out.append(Problem(names[taken], taken, "<module>", IMPORTED_ELSEWHERE, f"{where}:{line}"))
        for name, is_pkg, tree in passing:  # a star importer binds the names for its own importers too
            seen.add(name)
            passed = {n: names[n] for n in star()[0] if n not in top_bindings(tree)}
            there = listed(tree)
            taken_on = {n for n in passed if (n in there if there is not None else not n.startswith("_"))}
            on = (taken_on, {n for n in passed if there is not None and n in there})
            if passed:
                queue.append((name, is_pkg, passed, _told(on)))
    return list(dict.fromkeys(out))


def _told(value: tuple[set[str], set[str]]) -> Callable[[], tuple[set[str], set[str]]]:
    return lambda: value


_REEXPORTS = 8  # modules followed at most: the module and those that star-import it, transitively


def _scan(
    root: Path,
    files: list[Path],
    dotted: str,
    is_package: bool,
    gone: dict[str, int],
    skip: Collection[str],
    star: Callable[[], tuple[set[str], set[str]]],
    passing: list[tuple[str, bool, ast.Module]],
) -> Iterator[tuple[str, int, str]]:
    """(importer file, line, name) of each import of a `gone` name from `dotted` in the other files of
    the package; each file that star-imports what `dotted` passes on is added to `passing`."""
    last = dotted.rpartition(".")[2].encode()
    for path in files:
        rel = path.relative_to(root).with_suffix("")
        is_pkg = rel.name == "__init__"
        name = ".".join(rel.parts[:-1] if is_pkg else rel.parts)
        if name == dotted or name in skip:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        starred = b"*" in data and (is_package or last in data)  # may star-import the module (star_importers)
        if not (any(n.encode() in data for n in gone) or starred) or (not is_package and last not in data):
            continue  # names neither the name nor (for a plain module) the module: cannot import it from there
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        where = path.relative_to(root).as_posix()
        found = list(taken_from(tree, name, is_pkg, dotted, gone))
        if starred:
            found += star_uses(tree, name, is_pkg, dotted, *star())
            if star()[0] and any(_base(n, name, is_pkg) == dotted for n in _stars(tree)):
                passing.append((name, is_pkg, tree))
        yield from ((where, line, taken) for line, taken in found)


def _stars(tree: ast.Module) -> Iterator[ast.ImportFrom]:
    for node, guarded in _walk(tree):
        if isinstance(node, ast.ImportFrom) and not guarded and any(a.name == "*" for a in node.names):
            yield node


def star_uses(
    tree: ast.Module, name: str, package: bool, target: str, taken: Collection[str], breaking: Collection[str]
) -> Iterator[tuple[int, str]]:
    """(line, name) of each unguarded `from target import *` in module `name` that fails (a removed
    name the patched `__all__` still lists), and of each read there of a removed name it took."""
    for node, guarded in _walk(tree):
        if isinstance(node, ast.ImportFrom) and not guarded and any(a.name == "*" for a in node.names):
            if _base(node, name, package) == target:
                yield from ((node.lineno, n) for n in sorted(breaking))
                yield from star_reads(tree, node.lineno, set(taken) - set(breaking))


def taken_from(
    tree: ast.Module, name: str, package: bool, target: str, wanted: Collection[str]
) -> Iterator[tuple[int, str]]:
    """(line, name) of each import of a `wanted` name from module `target` in the module `name`
    (`package`: it is a package's __init__), or read of it as `target`'s attribute through a name the
    file binds to `target`, outside a try whose handler expects ImportError."""
    parent, _, last = target.rpartition(".")
    aliases: set[str] = set()  # names this file binds to the target module
    dotted_reads = {target}  # `import pkg.mod` then `pkg.mod.NAME`
    for node, guarded in _walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _base(node, name, package)
            for a in node.names:
                if base == target and a.name in wanted and not guarded:
                    yield node.lineno, a.name
                elif base == parent and a.name == last:
                    aliases.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            aliases.update(a.asname for a in node.names if a.name == target and a.asname)
    for node, guarded in _walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in wanted and isinstance(node.ctx, ast.Load) and not guarded:
            held = node.value
            if (isinstance(held, ast.Name) and held.id in aliases) or _dotted(held) in dotted_reads:
                yield node.lineno, node.attr


def _walk(tree: ast.Module) -> Iterator[tuple[ast.AST, bool]]:
    """Every node, and whether it is in a try whose handler expects ImportError."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, guarded = stack.pop()
        yield node, guarded
        inner = guarded or (isinstance(node, ast.Try) and any(catches(h, _SWALLOWS) for h in node.handlers))
        for child in ast.iter_child_nodes(node):
            in_body = isinstance(node, ast.Try) and child in node.body
            stack.append((child, guarded or (inner and in_body)))


def _dotted(e: ast.expr) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        head = _dotted(e.value)
        return f"{head}.{e.attr}" if head else ""
    return ""


def _base(node: ast.ImportFrom, name: str, package: bool) -> str:
    """The module a `from ... import` in module `name` takes its names from."""
    if not node.level:
        return node.module or ""
    parts = name.split(".")
    own = parts if package else parts[:-1]
    if node.level - 1 > len(own):
        return ""
    return ".".join([*own[: len(own) - (node.level - 1)], *([node.module] if node.module else [])])

"""Where a module now imports a scope from: the first place a moved scope is looked for
(radpatch.releases.moved). When upstream moves code it usually leaves the old module importing it
back (`from vllm.v1.core.kv_cache_planning import size`): that import says where the code went,
whatever other module near the old one happens to define the same name (a compat copy, a test
double). Read with `ast` from the wheel's bytes, followed through re-exports a few hops, nothing
imported."""

from __future__ import annotations

import ast
from collections.abc import Callable

HOPS = 4  # re-exports followed (`a` imports it from `b`, which imports it from `c`)


def modules_bound(body: list[ast.stmt], module: str, package: bool) -> dict[str, str]:
    """Top-level name -> the module (or module attribute) an import binds it to: `import a.b as m`
    (m: a.b), `import a.b` (a: a), `from a import b` and `from . import b` (b: a.b): what an assignment
    `size = m.size` reads `size` from. A name bound more than once (`try: from a import other as p` /
    `except ImportError: from a import p`, or two imports in turn) is left out: which module it holds
    when the assignment runs is not read here (att40b #4)."""
    out: dict[str, str] = {}
    times: dict[str, int] = {}
    for node in _top(body):
        if isinstance(node, ast.Import):
            for a in node.names:
                name = a.asname or a.name.split(".")[0]
                times[name] = times.get(name, 0) + 1
                out.setdefault(name, a.name if a.asname else a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            source_module = absolute(node, module, package)
            for a in node.names:
                if a.name != "*":
                    times[a.asname or a.name] = times.get(a.asname or a.name, 0) + 1
                    out.setdefault(a.asname or a.name, f"{source_module}.{a.name}" if source_module else a.name)
    return {k: v for k, v in out.items() if times[k] == 1}


def assigned_from(stmt: ast.stmt, bound: dict[str, str]) -> tuple[str, str] | None:
    """`name = m.attr` (or `name = a.b.attr`) where `m` is a module the file imports (`bound`):
    (the module, attr); None for any other statement."""
    if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
        return None
    chain: list[str] = []
    node: ast.expr = stmt.value
    while isinstance(node, ast.Attribute):
        chain.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or not chain or node.id not in bound:
        return None
    return ".".join([bound[node.id], *chain[:-1]]), chain[-1]


def _top(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of the module's top level and of its module-level `if`/`try` blocks, in order."""
    out: list[ast.stmt] = []
    stack: list[ast.stmt] = list(body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.If | ast.Try):
            stack += [
                *node.body,
                *getattr(node, "orelse", []),
                *[s for h in getattr(node, "handlers", []) for s in h.body],
            ]
            continue
        out.append(node)
    return out


def absolute(node: ast.ImportFrom, module: str, package: bool) -> str:
    """The module a `from X import` in `module` (a package's `__init__` when `package`) reads from."""
    if not node.level:
        return node.module or ""
    parts = module.split(".") if package else module.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, *([node.module] if node.module else [])])


def _imports(source: bytes, module: str, package: bool) -> dict[str, str]:
    """Top-level name -> the module its `from X import name` (at the top level, or under `if`/`try`)
    reads it from, or an assignment `name = m.name` from a module `m` the file imports; `*` -> the
    modules of its `from X import *`, joined by spaces."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, str] = {}
    bound = modules_bound(body, module, package)
    for node in _top(body):
        got = assigned_from(node, bound) if node in body else None  # at the top level: it surely runs
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        if got is not None and len(targets) == 1 and isinstance(targets[0], ast.Name) and got[1] == targets[0].id:
            out.setdefault(targets[0].id, got[0])
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            out["*"] = f"{out.get('*', '')} {absolute(node, module, package)}".strip()
    for node in _top(body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    out.setdefault(alias.asname or alias.name, absolute(node, module, package))
    return out


def relpath_of(module: str, files: set[str]) -> str | None:
    """The wheel's file of `module`: its package's `__init__.py`, else the `.py`."""
    base = module.replace(".", "/")
    return next((p for p in (f"{base}/__init__.py", f"{base}.py") if p in files), None)


def home(
    relpath: str,
    scopes: tuple[str, ...],
    files: set[str],
    read: Callable[[str], bytes | None],
    defines: Callable[[bytes, str], bool],
) -> str | None:
    """The wheel file that defines every one of `scopes`, reached from `relpath` (a module that no longer
    does) through its `from X import NAME` of their top-level names, all from one module at each hop;
    None when it imports them from no module of the wheel (a C extension, nowhere) or from several."""
    tops = tuple(dict.fromkeys(q.split(".")[0] for q in scopes))
    at, seen = relpath, {relpath}
    for _ in range(HOPS):
        data = read(at)
        if data is None:
            return None
        if at != relpath and all(defines(data, q) for q in scopes):
            return at
        module = at[: -len(".py")].replace("/", ".").removesuffix(".__init__")
        got = _imports(data, module, at.endswith("/__init__.py"))
        sources = {got.get(t) or _starred(got.get("*", ""), scopes, files, read, defines) for t in tops}
        if len(sources) != 1 or None in sources:
            return None
        nxt = relpath_of(sources.pop() or "", files)
        if nxt is None or nxt in seen:
            return None
        at = nxt
        seen.add(at)
    data = read(at)
    return at if data is not None and all(defines(data, q) for q in scopes) else None


def _starred(
    stars: str,
    scopes: tuple[str, ...],
    files: set[str],
    read: Callable[[str], bytes | None],
    defines: Callable[[bytes, str], bool],
) -> str | None:
    """The one module of a file's `from X import *` whose file defines every one of `scopes`."""
    found = []
    for m in stars.split():
        rel = relpath_of(m, files)
        data = read(rel) if rel is not None else None
        if data is not None and all(defines(data, q) for q in scopes):
            found.append(m)
    return found[0] if len(found) == 1 else None


def in_tests(module: str) -> bool:
    """A module of a `tests` (or `test`) package: a test double, never taken for the code's home on its own."""
    return any(part in ("tests", "test") for part in module.split("."))

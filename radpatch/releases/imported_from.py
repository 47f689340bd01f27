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


def _imports(source: bytes, module: str, package: bool) -> dict[str, str]:
    """Top-level name -> the module its `from X import name` (at the top level, or under `if`/`try`) reads it from."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, str] = {}
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
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            parts = module.split(".") if package else module.split(".")[:-1]
            parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
            source_module = ".".join([*parts, *([node.module] if node.module else [])])
        else:
            source_module = node.module or ""
        for alias in node.names:
            if alias.name != "*":
                out.setdefault(alias.asname or alias.name, source_module)
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
        sources = {got.get(t) for t in tops}
        if len(sources) != 1 or None in sources:
            return None
        nxt = relpath_of(sources.pop() or "", files)
        if nxt is None or nxt in seen:
            return None
        at = nxt
        seen.add(at)
    data = read(at)
    return at if data is not None and all(defines(data, q) for q in scopes) else None


def in_tests(module: str) -> bool:
    """A module of a `tests` (or `test`) package: a test double, never taken for the code's home on its own."""
    return any(part in ("tests", "test") for part in module.split("."))

"""Import cycles a patch closes: the modules of the same package that, imported first, reach a
changed module that now imports them back (F9's class: `b` imports `a`; the patch makes `a` import
from `b`; `import a` works, `import b` fails on a half-initialised `b`).

Found with `ast` from the files under the package's directory (the planned text for the files the
run changes), never by importing: a module's import-time imports are those outside function
bodies (`import x.y` also imports `x`; `from x import y` imports `x` and `x.y` when it is a module;
every module imports its parent packages first)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

MAX_MODULES = 5000  # files parsed at most per changed module
MAX_CYCLE = 8  # modules imported first, at most, per changed module


def module_file(root: Path, dotted: str) -> Path | None:
    """The file `import dotted` loads under site directory `root` (a package's __init__ first)."""
    base = root.joinpath(*dotted.split("."))
    for p in (base / "__init__.py", base.with_name(base.name + ".py")):
        if p.is_file():
            return p
    return None


def edges(data: bytes, module: str, package: bool) -> set[str]:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return tree_edges(tree.body, module, package)


def tree_edges(body: list[ast.stmt], module: str, package: bool) -> set[str]:
    """`edges` of statements already parsed."""
    out: set[str] = set()
    parts = module.split(".")
    out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                p = a.name.split(".")
                out.update(".".join(p[:i]) for i in range(1, len(p) + 1))
        elif isinstance(node, ast.ImportFrom):
            base = _base(node, parts, package)
            if base:
                p = base.split(".")
                out.update(".".join(p[:i]) for i in range(1, len(p) + 1))
                out.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
        else:
            stack.extend(ast.iter_child_nodes(node))
    out.discard(module)
    return out


def _base(node: ast.ImportFrom, parts: list[str], package: bool) -> str:
    if not node.level:
        return node.module or ""
    own = parts if package else parts[:-1]
    if node.level - 1 > len(own):
        return ""
    return ".".join([*own[: len(own) - (node.level - 1)], *([node.module] if node.module else [])])


def closed_cycles(root: Path, module: str, before: bytes, after: bytes, served: Mapping[str, bytes]) -> list[str]:
    """Modules of `module`'s top-level package that sit on an import cycle through `module` that a
    new import of the patched text closes (the new import's target first), at most MAX_CYCLE.
    `served`: the planned bytes of every file the run changes, by path."""
    top = module.split(".")[0]
    me = module_file(root, module)
    if me is None:
        return []
    package = me.name == "__init__.py"
    new = {t for t in edges(after, module, package) - edges(before, module, package) if t.split(".")[0] == top}
    new = {t for t in new if module_file(root, t) is not None}
    if not new:
        return []
    graph: dict[str, set[str]] = {module: edges(after, module, package)}
    # the patched module's parent packages have started before it runs (`import pkg.mod` runs pkg's
    # __init__ first): a new import that reaches one (`from pkg.other import A` goes through pkg) gets
    # the module already in sys.modules and runs none of its code again, so no cycle closes there
    parts = module.split(".")
    graph.update({".".join(parts[:i]): set() for i in range(1, len(parts))})
    todo = sorted(new)
    while todo and len(graph) < MAX_MODULES:
        m = todo.pop()
        if m in graph:
            continue
        f = module_file(root, m)
        if f is None:
            graph[m] = set()
            continue
        data = planned_bytes(served, f) or b""
        graph[m] = {t for t in edges(data, m, f.name == "__init__.py") if t.split(".")[0] == top}
        todo.extend(t for t in graph[m] if t not in graph)
    back: dict[str, set[str]] = {}
    for m, ts in graph.items():
        for t in ts:
            back.setdefault(t, set()).add(m)
    reaches = {module}
    todo = [module]
    while todo:
        for m in back.get(todo.pop(), ()):
            if m not in reaches:
                reaches.add(m)
                todo.append(m)
    first = [t for t in sorted(new) if t in reaches]
    if not first:
        return []
    rest = sorted(m for m in reaches - {module} - set(first) if m in graph and _reached_from(graph, first, m))
    return (first + rest)[:MAX_CYCLE]


def planned_bytes(served: Mapping[str, bytes], path: Path) -> bytes | None:
    """The file's bytes as the run leaves them: planned where it changes them (`served`, by path),
    else as read; None where it cannot be read."""
    data = served.get(str(path))
    if data is not None:
        return data
    try:
        return path.read_bytes()
    except OSError:
        return None


def _reached_from(graph: Mapping[str, set[str]], starts: list[str], goal: str) -> bool:
    seen, todo = set(starts), list(starts)
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        for t in graph.get(m, ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return False

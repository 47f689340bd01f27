"""Names a patch takes away that another module of the package gets by `from pkg.mod import *`
(issue 21): `toy/b.py` does `from toy.a import *` then `V = helper()`, and the patch deletes
`def helper` from `toy/a.py`: `import toy.b` fails with NameError, though `toy.a` imports fine.

A star import takes exactly the names the module's `__all__` lists, or, without one, each public
name (no leading `_`): a removed name it never took is no concern. A removed name the module's
patched `__all__` still lists breaks the star import itself (AttributeError at that line). A read
of a taken name counts where the importer does not bind that name itself: not at its module level,
not as a local of the reading function (nor of one it is nested in). Read from the files by
importers, never imported; standard library only and relative imports, as the rest of the package.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def listed(tree: ast.Module) -> set[str] | None:
    """The names a module-level `__all__` lists (literal lists and tuples of strings, `=` and `+=`),
    None when the module binds no `__all__` at all, or one that is not such a literal."""
    found: set[str] | None = None
    for s in tree.body:
        value, target = None, None
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            target, value = s.targets[0], s.value
        elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
            target, value = s.target, s.value
        if not (isinstance(target, ast.Name) and target.id == "__all__") or value is None:
            continue
        elts = value.elts if isinstance(value, (ast.List, ast.Tuple)) else None
        if elts is None or not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
            return None  # not told by the text: counted as if every public name were taken
        names = {str(e.value) for e in elts if isinstance(e, ast.Constant)}
        found = names if found is None or not isinstance(s, ast.AugAssign) else found | names
    return found


def star_taken(before: bytes, after: bytes, gone: Collection[str]) -> tuple[set[str], set[str]]:
    """Of the removed names `gone`: those a star import of the original module takes, and those the
    patched module's `__all__` still lists (the star import itself then raises AttributeError)."""
    try:
        old, new = listed(ast.parse(before)), listed(ast.parse(after))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    taken = {n for n in gone if (n in old if old is not None else not n.startswith("_"))}
    return taken, {n for n in gone if new is not None and n in new}


def star_reads(tree: ast.Module, star_line: int, wanted: Collection[str]) -> Iterator[tuple[int, str]]:
    """(line, name) of each read of a `wanted` name in a module that star-imports it (at `star_line`)
    and does not bind it itself: a module-level read after the star import, or one in a function."""
    own = _top_binds(tree)
    want = {n for n in wanted if n not in own}
    if not want:
        return
    stack: list[tuple[ast.AST, frozenset[str], bool]] = [(tree, frozenset(), False)]
    while stack:
        node, local, in_def = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in want and node.id not in local:
            if in_def or node.lineno > star_line:
                yield node.lineno, node.id
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCS):
                stack.append((child, local | _locals(child), True))
            else:
                stack.append((child, local, in_def))


def _top_binds(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            stack.extend(n.decorator_list)
            continue
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".")[0] for a in n.names if a.name != "*")
        stack.extend(ast.iter_child_nodes(n))
    return out


def _locals(fn: ast.AST) -> frozenset[str]:
    """What a function binds for itself: its parameters and the names its own body binds (not `global`)."""
    args = getattr(fn, "args", None)
    out = {a.arg for a in ast.walk(args) if isinstance(a, ast.arg)} if args is not None else set()
    declared: set[str] = set()
    stack: list[ast.AST] = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, (ast.Lambda, ast.arguments)):
            continue
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".")[0] for a in n.names if a.name != "*")
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(out - declared)

"""Names a patch takes away that another module of the package gets by `from pkg.mod import *`
(issue 21): `toy/b.py` does `from toy.a import *` then `V = helper()`, and the patch deletes
`def helper` from `toy/a.py`: `import toy.b` fails with NameError, though `toy.a` imports fine.

A star import takes exactly the names the module's `__all__` lists, or, without one, each public
name (no leading `_`): a removed name it never took is no concern (an `__all__` that is no literal may
list any string it is built from). A removed name the module's
patched `__all__` still lists breaks the star import itself (AttributeError at that line). A read
of a taken name counts where the importer does not bind that name itself: at its module level before
a module-level read (`helper = cache(helper)` reads it first), anywhere for a read in a function, or
as a local of the reading function (or of one it is nested in). Read from the files by
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


def mentioned(tree: ast.Module) -> set[str] | None:
    """Every string a module-level `__all__` is built from (`["a"] + ["b"]`, `.append("c")`), whatever
    the expression: what an `__all__` that is no literal may list. None when the module has no `__all__`."""
    found: set[str] | None = None
    for s in tree.body:
        target = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else getattr(s, "target", None)
        call = s.value if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) else None
        if call is not None and isinstance(call.func, ast.Attribute):
            target = call.func.value
        if isinstance(target, ast.Name) and target.id == "__all__":
            strings = {n.value for n in ast.walk(s) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            found = (found or set()) | strings
    return found


def star_taken(before: bytes, after: bytes, gone: Collection[str]) -> tuple[set[str], set[str]]:
    """Of the removed names `gone`: those a star import of the original module takes, and those the
    patched module's `__all__` still lists (the star import itself then raises AttributeError). An
    `__all__` that is no literal may list any string it is built from, and takes each public name."""
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    old, new = listed(old_tree), listed(new_tree)
    old_may, new_may = mentioned(old_tree) or set(), mentioned(new_tree) or set()
    taken = {n for n in gone if (n in old if old is not None else n in old_may or not n.startswith("_"))}
    return taken, {n for n in gone if (n in new if new is not None else n in new_may)}


def star_reads(tree: ast.Module, star_line: int, wanted: Collection[str]) -> Iterator[tuple[int, str]]:
    """(line, name) of each read of a `wanted` name in a module that star-imports it (at `star_line`)
    and does not bind it itself: a module-level read after the star import, or one in a function."""
    own = _top_binds(tree)  # name -> the line its first module-level binding statement ends on
    want = set(wanted)
    stack: list[tuple[ast.AST, frozenset[str], bool]] = [(tree, frozenset(), False)]
    while stack:
        node, local, in_def = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in want and node.id not in local:
            # bound by the importer itself: before a module-level read (`helper = cache(helper)` reads
            # first), anywhere for a read in a function (run later)
            bound = node.id in own and (in_def or own[node.id] < node.lineno)
            if not bound and (in_def or node.lineno > star_line):
                yield node.lineno, node.id
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCS):
                stack.append((child, local | _locals(child), True))
            else:
                stack.append((child, local, in_def))


def _top_binds(tree: ast.Module) -> dict[str, int]:
    """Each name the module binds at its level, and the line its first binding statement (at the top
    level) ends on."""
    out: dict[str, int] = {}
    for top in tree.body:
        end = top.end_lineno or top.lineno
        stack: list[ast.AST] = [top]
        while stack:
            n = stack.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.setdefault(n.name, end)
                stack.extend(n.decorator_list)
                continue
            if isinstance(n, ast.Lambda):
                continue
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                out.setdefault(n.id, end)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    if a.name != "*":
                        out.setdefault(a.asname or a.name.split(".")[0], end)
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

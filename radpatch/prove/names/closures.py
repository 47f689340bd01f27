"""What a function defined in the scope being walked does when it is called: the names its body
reads from the scopes around it (`free_reads`), and the locals of the scope around it that every
return of it binds through `nonlocal` (`nonlocal_binds`). Read with `ast` only."""

from __future__ import annotations

import ast

from .scope_bindings import FUNCS

_SIMPLE = (ast.Nonlocal, ast.Global, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Pass, ast.Assert)


def free_reads(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names `fn`'s body reads when it runs and binds nowhere inside it (a nested function's
    body does not run with it)."""
    reads: set[str] = set()
    binds: set[str] = set()
    stack: list[ast.AST] = [fn.body, fn.args] if isinstance(fn, ast.Lambda) else [*fn.body, fn.args]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else binds).add(node.id)
        elif isinstance(node, ast.arg):
            binds.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            binds.update(node.names)
        if isinstance(node, (*FUNCS, ast.Lambda)) and node is not fn:
            if isinstance(node, FUNCS):
                binds.add(node.name)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return reads - binds


def nonlocal_binds(fn: ast.FunctionDef) -> set[str]:
    """The names `fn` declares `nonlocal` and assigns in the straight run of simple statements that
    begins its body, before any statement that may return early, loop or branch: bound whenever a call
    of `fn` returns. None for a generator (a call runs nothing of its body); a `del` takes a name out."""
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(fn)):
        return set()
    declared: set[str] = set()
    out: set[str] = set()
    for s in fn.body:
        if isinstance(s, ast.Nonlocal):
            declared.update(s.names)
        elif isinstance(s, ast.Assign | ast.AnnAssign) and (s.value is not None):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name) and t.id in declared)
        elif isinstance(s, ast.Delete):
            out.difference_update(t.id for t in s.targets if isinstance(t, ast.Name))
        elif not isinstance(s, _SIMPLE):
            break
    return out


def own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of `fn`'s body, not those of the functions, lambdas and classes it defines."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (*FUNCS, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return out

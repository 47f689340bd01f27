"""What a path stores, as path facts and claims need it (path_facts): the names a body binds or
deletes, facts without what they tell of those names, and the walrus targets a test binds where it
came out one way."""

from __future__ import annotations

import ast

from .path_facts import Facts, root


def stored(body: list[ast.stmt]) -> frozenset[str]:
    """The names `body` binds or deletes (what a path that stopped partway through may have changed)."""
    return frozenset(
        n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    )


def without(facts: Facts, names: set[str] | frozenset[str]) -> Facts:
    """`facts` but what they tell of `names` (a flag whose test reads one of them too)."""
    if not facts or not names:
        return facts
    return {k: v for k, v in facts.items() if root(k) not in names and not (k[1] == "same" and k[2][1] & names)}  # type: ignore[index]


def evaluated(test: ast.expr, outcome: bool) -> list[ast.Name]:
    """The walrus targets every operand of `test` binds where it came out `outcome`: each operand of a
    true `and` (a false `or`) ran, but what an `and`, `or` or conditional inside one skips."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, outcome = test.operand, not outcome
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == outcome):
        return []
    out: list[ast.Name] = []
    stack: list[ast.AST] = list(test.values)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.append(node.target)
        if not isinstance(node, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp)):
            if not isinstance(node, ast.GeneratorExp):
                stack.extend(ast.iter_child_nodes(node))
    return out

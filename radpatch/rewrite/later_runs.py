"""What of a scope's code runs after the statement that binds a name, and through which names it
reaches the value bound there: what rewrite.later_changes reads (issue 21, later53).

Runs after the binding: every node of the scope's own code (its blocks and comprehensions, a class
body, what runs where a def is: decorators, defaults, annotations; not a function's body) that
starts after the binding ends; and one above it inside a loop that holds both (`for`, or `while`
with its test), which runs again after the binding on the next pass, unless the binding is a
statement of that loop's body with no `break` or `continue` before it (then every pass binds a
fresh value after it). Reaches the value: the name itself, a name given it later (`ALIAS = CFG`,
at any depth of aliases), and, one level deep, the parameter of a function the scope defines that
a later call passes it to (`def _fill(d): d["k"] = 2` ... `_fill(CFG)`: the body of `_fill`, with
`d`). A function from elsewhere, a method, a call made inside that body are not followed.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)


def runs_after(body: list[ast.stmt], name: str, bound: ast.AST) -> Iterator[tuple[ast.AST, frozenset[str], ast.AST]]:
    """(node, the names that hold the value bound at `bound` where the node runs, the node a refusal
    names: the node itself, or the call that runs a followed function's body), for each node of the
    scope's code that may run after `bound`, in source order (a followed body right after its call)."""
    start, end = _start(bound), _end(bound)
    again = _loops_again(body, bound)
    defs = {d.name: d for d in own(body) if isinstance(d, _DEFS)}
    holders = {name}
    for node in own(body):
        at = _start(node)
        if not at[0] or (at < end and not any(lo <= at < hi for lo, hi in again)) or start <= at < end:
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and _holds(node.value, holders):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            holders |= {t.id for t in targets if isinstance(t, ast.Name)}  # `ALIAS = CFG`
        yield node, frozenset(holders), node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defs:
            params = _passed(node, defs[node.func.id], holders)
            if params:
                inner = frozenset(params)
                yield from ((n, inner, node) for n in own(defs[node.func.id].body))


def own(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of the code the scope runs, in source order: not a function's or lambda's body, but
    what runs where one is defined (decorators, defaults, annotations) and a class body (att52 #2b, #2c)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_DEFS, ast.Lambda)):
            stack.extend(reversed(_runs_at_definition(node)))
        else:
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _runs_at_definition(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.AST]:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    out: list[ast.AST] = [*getattr(node, "decorator_list", []), *args.defaults]
    out += [d for d in args.kw_defaults if d is not None] + [a.annotation for a in every if a.annotation]
    returns = getattr(node, "returns", None)
    return out + ([returns] if returns is not None else [])


def _start(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _end(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0


def _holds(value: ast.AST | None, holders: set[str]) -> bool:
    return isinstance(value, ast.Name) and value.id in holders


def _loops_again(body: list[ast.stmt], bound: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The spans (start, end) of the code above `bound` that a loop holding it runs again after it."""
    at = _start(bound)
    out = []
    for loop in own(body):
        if not isinstance(loop, _LOOPS) or not loop.body:
            continue
        first = loop.test if isinstance(loop, ast.While) else loop.body[0]
        if not _start(first) <= at < _end(loop.body[-1]):
            continue
        before = [s for s in loop.body if _end(s) <= at]
        jumps = any(isinstance(n, (ast.Break, ast.Continue)) for s in before for n in ast.walk(s))
        if any(isinstance(s, _SIMPLE) and _start(s) <= at < _end(s) for s in loop.body) and not jumps:
            continue  # each pass binds a fresh value after what it ran above
        out.append((_start(first), at))
    return out


def _passed(call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef, holders: set[str]) -> set[str]:
    """The parameters of `fn` that `call` passes the value to (positionally or by keyword); a `*args`
    or `**kw` argument before or at it: every parameter (the text cannot say which)."""
    a = fn.args
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    every = {*positional, *(p.arg for p in a.kwonlyargs), *(p.arg for p in filter(None, (a.vararg, a.kwarg)))}
    out: set[str] = set()
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return every if _holds(arg.value, holders) or any(_holds(x, holders) for x in call.args[i:]) else out
        if _holds(arg, holders):
            out.add(positional[i] if i < len(positional) else a.vararg.arg if a.vararg else "")
    for kw in call.keywords:
        if kw.arg is None and _holds(kw.value, holders):
            return every
        if kw.arg is not None and _holds(kw.value, holders):
            out.add(kw.arg if kw.arg in every else a.kwarg.arg if a.kwarg else "")
    return out - {""}

"""What a function defined in the scope being walked does when it is called: the names its body
reads from the scopes around it (`free_reads`), and the locals of the scope around it that every
return of it binds through `nonlocal` (`nonlocal_binds`). Read with `ast` only."""

from __future__ import annotations

import ast

from .scope_bindings import COMPS, FUNCS


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
    """The names `fn` declares `nonlocal` and binds on every way it returns (issue 21 #2: under both
    branches of an if, in a try's body and each handler), followed through its statements: a loop,
    a `with` (it may swallow what its body raises) or a `match` binds nothing for sure, a `return`
    ends a way with what is bound by then, a `raise` ends one that does not return. None for a
    generator (a call runs nothing of its body); a `del` takes a name out."""
    nodes = own_nodes(fn)
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) or _leaves_finally(n) for n in nodes):
        return set()
    declared = {name for n in nodes if isinstance(n, ast.Nonlocal) for name in n.names}
    if not declared:
        return set()
    returns: list[set[str]] = []
    end = _binds(fn.body, set(), declared, returns)
    ways = returns + ([end] if end is not None else [])
    return set.intersection(*ways) if ways else set()


def _binds(body: list[ast.stmt], bound: set[str], declared: set[str], returns: list[set[str]]) -> set[str] | None:
    """What is bound for sure where `body` falls through (None: it does not); each `return` met adds
    what is bound there to `returns`."""
    bound = set(bound)
    for s in body:
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            bound |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)} & declared
        elif isinstance(s, ast.Delete):
            bound -= {n.id for t in s.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(s, ast.Return):
            returns.append(bound)
            return None
        elif isinstance(s, (ast.Raise, ast.Break, ast.Continue)):  # a loop's body is walked apart
            return None
        elif isinstance(s, ast.If):
            ends = [_binds(b, bound, declared, returns) for b in (s.body, s.orelse)]
            falls = [e for e in ends if e is not None]
            if not falls:
                return None
            bound = set.intersection(*falls)
        elif isinstance(s, ast.Try):
            ends = [_binds([*s.body, *s.orelse], bound, declared, returns)]
            ends += [_binds(h.body, bound, declared, returns) for h in s.handlers]  # raised before any binding
            falls = [e for e in ends if e is not None]
            after = _binds(s.finalbody, set.intersection(*falls) if falls else bound, declared, returns)
            if not falls or after is None:
                return None
            bound = after
        elif isinstance(s, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Match)):
            for part in [getattr(s, "body", []), getattr(s, "orelse", []), *(c.body for c in getattr(s, "cases", []))]:
                _binds(part, bound, declared, returns)  # its returns; what it binds is not sure
    return bound


def _leaves_finally(n: ast.AST) -> bool:
    """A `finally` that may end a way another way or take a name out (a return's binding undone)."""
    leave = (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Delete)
    return isinstance(n, ast.Try) and any(isinstance(x, leave) for b in n.finalbody for x in ast.walk(b))


def own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module) -> list[ast.AST]:
    """The nodes of `fn`'s body (a function's, or a class's), not those of the functions, lambdas and
    classes it defines."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (*FUNCS, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def runs_items(node: ast.AST) -> bool:
    """Does a list, set or dict comprehension surely evaluate its items once: each `for` over a display
    that is not empty, no `if`? (A generator expression runs nothing until it is iterated.)"""
    gens = getattr(node, "generators", [])
    return not isinstance(node, ast.GeneratorExp) and all(
        not g.ifs and not g.is_async and isinstance(g.iter, (ast.List, ast.Tuple, ast.Set)) and g.iter.elts
        and not any(isinstance(e, ast.Starred) for e in g.iter.elts)
        for g in gens
    )  # fmt: skip


def sure_calls(roots: list[ast.expr]) -> list[ast.Call]:
    """The calls evaluating `roots` surely makes: not in an operand past an `and`/`or`'s first, a
    conditional expression's branch, a lambda or a comprehension."""
    out: list[ast.Call] = []
    stack: list[ast.AST] = list(roots)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Call):
            out.append(n)
        if isinstance(n, (ast.Lambda, *COMPS)):
            continue
        if isinstance(n, ast.BoolOp):
            stack.append(n.values[0])
        elif isinstance(n, ast.IfExp):
            stack.append(n.test)
        else:
            stack.extend(ast.iter_child_nodes(n))
    return out

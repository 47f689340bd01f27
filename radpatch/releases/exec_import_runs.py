"""Which top-level statements of a module may run which of its top-level defs at import: what
exec_reads adds to a statement, so that a def run at import that binds or changes a name of an exec
call's namespace (`global NS; NS = ...`, `globals()["NS"] = ...`, `NS.update(...)`) is part of the
code the call depends on (att56 F11, issue 23).

A statement runs a def at import (rewrite.later_runs' notion: its own code, decorators, defaults, a
class body, and the bodies of the module's functions its calls run, transitively) where that code
uses the def's value, under its name or an alias (`setup = configure`, `HOOKS = [configure]`), other
than by binding it to another name or putting it in a display bound to one: called (`configure()`,
`HOOKS[0]()`, `for f in HOOKS: f()`), a decorator (`@configure`), passed to a call (`map(configure,
...)`: radpatch cannot tell whether that call runs it) or anything else it does not read; and where
later_runs stops (a call chain too deep). Not seen: a def a method of a class runs (`C()` running
`__init__`), a def run under a name no binding shows (exec_reads counts those: every def that may
bind a name goes with a statement radpatch cannot read). Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from radpatch.rewrite.later_runs import Unfollowed, reaches, runs_after

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def runners(body: list[ast.stmt], names: Iterable[str]) -> dict[str, set[int]]:
    """For each of `names` (top-level defs of `body`), the indexes in `body` of the top-level
    statements that may run it at import (the last def of the name: the one in effect after it)."""
    where = {id(n): i for i, s in enumerate(body) for n in ast.walk(s)}
    defs = {s.name: s for s in body if isinstance(s, _DEFS)}
    kept = _kept(body)
    out: dict[str, set[int]] = {}
    for name in names:
        fn = defs.get(name)
        if fn is None:
            continue
        found: set[int] = set()
        for node, held, shown in runs_after(body, name, fn):
            used = isinstance(node, Unfollowed) or (_loaded(node) and reaches(node, held) and id(node) not in kept)
            if used and id(shown) in where:
                found.add(where[id(shown)])
        out[name] = found
    return out


def _loaded(node: ast.AST) -> bool:
    return isinstance(node, ast.Name | ast.Subscript) and isinstance(node.ctx, ast.Load)


def _kept(body: list[ast.stmt]) -> set[int]:
    """The nodes that only bind a value to another name (`setup = configure`) or put it in a display
    bound to one (`HOOKS = [configure]`): later_runs follows the value from there."""
    out: set[int] = set()
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            continue
        value = node.value
        out.add(id(value))
        if isinstance(value, ast.Tuple | ast.List | ast.Set):
            out.update(id(e) for e in value.elts)
        elif isinstance(value, ast.Dict):
            out.update(id(v) for v in value.values)
    return out

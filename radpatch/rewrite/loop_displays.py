"""What a loop variable over a list or tuple display may be, for rewrite.import_callees (issue 21):
`for hook in (configure, other): hook()` and `HOOKS = [configure, other]` then `for hook in HOOKS:
hook(CFG)` call exactly the displayed callables, as `h = a if c else b` does.

The iterable must be a list or tuple display written in the loop, or a name bound exactly once (in
the whole module, at any depth) to such a display and otherwise only iterated (`for x in HOOKS`),
indexed (`HOOKS[0]`) or measured (`len(HOOKS)`): no `.append`/`.extend`, `+=`, item store, `del`,
rebinding, passing it to a call, aliasing it, naming it as text (`globals()["HOOKS"]`) or as an
attribute (`K.HOOKS`). A starred element, or an element other than a name or a lambda, leaves the
loop variable unknown (the safe side: every function let out may run).

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

_DISPLAYS = (ast.List, ast.Tuple)


def displayed(body: Sequence[ast.AST], loops: Sequence[ast.AST]) -> dict[int, list[ast.expr]]:
    """For each `for` of `loops` (nodes of the scope's own code) whose target is a name and whose
    iterable is such a display, the id of the target and the display's elements (names, lambdas)."""
    fors = [n for n in loops if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name)]
    if not fors:
        return {}
    out: dict[int, list[ast.expr]] = {}
    fixed: dict[str, list[ast.expr] | None] = {}
    for loop in fors:
        shown = loop.iter
        if isinstance(shown, ast.Name):
            if shown.id not in fixed:
                fixed[shown.id] = _fixed_display(body, shown.id)
            elts = fixed[shown.id]
        else:
            elts = _elements(shown)
        if elts is not None:
            out[id(loop.target)] = elts
    return out


def _elements(value: ast.AST) -> list[ast.expr] | None:
    """A display's elements where each is a name or a lambda; None for anything else."""
    if not isinstance(value, _DISPLAYS):
        return None
    if not all(isinstance(e, (ast.Name, ast.Lambda)) for e in value.elts):
        return None
    return list(value.elts)


def _fixed_display(body: Sequence[ast.AST], name: str) -> list[ast.expr] | None:
    """The elements of the display `name` is bound to, where it is bound once and never changed."""
    bindings: list[ast.AST] = []
    kept: set[int] = set()  # the uses that leave the display as it is
    loads: list[ast.Name] = []
    for node in (n for top in body for n in ast.walk(top)):
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Load):
                loads.append(node)
            else:
                bindings.append(node)
        elif isinstance(node, (ast.Attribute, ast.Constant)) and name in (
            getattr(node, "attr", None),
            getattr(node, "value", None),
        ):
            return None  # `K.HOOKS`, `globals()["HOOKS"]`: changed where the text does not show
        elif name in _declared(node):  # `global HOOKS`, `import x as HOOKS`, a parameter, `except E as HOOKS`
            return None
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            kept.add(id(node.iter))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            kept.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            kept.update(id(a) for a in node.args)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, _DISPLAYS):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if [t.id for t in targets if isinstance(t, ast.Name)] == [name] and len(targets) == 1:
                kept.add(id(targets[0]))
    if len(bindings) != 1 or id(bindings[0]) not in kept or any(id(u) not in kept for u in loads):
        return None
    (target,) = bindings
    for node in (n for top in body for n in ast.walk(top)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and any(t is target for t in _targets(node)):
            return _elements(node.value) if node.value is not None else None
    return None


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _declared(node: ast.AST) -> list[str]:
    """The names a node binds or declares other than by a Name node."""
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    said = getattr(node, "name", None) if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) else None
    rest = node.rest if isinstance(node, ast.MatchMapping) else None
    return [n for n in (said, rest) if isinstance(n, str)]

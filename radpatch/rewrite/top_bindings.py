"""What a top-level statement binds in its module (a def or class, an import, an assignment's
target, inside its blocks too), and what such a statement is to a payload: read with `ast`, for the
index of a `Source` and the operations that insert or move top-level code."""

from __future__ import annotations

import ast

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def bindings(node: ast.stmt) -> list[tuple[str, ast.AST]]:
    """(name, the node that binds it) for each module-level binding of a top-level statement, in
    source order: a def or class, an import, an assignment's (or for loop's, `with ... as`'s,
    `:=`'s) target, an `except ... as` name, a match capture, including those inside its
    if/try/with/for/while/match blocks (not inside functions, classes or comprehensions, but for
    a comprehension's `:=`, which binds in the module)."""
    out: list[tuple[str, ast.AST]] = []

    def visit(n: ast.AST, owner: ast.AST) -> None:
        if isinstance(n, DEFS):
            out.append((n.name, n))
            for d in n.decorator_list:
                visit(d, owner)
            return
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out.extend(((a.asname or a.name).split(".")[0], n) for a in n.names if a.name != "*")
            return
        if isinstance(n, _COMPREHENSIONS):  # `[(X := 7) for _ in y]` binds X in the module (PEP 572)
            out.extend((w.target.id, owner) for w in _comprehension_walrus(n) if isinstance(w.target, ast.Name))
            return
        if isinstance(n, _SCOPES):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.append((n.id, owner))
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.append((n.name, n))
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            out.append((n.name, n))
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.append((n.rest, n))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is None:
            return  # `x: int` binds nothing
        for child in ast.iter_child_nodes(n):
            visit(child, n if isinstance(n, ast.stmt) else owner)

    visit(node, node)
    return out


def _comprehension_walrus(n: ast.AST) -> list[ast.NamedExpr]:
    """The assignment expressions of comprehension `n` (nested ones too, not in a lambda, def or
    class): they bind in the scope that holds the comprehension."""
    out: list[ast.NamedExpr] = []
    stack = list(ast.iter_child_nodes(n))
    while stack:
        x = stack.pop()
        if isinstance(x, ast.NamedExpr):
            out.append(x)
        if isinstance(x, _SCOPES) and not isinstance(x, _COMPREHENSIONS):
            continue
        stack.extend(ast.iter_child_nodes(x))
    return out


def bound_names(node: ast.stmt) -> tuple[str, ...]:
    """Names a top-level statement binds in its module (the ones a payload must not take over),
    including inside its blocks (`try: import orjson as json`)."""
    return tuple(dict.fromkeys(name for name, _ in bindings(node)))


def is_constant(node: ast.stmt) -> bool:
    """`NAME = value` or `NAME: T = value` (one plain name)."""
    if isinstance(node, ast.Assign):
        return len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    return isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None


def payload_statement(node: ast.stmt, first: bool) -> str | None:
    """What a payload's top-level statement is to radpatch: "def" and "constant" are inserted,
    "import" is added after the target's imports, "docstring" and "future" describe the payload
    itself; None: cannot be moved into another module (the loader refuses it)."""
    if isinstance(node, DEFS):
        return "def"
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return "future"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return None if any(a.name == "*" for a in node.names) else "import"
    if (
        first
        and isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ):
        return "docstring"
    return "constant" if is_constant(node) else None

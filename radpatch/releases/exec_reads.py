"""The code of its module an `exec`/`eval` call radpatch cannot read depends on, as a digest a
`vouched_exec:` item's `reads:` holds (issue 23, vouch2 #1). `binds` names the statements binding the
names the call passes; what they do not show, and a release can change under an unchanged statement:
the text of the code run where a def builds it (`exec(_text(code), ns)`, `_text`'s body), what a
parameter holds (the module's calls of the def: `run(code, vars(core))` where it was `run(code, {})`),
an attribute it passes (`self.namespace`: every statement of the class), and the namespace changed in
place, before or after the call (`namespace.update(...)`, `vars(core).update(namespace)`,
`globals().update(...)`, `setattr(module, ...)`).

The slice: the top-level def or class the call stands in (the module's own statements other than defs
and classes where it is at module level); each top-level statement binding a name the slice reads, and
each one that writes a name the slice reads in place; each top-level statement naming the slice's def
or class (its callers in the module); each top-level statement writing a namespace no binding shows
(`globals()`, `vars()`, `setattr`, `sys.modules`, `__dict__`); all transitively. The digest is of the
slice's syntax trees (formatting, comments and the rest of the module aside) in a form that does not
depend on the Python reading it. What it cannot see: code of other modules (a caller elsewhere, an
object another module made or changes); a change in the slice that does not change what the code run
does refuses too (read it again). Read with `ast` only."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator

_WRITES = frozenset({"update", "setdefault", "__setitem__", "__delitem__", "pop", "popitem", "clear", "__setattr__"})
_DYNAMIC = frozenset({"globals", "vars", "locals", "setattr", "delattr", "__dict__", "modules", "exec", "eval"})


def slice_of(tree: ast.Module, top: ast.stmt) -> list[ast.stmt]:
    """The top-level statements of `tree` the call in the top-level statement `top` depends on, in
    source order: up, the statements naming `top` and, in turn, what they bind (its callers and what
    uses them); then down, what binds or changes in place a name any of those reads, in turn."""
    body = tree.body
    plain = [s for s in body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    defined = isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    start = [top] if defined else plain  # a call in the module's own code: all of it
    taken: dict[int, ast.stmt] = {id(s): s for s in start}
    todo = list(start) if defined else []
    while todo:  # up: the statements reading what the call's def (and, in turn, they) bind
        named = set(_bound(todo.pop()))
        for s in body:
            if id(s) not in taken and named & set(_read(s)):
                taken[id(s)] = s
                todo.append(s)
    for s in body:
        if _dynamic(s):
            taken.setdefault(id(s), s)
    todo = list(taken.values())
    while todo:  # down: the statements binding, or changing in place, what they read
        read = set(_read(todo.pop()))
        for s in body:
            if id(s) not in taken and read & (set(_bound(s)) | set(_written(s))):
                taken[id(s)] = s
                todo.append(s)
    return [s for s in body if id(s) in taken]


def digest(stmts: list[ast.stmt]) -> str:
    """12 hex digits of the statements' syntax trees, alike under every Python that parses them."""
    text = "\n".join(_norm(s) for s in stmts)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def names(stmts: list[ast.stmt]) -> list[str]:
    """The slice in words: each statement by the name it binds (a def, a class) or its first line."""
    return [next(iter(_bound(s)), None) or ast.unparse(s).split("\n", 1)[0][:40] for s in stmts]


def _norm(node: object) -> str:
    """A dump with no positions and no empty fields: fields later Pythons add (`type_params=[]`) do not count."""
    if isinstance(node, ast.AST):
        fields = []
        for name, value in ast.iter_fields(node):
            if value is None or value == [] or name == "type_comment" or (name == "kind" and value is None):
                continue
            fields.append(f"{name}={_norm(value)}")
        return f"{type(node).__name__}({','.join(fields)})"
    if isinstance(node, list):
        return "[" + ",".join(_norm(v) for v in node) + "]"
    return repr(node)


def _bound(stmt: ast.stmt) -> Iterator[str]:
    """The names a top-level statement binds in the module."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield stmt.name
        return
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            yield n.id
        elif isinstance(n, ast.alias) and n.name != "*":
            yield n.asname or n.name.split(".")[0]
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n is not stmt:
            yield n.name


def _read(stmt: ast.stmt) -> Iterator[str]:
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            yield n.id


def _written(stmt: ast.stmt) -> Iterator[str]:
    """The names whose object a top-level statement changes in place: `ns[k] = v`, `ns.a = v`, `del ns[k]`,
    `ns.update(...)` (a dict-writing method), `setattr(ns, ...)`."""
    for n in ast.walk(stmt):
        if isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.ctx, ast.Store | ast.Del):
            yield from _root(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WRITES:
            yield from _root(n.func.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr"):
            yield from (_root(n.args[0]) if n.args else ())


def _root(node: ast.expr) -> Iterator[str]:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    if isinstance(node, ast.Name):
        yield node.id


def _dynamic(stmt: ast.stmt) -> bool:
    """A top-level statement (not a def or class) that may write a namespace no binding shows."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and n.id in _DYNAMIC or isinstance(n, ast.Attribute) and n.attr in _DYNAMIC:
            return True
    return False

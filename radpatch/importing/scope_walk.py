"""Walking a scope as the rewrites do, on `ast` trees (the importer's, beside importing.statements):
the blocks of a compound statement and every statement slot and expression of a scope (not inside
nested definitions), the body a qualified name names, the name that reaches a definition, and
where a run of statements or an expression matches.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from radpatch.importing.statements import DEFS, Def, key, loose_key


def one_line_suite(stmt: ast.stmt) -> bool:
    return any(b and b[0].lineno == stmt.lineno for b in blocks_of(stmt)) or any(
        h.body and h.body[0].lineno == h.lineno for h in getattr(stmt, "handlers", [])
    )


def blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """Every statement list of a statement, in field order (body, orelse, finalbody, each handler's,
    each case's): empty ones too, and a definition's body."""
    out: list[list[ast.stmt]] = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(stmt, field, None)
        if isinstance(value, list):
            out.append(value)
    for h in getattr(stmt, "handlers", []):
        out.append(h.body)
    for case in getattr(stmt, "cases", []):
        out.append(case.body)
    return out


def blocks_of(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists right inside a compound statement (not a definition's body), not empty, in
    source order."""
    if isinstance(stmt, DEFS):
        return []
    found = [b for b in blocks(stmt) if b and isinstance(b[0], ast.stmt)]
    return sorted(found, key=lambda b: b[0].lineno)  # as apply counts: a try's handlers before its else


def slots(body: list[ast.stmt]) -> Iterator[tuple[list[ast.stmt], int]]:
    """(block, index) of every statement of a scope's body at any depth, in source order, not
    inside nested definitions: what the rewrites' statement `find` and `occurrence:` walk."""
    for i, stmt in enumerate(body):
        yield body, i
        for inner in blocks_of(stmt):
            yield from slots(inner)


def expressions(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """Every expression in a scope's body in source order, not inside nested definitions."""
    for stmt in body:
        if isinstance(stmt, DEFS):
            continue
        yield from _exprs(stmt)


def _exprs(node: ast.AST) -> Iterator[ast.expr]:
    for field in node._fields:
        value = getattr(node, field, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, DEFS):
                continue
            if isinstance(item, ast.expr):
                yield item
            if isinstance(item, ast.AST):
                yield from _exprs(item)


def scope_body(tree: ast.Module, qualname: str) -> list[ast.stmt] | None:
    """The body of `<module>`, `f`, `Class.method`, `Class.prop.setter`, ..., chosen as the rewrites
    choose among definitions of one name (rewrite.scopes.find_scope), or None when no one
    definition is named."""
    body = tree.body
    if qualname == "<module>":
        return body
    parts = qualname.split(".")
    k = 0
    nested = True  # the module's and a function's defs in if/try/with blocks count; a class's do not
    while k < len(parts):
        part, k = parts[k], k + 1
        hits = _named(body, part, nested, top=k == 1)
        if len(hits) > 1:
            hits = [s for s in hits if not _overload(s)]
        if len(hits) > 1 and k < len(parts) and parts[k] in ACCESSORS:
            hits, k = [s for s in hits if _accessor(s, part) == parts[k]], k + 1
        if len(hits) != 1:
            return None
        body, nested = hits[0].body, not isinstance(hits[0], ast.ClassDef)
    return body


def _named(body: list[ast.stmt], name: str, nested: bool, top: bool) -> list[Def]:
    """The definitions called `name` the rewrites (rewrite.scopes.find_scope) choose among in a
    scope's body: in a module or function, those in its if/try/with/for blocks too (not inside
    nested definitions), except that a module's own top-level ones win; in a class, its own."""
    own = [s for s in body if isinstance(s, DEFS) and s.name == name]
    if not nested or (top and own):
        return own
    inner = (block[i] for block, i in slots(body))
    return [s for s in inner if isinstance(s, DEFS) and s.name == name]


ACCESSORS = ("getter", "setter", "deleter")


def scoped_name(body: list[ast.stmt], d: ast.stmt, kind: str = "class") -> str | None:
    """What names the definition `d` of `body` (a scope of `kind`) in a scope, as the rewrites
    resolve it: its name when it is the only definition of it or the only one not `@overload`
    (in a module or function, counting those in its if/try/with blocks: one defined once inside
    `if TYPE_CHECKING:` or `try:` is reached by name); `prop.setter` (`getter`, `deleter`) for one
    accessor of a property; None when no scope name gives just `d`."""
    assert isinstance(d, DEFS)
    same = _named(body, d.name, kind in ("module", "function"), top=kind == "module")
    if same == [d]:
        return d.name
    live = [s for s in same if not _overload(s)]
    if d not in live:
        return None
    if len(live) == 1:
        return d.name
    kinds = [_accessor(s, d.name) for s in live]
    accessor = _accessor(d, d.name)
    if accessor is None or None in kinds or kinds.count(accessor) != 1:
        return None
    return f"{d.name}.{accessor}"


def _decorator_names(d: ast.stmt) -> list[str]:
    out = []
    for e in getattr(d, "decorator_list", []):
        e = e.func if isinstance(e, ast.Call) else e
        parts = []
        while isinstance(e, ast.Attribute):
            parts.append(e.attr)
            e = e.value
        if isinstance(e, ast.Name):
            out.append(".".join([e.id, *reversed(parts)]))
    return out


def _overload(d: ast.stmt) -> bool:
    return any(n == "overload" or n.endswith(".overload") for n in _decorator_names(d))


def _accessor(d: ast.stmt, name: str) -> str | None:
    for n in _decorator_names(d):
        if n in ("property", "functools.cached_property", "cached_property") or n == f"{name}.getter":
            return "getter"
        if n in (f"{name}.setter", f"{name}.deleter"):
            return n.rsplit(".", 1)[1]
    return None


def statement_hits(body: list[ast.stmt], run: list[ast.stmt]) -> list[tuple[list[ast.stmt], int]]:
    want = [key(s) for s in run]
    kinds = [type(s) for s in run]
    n = len(want)
    # the types first: dumping every statement of a large scope is most of an import's time
    return [
        (block, i)
        for block, i in slots(body)
        if [type(s) for s in block[i : i + n]] == kinds and [key(s) for s in block[i : i + n]] == want
    ]


def expression_hits(body: list[ast.stmt], node: ast.expr) -> list[ast.expr]:
    want = loose_key(node)
    kind = type(node)
    return [e for e in expressions(body) if type(e) is kind and loose_key(e) == want]


def is_expression_statement(run: list[ast.stmt]) -> bool:
    """One expression statement: the rewrites match such a `replace` find as an expression."""
    return len(run) == 1 and isinstance(run[0], ast.Expr)

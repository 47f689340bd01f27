"""What `ast` tells insert_definitions of a class: the def or class a name is in the module (by
find_scope's rule), the names its body binds, and why a payload constant cannot become a plain
attribute of it (a field of a dataclass-like class, a member of an enum)."""

from __future__ import annotations

import ast
import difflib

from radpatch.rewrite.matching import Ambiguous, NearMiss, NotFound
from radpatch.rewrite.ops.common import near
from radpatch.rewrite.source import Source
from radpatch.rewrite.top_bindings import DEFS, bindings, bound_names


def module_definition(src: Source, name: str, qualname: str = "") -> tuple[int, ast.stmt]:
    """The def or class `name` of the module, by find_scope's rule for a scope's first part: a
    top-level one; else one defined in a module-level if/try/with/for block, when it is the only
    def or class of that name there. (index into src.tops of the statement holding it, its node, lines
    relative to that statement)."""
    hits = src.named(name)
    if len(hits) == 1:
        return hits[0], src.node(hits[0])
    nested = (
        []
        if hits
        else [
            (i, node)
            for i, t in enumerate(src.tops)
            if name in t.binds and t.name is None
            for bound, node in bindings(src.node(i))
            if bound == name and isinstance(node, DEFS)
        ]
    )
    if len(nested) == 1:
        return nested[0][0], nested[0][1]
    if hits or nested:
        lines = [src.tops[a].start + 1 for a in hits] or [src.tops[i].start + n.lineno for i, n in nested]
        raise Ambiguous(f"the module defines {name!r} {len(lines)} times (lines {', '.join(str(n) for n in lines)})")
    close = difflib.get_close_matches(name, src.names(), n=3)
    raise (NearMiss if close else NotFound)(
        f"class {qualname or name!r} not found in the module; {near(name, src.names())}",
        "fix the class name (a class of the module: `Class`, `Outer.Inner`)" if close else "",
    )


def class_binds(node: ast.ClassDef) -> dict[str, int]:
    """The names the class body binds (methods, nested classes, attributes, the names its
    `__slots__` lists: a class attribute of such a name makes creating the class fail), with
    their first line. A `__slots__` radpatch cannot read binds every name ("*")."""
    out: dict[str, int] = {}
    for stmt in node.body:
        for name in bound_names(stmt):
            out.setdefault(name, stmt.lineno)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and "__slots__" in bound_names(stmt):
            value = stmt.value
            items = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else [value]
            for item in items:
                readable = isinstance(item, ast.Constant) and isinstance(item.value, str)
                out.setdefault(item.value if readable else "*", stmt.lineno)  # type: ignore[union-attr]
    return out


_ENUMS = ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")


def special_class(node: ast.ClassDef, qualname: str, name: str, item: ast.stmt) -> str | None:
    """Why a payload constant cannot go into this class as a plain attribute: an annotated one
    becomes a field of a dataclass/NamedTuple/TypedDict/pydantic model (any decorated class or
    class with bases may be one), a plain one a member of an Enum."""
    bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
    decorators = [ast.unparse(d) for d in node.decorator_list]
    made_by = ", ".join([*(f"@{d}" for d in decorators), *(f"base {b}" for b in bases if b != "object")])
    if isinstance(item, ast.AnnAssign) and made_by:
        return (
            f"the payload's {name!r} is annotated, and class {qualname!r} ({made_by}) may make an annotated "
            f"attribute a field (dataclass, NamedTuple, TypedDict, pydantic)"
        )
    if isinstance(item, ast.Assign) and any(b.split(".")[-1].split("[")[0] in _ENUMS for b in bases):
        return f"class {qualname!r} is an enum ({made_by}): the payload's {name!r} would become a member"
    return None

"""The literal a name is bound to in a scope, bound there once (at any depth of its blocks): the
dict of set_item, the set/list/tuple display of add_element and remove_element."""

from __future__ import annotations

import libcst as cst

from radpatch.rewrite.matching import Ambiguous, MatchFailure, NotFound, code_of, lines_of
from radpatch.rewrite.scopes import find_scope
from radpatch.rewrite.tree import Path_, block_body, statement_slots


def binds(stmt: cst.CSTNode, name: str) -> bool:
    """The statement binds `name` in its scope (an assignment, a def or class, an import)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value == name
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        targets: list[cst.CSTNode] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(bound, cst.Name) and bound.value == name:
                    return True
                if isinstance(bound, cst.Attribute) and code_of(cst.Module([]), bound).split(".")[0] == name:
                    return True
        for t in targets:
            if isinstance(t, cst.Name) and t.value == name:
                return True
            if isinstance(t, (cst.Tuple, cst.List)) and any(
                isinstance(e.value, cst.Name) and e.value.value == name for e in t.elements
            ):
                return True
    return False


def bound_literal(
    module: cst.Module,
    scope_name: str,
    name: str,
    offset: int,
    kinds: tuple[type[cst.BaseExpression], ...],
    shape: str,
    op: str,
) -> Path_:
    """The path to the literal (one of `kinds`) `name` is bound to, bound once in the scope. `shape`
    says the literal as the messages name it (`{...}` (a dict literal)); `op` the operation."""
    scope = find_scope(module, scope_name, offset)
    where = "the module" if scope_name == "<module>" else scope_name
    hits = [(*b, block_body(b[-1])[i]) for b, i in statement_slots(scope) if binds(block_body(b[-1])[i], name)]
    if not hits:
        raise NotFound(f"{where} does not bind {name}")
    lines = lines_of(module, [p[-1] for p in hits], offset)
    what = shape.split("(", 1)[-1].rstrip(")")
    if len(hits) > 1:
        raise Ambiguous(
            f"{where} binds {name} {len(hits)} times (lines {', '.join(map(str, lines))}): which one holds the "
            "entry depends on how the code runs",
            f"{op} changes {what} bound once; change the one you mean with a `replace` rewrite",
        )
    wrong = MatchFailure(
        f"line {lines[0]} binds {name} but not as `{name} = {shape}",
        f"{op} changes an entry of {what}; change this code with a `replace` rewrite",
    )
    line = hits[0][-1]
    if not isinstance(line, cst.SimpleStatementLine):  # a def, a class
        raise wrong
    small = [s for s in line.body if binds(cst.SimpleStatementLine([s]), name)][0]
    value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
    plain = isinstance(small, cst.AnnAssign) or (
        isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
    )
    if not plain or not isinstance(value, kinds):
        raise wrong
    return (*hits[0], small, value)

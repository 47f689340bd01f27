"""`if TYPE_CHECKING:` bodies never run (however the test is written: an alias of TYPE_CHECKING,
`TYPE_CHECKING and ...`): what they bind serves annotations only. A use of such a
name where it runs is a NameError (reported per use); a use in an annotation that is never
evaluated (`from __future__ import annotations`, Python 3.14+) is fine.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from .scope_bindings import FUNCS, import_name


def type_checking(test: ast.expr, aliases: Collection[str] = ()) -> bool | None:
    """The one TYPE_CHECKING guard predicate: the names walker (walk.py), the live-definition proof
    (placement/live.py) and the reachability proof (placement/reachability.py) all read guards through
    it and `type_checking_names`. True when `test` is false at run time, so an `if` body under it
    never runs (`if TYPE_CHECKING:`, `if TC:` after `from typing import TYPE_CHECKING as TC`,
    `if TYPE_CHECKING and x:`, `if TYPE_CHECKING or False:`); False when it is true at run time, so
    the `else` never runs (`if not TYPE_CHECKING:`, `if not TC or x:`); None otherwise. `aliases`: other names the
    module binds to TYPE_CHECKING (type_checking_names)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = type_checking(test.operand, aliases)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        # a literal operand folds (`TYPE_CHECKING or False`, `False or TC`, `TC and True`), but only a
        # guard operand makes the test a guard: `X and False` is not this predicate's to decide
        guards = [type_checking(v, aliases) for v in test.values if not isinstance(v, ast.Constant)]
        if all(g is None for g in guards):
            return None
        values = [not v.value if isinstance(v, ast.Constant) else type_checking(v, aliases) for v in test.values]
        decides = isinstance(test.op, ast.And)  # `and`: one operand false at run time decides; `or`: one true
        if decides in values:
            return decides
        return None if None in values else not decides
    if names_type_checking(test, aliases):
        return True
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "bool" and test.args:
        return type_checking(test.args[0], aliases)  # bool(TYPE_CHECKING)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        # `TYPE_CHECKING is True`, `== True`, `is not False`, `!= False` (either side): the guard itself;
        # against False (or `is not`/`!=` True): its negation
        left, right = test.left, test.comparators[0]
        guard, other = (left, right) if names_type_checking(left, aliases) else (right, left)
        op = test.ops[0]
        if names_type_checking(guard, aliases) and isinstance(other, ast.Constant) and isinstance(other.value, bool):
            if isinstance(op, (ast.Is, ast.Eq)):
                return other.value
            if isinstance(op, (ast.IsNot, ast.NotEq)):
                return not other.value
    return None


def names_type_checking(node: ast.expr, aliases: Collection[str] = ()) -> bool:
    """`TYPE_CHECKING`, `typing.TYPE_CHECKING` (any `X.TYPE_CHECKING`), or an alias of it."""
    return (isinstance(node, ast.Name) and (node.id == "TYPE_CHECKING" or node.id in aliases)) or (
        isinstance(node, ast.Attribute) and node.attr == "TYPE_CHECKING"
    )


def type_checking_names(tree: ast.Module) -> frozenset[str]:
    """Other names the module binds to TYPE_CHECKING: `from typing import TYPE_CHECKING as TC`,
    `TC = typing.TYPE_CHECKING`."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            out.update(a.asname for a in n.names if a.name == "TYPE_CHECKING" and a.asname)
        elif isinstance(n, ast.Assign) and names_type_checking(n.value):
            out.update(t.id for t in n.targets if isinstance(t, ast.Name))
    out.discard("TYPE_CHECKING")
    return frozenset(out)


def typing_only(stmts: list[ast.stmt], typing: dict[str, int]) -> None:
    """Bindings in a block that never runs (`if TYPE_CHECKING:`): known, never bound. Adds each
    name's first line to `typing`."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                if a.name != "*":
                    typing.setdefault(import_name(a), s.lineno)
        elif isinstance(s, (*FUNCS, ast.ClassDef)):
            typing.setdefault(s.name, s.lineno)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            for t in s.targets if isinstance(s, ast.Assign) else [s.target]:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        typing.setdefault(n.id, s.lineno)
        else:
            for f in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(s, f, ()))

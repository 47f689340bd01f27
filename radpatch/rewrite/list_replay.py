"""A list's later changes replayed on the values (issue 21, later2 #2): where every later statement
that names the list is a plain top-level statement of the scope changing it by literals
(`FLAGS[0] = "z"`, `del FLAGS[0]`, `FLAGS.pop()`, `FLAGS.insert(0, "z")`, `x = FLAGS.count("a")`),
the original and the edited list are both run through them, and the edit is kept exactly where it is
still in effect in the final values (`in_effect`: an added element there more times than in the
original's, a removed one not put back and the two ending different; att56 F6:
"the two end different" kept a "c" a later `FLAGS.pop()` takes; an edited list a step raises on is
undone: the module would not import). Anything else (the name in a function, a loop,
a branch, another name, a call given it, a value that is not a literal) cannot be replayed, and the
positions stay read conservatively (rewrite.later_changes).

Standard library only (`ast`)."""

from __future__ import annotations

import ast
import contextlib
from typing import Any

_METHODS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "count", "index"})
_Step = tuple[str, Any, Any]  # ("call", method, args) / ("set", index or slice, value) / ("del", index or slice, None)


def edit_survives(
    body: list[ast.stmt], name: str, bound: ast.AST, values: tuple[list[Any], list[Any]], mode: str, part: str
) -> bool | None:
    """True: the edit (`values`: the list before and after it) is what the module keeps; False: the
    later statements undo it; None: they cannot be replayed."""
    top = [s for s in body if s is bound or isinstance(s, ast.Assign) and any(t is bound for t in s.targets)]
    if len(top) != 1:
        return None  # bound inside a block: not a plain run of statements
    steps: list[_Step] = []
    seen_bound = False
    for s in body:
        seen_bound = seen_bound or s is top[0]
        named = any(
            isinstance(n, ast.Name) and n.id == name or isinstance(n, ast.alias) and n.name == name for n in ast.walk(s)
        )
        if s is top[0] or not named and not dynamic(s):
            continue
        step = _step(s, name) if seen_bound else None
        if step is None:
            return None
        steps.append(step)
    before, after = list(values[0]), list(values[1])
    if _run(steps, before) is None:
        return None  # the original itself fails there: nothing to compare
    if _run(steps, after) is None:
        return False
    element = _literal(ast.parse(part.strip(), mode="eval").body)
    return None if element is None or mode not in ("add", "remove") else in_effect(before, after, element[0], mode)


def in_effect(before: list[Any], after: list[Any], element: Any, mode: str) -> bool:
    """Whether the edit is still in effect in the final values (att56 F6): an added element there more
    times than in the original's (`FLAGS.pop()` takes a "c" added last: not); for a removal, values
    that end different and the element not put back. Where an element placed `after:` ends is not
    compared (a later `sort` is kept as harmless before any replay: rewrite.later_changes)."""
    if mode == "remove":
        return before != after and element not in after
    return after.count(element) > before.count(element)


def dynamic(s: ast.AST) -> bool:
    """A node that may reach a name other than by it (`globals()`, `vars()`, `exec`, `sys.modules`, a frame's
    `f_globals`): the list, a key variable."""
    calls = (n.func.id for n in ast.walk(s) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
    if any(c in ("globals", "vars", "locals", "exec", "eval", "setattr", "getattr", "__import__") for c in calls):
        return True
    return any(isinstance(n, ast.Attribute) and n.attr in _REFLECTIVE and not _own(n) for n in ast.walk(s))


def _own(node: ast.Attribute) -> bool:
    """`self.__dict__`, `cls.__dict__`: an instance's or class's own, not the module's."""
    return node.attr == "__dict__" and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


# attributes that reach the module's namespace or object: a frame's, a function's, `sys.modules`, `importlib`'s
_REFLECTIVE = frozenset({"f_globals", "f_locals", "__globals__", "__dict__", "modules", "import_module"})
_REFLECTIVE |= {"__getattribute__"}


def _step(s: ast.stmt, name: str) -> _Step | None:
    if isinstance(s, ast.Expr):
        return _call(s.value, name)
    if isinstance(s, ast.Assign) and len(s.targets) == 1:
        target = s.targets[0]
        if isinstance(target, ast.Name) and target.id != name:
            return _call(s.value, name)
        where, value = _where(target, name), _literal(s.value)
        return ("set", where[0], value[0]) if where is not None and value is not None else None
    if isinstance(s, ast.Delete) and len(s.targets) == 1:
        where = _where(s.targets[0], name)
        return ("del", where[0], None) if where is not None else None
    return None


def _call(e: ast.expr, name: str) -> _Step | None:
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and not e.keywords):
        return None
    if not (isinstance(e.func.value, ast.Name) and e.func.value.id == name and e.func.attr in _METHODS):
        return None
    args = [_literal(a) for a in e.args]
    if any(a is None for a in args):
        return None
    return ("call", e.func.attr, [a[0] for a in args if a is not None])


def _where(target: ast.expr, name: str) -> tuple[Any] | None:
    """The index or slice of `name[...]` as a value, when written with literals."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name):
        return None
    if isinstance(target.slice, ast.Slice):
        ends: list[Any] = []
        for p in (target.slice.lower, target.slice.upper, target.slice.step):
            got = _literal(p) if p is not None else (None,)
            if got is None:
                return None
            ends.append(got[0])
        return (slice(*ends),)
    index = _literal(target.slice)
    return index if index is not None and isinstance(index[0], int) else None


def _literal(e: ast.expr) -> tuple[Any] | None:
    with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return (ast.literal_eval(e),)
    return None


def _run(steps: list[_Step], xs: list[Any]) -> list[Any] | None:
    """`xs` after the steps (changed in place), or None where one raises."""
    try:
        for how, what, value in steps:
            if how == "call":
                getattr(xs, what)(*value)
            elif how == "set":
                xs[what] = value
            else:
                del xs[what]
    except (ValueError, TypeError, IndexError):
        return None
    return xs

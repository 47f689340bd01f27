"""A read in a loop's body that no binding before it reaches, under a test that is false on the
loop's first pass and true on a later one only after the binding (att41 #4):

- a flag: `first = True` before the loop, `if not first: r = r + prev`, then `prev = x` and
  `first = False`: the loop's entry tells the flag's value, and every store to the flag in the loop
  is a constant that makes the test true, made where the name read is bound on every path to it;
- enumerate's index: `for i, x in enumerate(a):` / `if i: r = r + prev` / `prev = x`: the index is 0
  on the first pass only (the builtin `enumerate`, no start), nothing else in the loop stores it, and
  every way on to the next pass (the end of a pass, a `continue`) has the name bound.

And the name read is deleted nowhere in the loop (`del`, `except ... as`). Anything else (the flag
flipped before the binding, set back inside the loop, stored any other way; an index that is not
enumerate's) stays refused: the first pass is taken to read the name unbound.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .path_facts import Facts, Key, of_constant, told
from .path_stores import without


@dataclass
class LoopEnd:
    """The loop whose body a deferred read's check is decided at: the loop itself, the facts its first
    pass starts with (its entry's; enumerate's index 0), that index's name, and per way on to a next
    pass (the end of a pass that falls through, each `continue`), its net change to what is bound."""

    loop: ast.For | ast.AsyncFor | ast.While
    first: Facts
    index: str | None = None
    backs: list[dict[str, bool]] = field(default_factory=list)


def loop_end(
    s: ast.For | ast.AsyncFor | ast.While, entry: Facts, builtin_enumerate: bool, backs: list[dict[str, bool]]
) -> LoopEnd:
    index = _enumerate_index(s) if builtin_enumerate else None
    first = entry
    if index is not None:
        first = without(entry, {index}) | {(index, "eq", ("int", 0)): True}
    return LoopEnd(s, first, index, backs)


def never_first(name: str, facts: Facts, end: LoopEnd, flips: dict[int, frozenset[str]]) -> bool:
    """Is a read of `name` under the path facts `facts` (where it was read) never reached with `name`
    unbound in `end`'s loop: a fact it needs is false on the first pass, and made true later only
    where `name` is bound (the module's docstring)?"""
    if not facts or _unbinds(end.loop, name):
        return False
    for key, value in facts.items():
        flag = key[0]
        if "." in flag or key[1] == "same" or told(end.first, key) in (None, value):
            continue  # not a local's fact the first pass tells false
        if flag == end.index:
            target = getattr(end.loop, "target", None)
            if _stores(end.loop, flag) == [target] and all(net.get(name, False) for net in end.backs):
                return True
        elif _flips_after(end.loop, flag, key, value, name, flips):
            return True
    return False


def _flips_after(loop: ast.AST, flag: str, key: Key, value: bool, name: str, flips: dict[int, frozenset[str]]) -> bool:
    """Is every store to `flag` in the loop `flag = <constant>` that makes `key` `value`, walked where
    `name` was bound on every path (flips: per such assignment, the names bound there)?"""
    stores = _stores(loop, flag)
    for node in stores:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.value, ast.Constant)
            and told(of_constant(flag, node.value), key) == value
            and name in flips.get(id(node), ())
        ):
            return False
    return bool(stores)


def _stores(loop: ast.AST, name: str) -> list[ast.AST]:
    """What in `loop` may bind or delete `name`: an assignment's statement where it is the single
    plain target, else the node itself (an augmented or annotated assignment, a `for` or `with`
    target, a walrus, an import, a def or class, `except ... as`, a match capture, a `del`)."""
    nodes = list(ast.walk(loop))
    plain = {
        id(a.targets[0]): a
        for a in nodes
        if isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
    }
    out: list[ast.AST] = []
    for node in nodes:
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            out.append(plain.get(id(node), node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)):
            if node.name == name:
                out.append(node)
        elif isinstance(node, ast.alias) and (node.asname or node.name.partition(".")[0]) == name:
            out.append(node)
        elif type(node).__name__.startswith("Match") and name in (getattr(node, "name", 0), getattr(node, "rest", 0)):
            out.append(node)
    return [_target_of(loop, n) for n in out]


def _target_of(loop: ast.AST, node: ast.AST) -> ast.AST:
    """The `for` loop's own target where `node` is the index in it (`for i, x in ...`), else `node`."""
    target = getattr(loop, "target", None)
    if isinstance(target, ast.Tuple) and target.elts and target.elts[0] is node:
        return target
    return node


def _unbinds(loop: ast.AST, name: str) -> bool:
    """May the loop delete `name`: `del name`, or `except ... as name` (deleted as its handler ends)?"""
    return any(
        (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Del))
        or (isinstance(n, ast.ExceptHandler) and n.name == name)
        for n in ast.walk(loop)
    )


def _enumerate_index(s: ast.For | ast.AsyncFor | ast.While) -> str | None:
    """`i` of `for i, x in enumerate(xs):` (no start, or a start of 0): 0 on the first pass only."""
    if not isinstance(s, ast.For) or not (isinstance(s.target, ast.Tuple) and len(s.target.elts) == 2):
        return None
    first, it = s.target.elts[0], s.iter
    if not (
        isinstance(first, ast.Name)
        and isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "enumerate"
        and 1 <= len(it.args) + len(it.keywords) <= 2
        and not any(isinstance(a, ast.Starred) for a in it.args)
    ):
        return None
    start = [*it.args[1:], *(k.value for k in it.keywords if k.arg == "start")]
    if len(start) != len(it.args) + len(it.keywords) - 1:  # a keyword that is not `start`
        return None
    if start and not (isinstance(start[0], ast.Constant) and type(start[0].value) is int and start[0].value == 0):
        return None
    return first.id

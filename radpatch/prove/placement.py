"""Two proofs about where a patch's code ends up: it is not shadowed, and it is the code that runs.

- Shadowing: a definition the patch adds at module level must not share its name with anything
  the target binds there (import, assignment, def, class): one of the two would silently
  replace the other.
- Dead code: a rewrite must not change a `def`/`class` that the same block redefines further
  down (`def f` ... `def f` again, or `f = ...`, `from x import f`): the running code is the
  later one. A definition whose name is read in between (`@f.setter`, `register(f)`) or that
  has a decorator radpatch does not know (it may register it) is alive.

Each check is one pass over the top-level statements or over all statement lists, taken from each
version's tree into a `Placement` (so only one whole-module tree is alive at a time); only the
definitions that could be dead are compared (with ast.dump) between the original and the patch.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PURE_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "cached_property",
        "cache",
        "lru_cache",
        "overload",
        "abstractmethod",
        "override",
        "final",
        "wraps",
        "contextmanager",
        "asynccontextmanager",
        "dataclass",
        "total_ordering",
    }
)


@dataclass(frozen=True)
class Binding:
    name: str
    line: int
    kind: str  # import | assignment | def | class | loop variable | with target


def module_bindings(tree: ast.Module) -> Iterator[Binding]:
    """What the module binds at its top level (including inside module-level if/try/with/for)."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        s = stack.pop()
        yield from _binds(s)
        if not isinstance(s, _DEFS):
            for f in ("finalbody", "orelse", "handlers", "body"):
                stack.extend(reversed([x for x in getattr(s, f, ()) if isinstance(x, ast.stmt)]))
            for h in getattr(s, "handlers", ()):
                stack.extend(reversed(h.body))
            for case in getattr(s, "cases", ()):
                stack.extend(reversed(case.body))


def _binds(s: ast.stmt) -> Iterator[Binding]:
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield Binding(s.name, s.lineno, "def")
    elif isinstance(s, ast.ClassDef):
        yield Binding(s.name, s.lineno, "class")
    elif isinstance(s, (ast.Import, ast.ImportFrom)):
        yield from (Binding(a.asname or a.name.split(".")[0], s.lineno, "import") for a in s.names if a.name != "*")
    elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        yield from (Binding(n.id, s.lineno, "assignment") for t in targets for n in _stored(t))
    elif isinstance(s, (ast.For, ast.AsyncFor)):
        yield from (Binding(n.id, s.lineno, "loop variable") for n in _stored(s.target))
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        yield from (
            Binding(n.id, s.lineno, "with target") for i in s.items if i.optional_vars for n in _stored(i.optional_vars)
        )


def _stored(target: ast.expr) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from _stored(e)
    elif isinstance(target, ast.Starred):
        yield from _stored(target.value)


@dataclass(frozen=True)
class DeadDef:
    """A def/class a later statement of its block replaces, as far as the dead-code proof needs it."""

    dump: str  # ast.dump of the definition: compared between the original and the patch
    line: int
    later_line: int
    alive: bool  # its name is read before it is replaced (`@f.setter`, `register(f)`): it runs


@dataclass(frozen=True)
class Placement:
    """What both proofs need of one version of a module, taken from its tree in one pass, so the
    tree can be freed before the other version is parsed."""

    bindings: tuple[Binding, ...]
    dead: dict[tuple[str, str, int], DeadDef]


def placement(tree: ast.Module) -> Placement:
    dead = {}
    for key, d in _dead(tree).items():
        later = d.later
        uses: tuple[ast.AST, ...] = (
            *d.between,
            *getattr(later, "decorator_list", ()),
            *([later.value] if isinstance(later, ast.Assign) else []),
        )
        dead[key] = DeadDef(ast.dump(d.node), d.node.lineno, later.lineno, _read_in(uses, key[1]))
    return Placement(tuple(module_bindings(tree)), dead)


def shadowed(before: Placement, after: Placement) -> list[str]:
    """A def/class the patch adds at module level under a name the original already binds."""
    old: dict[str, list[Binding]] = {}
    for b in before.bindings:
        old.setdefault(b.name, []).append(b)
    count_old: dict[str, int] = {}
    for bs in old.values():
        for b in bs:
            if b.kind in ("def", "class"):
                count_old[b.name] = count_old.get(b.name, 0) + 1
    now: dict[str, list[Binding]] = {}
    for b in after.bindings:
        if b.kind in ("def", "class") and b.name in old:
            now.setdefault(b.name, []).append(b)
    out = []
    for name, defs in now.items():  # which of them is the added one the trees cannot say: all are named
        if len(defs) > count_old.get(name, 0):
            first = old[name][0]
            lines = " and ".join(str(b.line) for b in defs) if len(defs) > 1 else str(defs[0].line)
            out.append(
                f"the {defs[-1].kind} `{name}` it adds would share its name with the {first.kind} `{name}` the "
                f"module has at line {first.line} (the patched module binds it at line{'s' if len(defs) > 1 else ''} "
                f"{lines}): one would replace the other"
            )
    return out


@dataclass(frozen=True)
class _Dead:
    key: tuple[str, str, int]  # (block, name, n-th definition of that name in the block)
    node: ast.stmt
    later: ast.stmt
    between: tuple[ast.stmt, ...]


def _blocks(tree: ast.Module) -> Iterator[tuple[str, list[ast.stmt]]]:
    stack: list[tuple[str, ast.AST]] = [("<module>", tree)]
    while stack:
        qual, node = stack.pop()
        for f in ("body", "orelse", "finalbody"):
            stmts = getattr(node, f, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield qual, stmts
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                stack.append((child.name if qual == "<module>" else f"{qual}.{child.name}", child))
            elif isinstance(child, (ast.stmt, ast.ExceptHandler)) or type(child).__name__ == "match_case":
                stack.append((qual, child))


def _rebinds(s: ast.stmt, name: str) -> bool:
    if isinstance(s, _DEFS):
        return s.name == name
    return any(b.name == name for b in _binds(s)) and not isinstance(s, (ast.AugAssign,))


def _dead(tree: ast.Module) -> dict[tuple[str, str, int], _Dead]:
    out: dict[tuple[str, str, int], _Dead] = {}
    nth: dict[tuple[str, str], int] = {}  # (scope, name) -> definitions of it seen so far
    for qual, stmts in _blocks(tree):
        open_: dict[str, int] = {}  # name -> index of its latest def/class in this block
        for j, s in enumerate(stmts):
            for name in {b.name for b in _binds(s)}:
                i = open_.pop(name, None)
                if i is not None and _rebinds(s, name) and _plain(stmts[i]):
                    d = stmts[i]
                    assert isinstance(d, _DEFS)
                    key = (qual, name, nth[qual, name] - 1)
                    out[key] = _Dead(key, d, s, tuple(stmts[i + 1 : j]))
            if isinstance(s, _DEFS):
                k = (qual, s.name)
                nth[k] = nth.get(k, 0) + 1
                open_[s.name] = j
    return out


def _plain(node: ast.stmt) -> bool:
    """No decorator that could keep (register) the definition somewhere."""
    for d in getattr(node, "decorator_list", ()):
        target = d.func if isinstance(d, ast.Call) else d
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        if name not in _PURE_DECORATORS:
            return False
    return True


def _read_in(nodes: tuple[ast.AST, ...], name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for node in nodes
        for n in ast.walk(node)
    )


def dead_changes(before: Placement, after: Placement) -> list[str]:
    """Definitions the patch changes that a later statement of the same block replaces."""
    out = []
    for key, d in after.dead.items():
        o = before.dead.get(key)
        if o is not None and o.dump == d.dump or d.alive:
            continue
        block = "at module level" if key[0] == "<module>" else f"in {key[0]}"
        out.append(
            f"it changes `{key[1]}` (line {d.line}, {block}), which line {d.later_line} replaces: "
            "the running code is the later one"
        )
    return out


def first_failing(count: int, failing: Callable[[int], bool]) -> int | None:
    """The first k in 1..count with failing(k) (which rewrite, applied in order, causes it)."""
    return next((k for k in range(1, count + 1) if failing(k)), None)

"""Paths and walks in a libcst tree: a node's path from its scope down, every node below a scope
in source order (`walk`), its indented blocks, its expressions as `ast` sees them (`nodes_of`),
and every statement's slot (`statement_slots`, what `occurrence:` counts)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import libcst as cst

Path_ = tuple[cst.CSTNode, ...]  # ancestors from the scope root down to (and including) a node
DEFS = (cst.FunctionDef, cst.ClassDef)


# libcst's `children` rebuilds the node through its visitor on every call (a walk's main cost, and
# matching walks the same trees again and again): each node's children are kept once asked. Trees
# are immutable, so a node's children never change; the cache holds its nodes, so an identity is
# never reused for another node while kept. It serves the last few trees walked (the roots of
# their paths) and is emptied when a walk starts in another tree, or when it holds too many nodes.
_KIDS: dict[cst.CSTNode, Sequence[cst.CSTNode]] = {}
_KIDS_ROOTS: list[cst.CSTNode] = []
_KIDS_TREES = 4  # a rewrite's scope before and after, and the probes' trees of the same text
_KIDS_MAX = 200_000  # nodes
# other caches of facts about the served trees' nodes (keyed by those nodes), emptied with _KIDS
_PER_TREE: list[dict[Any, Any]] = []


def _children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    kids = _KIDS.get(node)
    if kids is None:
        kids = _KIDS[node] = tuple(node.children)
    return kids


def _serve(root: cst.CSTNode) -> None:
    if any(r is root for r in _KIDS_ROOTS):
        return
    if len(_KIDS_ROOTS) >= _KIDS_TREES or len(_KIDS) > _KIDS_MAX:
        _KIDS.clear()
        _KIDS_ROOTS.clear()
        for cache in _PER_TREE:
            cache.clear()
    _KIDS_ROOTS.append(root)


def serve(root: cst.CSTNode) -> None:
    """Keep facts about the tree at `root` (`per_tree` caches) from now on, as a walk does."""
    _serve(root)


def per_tree(cache: dict[Any, Any]) -> None:
    """Empty `cache` whenever the walks' cache of children is: a cache keyed by (or holding) nodes of
    the trees served, its keys kept alive by it, so no identity is reused for another node while kept."""
    _PER_TREE.append(cache)


def walk(
    path: Path_, keep: Callable[[cst.CSTNode], bool], below: Callable[[cst.CSTNode], Sequence[cst.CSTNode]] = _children
) -> Iterator[Path_]:
    """Every node below the scope at `path`, in source order: each node, then what `below` says
    is below it (all its children by default; nested defs are entered only as nodes, not walked)."""
    _serve(path[0])
    root = path[-1]
    children = [root.body] if isinstance(root, DEFS) else list(_children(root))
    stack: list[Path_] = [(*path, c) for c in reversed(children)]
    while stack:
        p = stack.pop()
        node = p[-1]
        if keep(node):
            yield p
        if not isinstance(node, DEFS):
            stack.extend((*p, c) for c in reversed(below(node)))


def _concrete(*classes: type) -> frozenset[type]:
    """The classes and all their subclasses, for a `type(node) in` test: libcst's node bases are
    ABCs, and isinstance() against an ABC caches a negative answer in every ABC below it for
    every class asked about (hundreds of KiB over a walk)."""
    out: set[type] = set()
    todo = list(classes)
    while todo:
        c = todo.pop()
        if c not in out:
            out.add(c)
            todo.extend(c.__subclasses__())
    return frozenset(out)


# the only nodes an indented block can be below: a simple statement or an expression holds none
# (libcst's `children` rebuilds a node per call, so not entering them is most of a walk's cost)
_HOLDS_BLOCKS = _concrete(
    cst.BaseCompoundStatement,
    cst.IndentedBlock,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def block_holders(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    return _children(node) if type(node) in _HOLDS_BLOCKS else ()


def blocks(path: Path_) -> Iterator[Path_]:
    """Every indented block below the scope at `path`, in source order (not those of nested defs)."""
    return walk(path, lambda n: type(n) is cst.IndentedBlock, block_holders)


# nodes below which Python's ast has no expression: whitespace, comments, punctuation, operators,
# the leaf expressions (their only children are parentheses), and the statements whose names
# are plain strings to ast (`import a.b as c`, `global x`)
_BARREN = _concrete(
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
    cst.Newline,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
    cst.ImportStar,
    cst.Name,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.Ellipsis,
    cst.Import,
    cst.ImportFrom,
    cst.Global,
    cst.Nonlocal,
)

# fields where libcst holds a Name (or dotted name) that ast holds as a plain string: an
# attribute's name, a keyword argument's or parameter's name, `except E as name`, a match
# pattern's capture names, a type parameter's name. An expression `find` never matches them.
_NAME_FIELDS: dict[type, tuple[str, ...]] = {
    cst.Attribute: ("attr",),
    cst.Arg: ("keyword",),
    cst.Param: ("name",),
    cst.ExceptHandler: ("name",),
    cst.ExceptStarHandler: ("name",),
    cst.MatchAs: ("name",),
    cst.MatchStar: ("name",),
    cst.MatchMapping: ("rest",),
    cst.MatchKeywordElement: ("key",),
    cst.MatchSingleton: ("value",),
    **{getattr(cst, t): ("name",) for t in ("TypeVar", "TypeVarTuple", "ParamSpec") if hasattr(cst, t)},
}


def expression_holders(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    t = type(node)
    if t in _BARREN:
        return ()
    if t is cst.ConcatenatedString:
        return (node.left, node.right)  # type: ignore[attr-defined]
    fields = _NAME_FIELDS.get(t)
    if fields is None:
        return _children(node)
    names = [getattr(node, f) for f in fields]
    return [c for c in _children(node) if not any(c is n for n in names)]


# node types ast cannot tell apart: `"a" "b"` written out is the constant "ab"
_SAME_AST: dict[type, tuple[type, ...]] = {
    cst.SimpleString: (cst.SimpleString, cst.ConcatenatedString),
    cst.ConcatenatedString: (cst.SimpleString, cst.ConcatenatedString),
}


def nodes_of(path: Path_, kind: type[cst.CSTNode]) -> Iterator[Path_]:
    """Every expression below the scope at `path` whose type can be ast-equal to a `kind` node's,
    in source order: not whitespace or punctuation, and not the names ast keeps as strings
    (`x.attr`'s attr, `f(key=1)`'s key, `import a.b`)."""
    kinds = _SAME_AST.get(kind, (kind,))
    for p in walk(path, lambda n: type(n) in kinds, expression_holders):
        if type(p[-2]) is not cst.ConcatenatedString and not _chained(p[-2], p[-1]):
            yield p  # (a piece of `"a" "b"` or `f"{x}" "b"` is not an expression to ast either)


def _chained(parent: cst.CSTNode, node: cst.CSTNode) -> bool:
    """`a and b` inside `a and b and c`: libcst nests it, ast has one BoolOp of three values."""
    return (
        isinstance(node, cst.BooleanOperation)
        and isinstance(parent, cst.BooleanOperation)
        and parent.left is node
        and not node.lpar
        and type(parent.operator) is type(node.operator)
    )


def _inner_blocks(path: Path_) -> Iterator[Path_]:
    """The indented blocks right below path[-1], in source order (not the blocks inside them)."""
    return walk(
        path,
        lambda n: type(n) is cst.IndentedBlock,
        lambda n: () if type(n) is cst.IndentedBlock else block_holders(n),
    )


def _block_slots(block: Path_) -> Iterator[tuple[Path_, int]]:
    for i, stmt in enumerate(block_body(block[-1])):
        yield block, i
        if type(stmt) in _HOLDS_BLOCKS and not isinstance(stmt, DEFS):  # a compound statement: its blocks come next
            for inner in _inner_blocks((*block, stmt)):
                yield from _block_slots(inner)


def statement_slots(path: Path_) -> Iterator[tuple[Path_, int]]:
    """(path to a block, index) for every statement in the scope, at any depth, in source order
    (a statement, then the statements inside it, then the next one: what `occurrence:` counts)."""
    if isinstance(path[-1], cst.Module):
        yield from _block_slots(path)
        return
    for block in _inner_blocks(path):
        yield from _block_slots(block)


def block_body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    if isinstance(node, (cst.Module, cst.IndentedBlock)):
        return node.body
    raise TypeError(node)

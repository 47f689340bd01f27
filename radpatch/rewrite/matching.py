"""Structural matching: find the one node in a scope that is AST-equal to a pattern.

Equality is decided on Python's `ast` (formatting and comments play no part); positions and
edits are done on the libcst tree so every byte outside the edit is preserved.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import difflib
import functools
import re
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from radpatch.errors import RefusedError
from radpatch.rewrite.source import expression_text

Path_ = tuple[cst.CSTNode, ...]  # ancestors from the scope root down to (and including) a node
_DEFS = (cst.FunctionDef, cst.ClassDef)


class MatchFailure(RefusedError):
    """A pattern matched zero or several times, or a scope does not exist. `hint` says what to do.
    Under the one error root: rewrite.runner words it with the patch, rewrite and file it concerns."""

    hint = "the installed code differs from what the rewrite expects: check the version range and the rewrite"

    def __init__(self, message: str, hint: str = "", *, scope_gone: bool = False) -> None:
        super().__init__(message, hint or type(self).hint)
        self.scope_gone = scope_gone  # the rewrite's scope (a definition it needs) is not in the module


class NotFound(MatchFailure):
    hint = (
        "this version's code does not contain it: check the version range, or declare a `versions:` variant "
        "of the rewrite for this version"
    )


class NearMiss(NotFound):
    hint = (
        "`find` is close to the code shown but not equal: "
        "fix `find` (layout, quotes and comments do not matter, the code does)"
    )


SCOPE_NEAR = (
    "fix the name in `scope:`/`function:` (a definition with a similar name is shown; names are case-sensitive)"
)
SCOPE_MISSING = (
    "this version defines no such function or class: check the name in `scope:`/`function:` and the version "
    "range, or declare a `versions:` variant of the rewrite"
)


class Ambiguous(MatchFailure):
    hint = (
        "narrow it with `within:` (an enclosing statement, e.g. `for x in y:`), pick one with `occurrence: N`, "
        "or change every one with `occurrence: all`"
    )


class Clash(MatchFailure):
    hint = "rename it in the payload (e.g. a `_yourpatch_` prefix) so it takes over nothing the module defines"


class NotUndoable(MatchFailure):
    hint = "the file does not carry this rewrite's result as radpatch would write it"


_EXPLAIN = contextvars.ContextVar("radpatch_explain", default=True)


@contextlib.contextmanager
def unexplained(really: bool = True) -> Iterator[None]:
    """While active, a pattern that matches nowhere is refused without the search for the
    closest candidate (the costly part of the message): for a refusal nobody will read, which
    the caller re-raises from another run (runner.forward reports a rewrite's refusal on the
    file's own lines, not on what the rewrites before it made of them)."""
    token = _EXPLAIN.set(False) if really else None
    try:
        yield
    finally:
        if token is not None:
            _EXPLAIN.reset(token)


def explaining() -> bool:
    return _EXPLAIN.get()


PLAUSIBLE = 0.75  # similarity from which a candidate is shown as probably the intended code


@functools.lru_cache(maxsize=1024)
def stmt_key(code: str) -> str:
    return ast.dump(ast.parse(textwrap.dedent(code)))


def expr_key(code: str) -> str:
    return ast.dump(ast.parse(f"(\n{code}\n)", mode="eval").body)


def pretty(code: str) -> str:
    """`code` as ast.unparse writes it: as an expression when it is one (a module of one string
    would be written as a docstring), else as statements."""
    try:
        return ast.unparse(ast.parse(f"(\n{code}\n)", mode="eval").body)
    except SyntaxError:
        return ast.unparse(ast.parse(textwrap.dedent(code)))


def parse_statements(code: str) -> list[cst.BaseStatement]:
    return list(_parse_statements(code))


@functools.lru_cache(maxsize=256)
def _parse_statements(code: str) -> tuple[cst.BaseStatement, ...]:
    text = textwrap.dedent(code).strip("\n") + "\n"
    ast.parse(text)  # fails fast (RecursionError) where libcst's parser takes seconds on deep nesting
    return tuple(cst.parse_module(text).body)


def parse_code(code: str) -> list[cst.BaseStatement]:
    """The statements of `code` a rewrite writes into a module: parse_statements', with the comment
    lines above the first statement (libcst keeps them apart, as the module's header) moved above
    it, so `code: "# why\\nx = 1"` writes the comment too. Blank lines above a statement carry no
    indentation (written into a block, they stay empty lines)."""
    return list(_parse_code(code))


@functools.lru_cache(maxsize=256)
def _parse_code(code: str) -> tuple[cst.BaseStatement, ...]:
    body = list(_parse_statements(code))
    header = list(cst.parse_module(textwrap.dedent(code).strip("\n") + "\n").header)
    if body and any(e.comment is not None for e in header):
        body[0] = body[0].with_changes(leading_lines=[*header, *body[0].leading_lines])  # type: ignore[attr-defined]
    return tuple(
        s.with_changes(leading_lines=[_unindented(e) for e in s.leading_lines])  # type: ignore[attr-defined]
        for s in body
    )


def _unindented(line: cst.EmptyLine) -> cst.EmptyLine:
    return line.with_changes(indent=False) if line.comment is None and not line.whitespace.value else line


def own_comments(lines: Sequence[cst.EmptyLine]) -> list[str]:
    """The comments of the lines above a statement, as text: what a `find` or `with` says there."""
    return [e.comment.value for e in lines if e.comment is not None]


ACCESSORS = ("getter", "setter", "deleter")  # `scope: Class.prop.setter` names one accessor of a property


def _decorator_names(node: cst.CSTNode) -> list[str]:
    """The decorators of a def as dotted names (`overload`, `typing.overload`, `prop.setter`)."""
    out = []
    for d in getattr(node, "decorators", ()):
        expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        parts = []
        while isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        if isinstance(expr, cst.Name):
            out.append(".".join([expr.value, *reversed(parts)]))
    return out


def is_overload(node: cst.CSTNode) -> bool:
    return any(n == "overload" or n.endswith(".overload") for n in _decorator_names(node))


def accessor(node: cst.CSTNode, name: str) -> str | None:
    """ "getter", "setter" or "deleter" when `node` is that accessor of a property `name`."""
    for n in _decorator_names(node):
        if n in ("property", "functools.cached_property", "cached_property") or n == f"{name}.getter":
            return "getter"
        if n in (f"{name}.setter", f"{name}.deleter"):
            return n.rsplit(".", 1)[1]
    return None


def choose(
    module: cst.Module, hits: list[cst.CSTNode], part: str, qualname: str, container: str, offset: int, rest: list[str]
) -> tuple[cst.CSTNode | None, bool]:
    """The one definition `part` names among several (`hits`): the implementation of an
    `@overload`-ed function (its overloads are declarations); a property's accessor named by the
    part after it (`prop.setter`; then True: that part is used). Else a refusal that says how."""
    live = [h for h in hits if not is_overload(h)]
    if len(live) == 1:
        return live[0], False
    kinds = [accessor(h, part) for h in live]
    lines = lines_of(module, live, offset)
    if live and all(kinds):
        listed = ", ".join(f"{k} at line {n}" for k, n in zip(kinds, lines))
        if rest and rest[0] in ACCESSORS:
            chosen = [h for h, k in zip(live, kinds) if k == rest[0]]
            if len(chosen) == 1:
                return chosen[0], True
        base = qualname[: qualname.index(part) + len(part)] if part in qualname else part
        raise Ambiguous(
            f"scope {qualname!r}: {base!r} is a property defined {len(live)} times ({listed})",
            f"name the accessor: `{base}.{kinds[0]}`"
            + "".join(f" or `{base}.{k}`" for k in dict.fromkeys(kinds[1:]) if k != kinds[0]),
        )
    if not live:
        return None, False
    raise Ambiguous(
        f"scope {qualname!r}: {container} defines {part!r} {len(live)} times "
        f"(ambiguous: lines {', '.join(str(n) for n in lines)})",
        "the later definition is the one that runs (one defined in if/else or try blocks runs as the condition "
        "decides): a scope names one definition, so replace the whole statement that defines them with "
        "`scope: <module>`, or patch the one definition in a module of its own",
    )


def find_scope(module: cst.Module, qualname: str, offset: int = 0) -> Path_:
    """Resolve '<module>', 'func' or 'Class.method' to the path of its node. Of several
    definitions of one name: the implementation of an `@overload`-ed function, or the property
    accessor a last part `getter`/`setter`/`deleter` names; a def in module-level if/try blocks
    when it is the only one."""
    path: Path_ = (module,)
    if qualname == "<module>":
        return path
    parts = qualname.split(".")
    k = 0
    while k < len(parts):
        part = parts[k]
        k += 1
        body = _body(path[-1])
        if isinstance(path[-1], (cst.FunctionDef, cst.Module)):  # a def may sit in an if/try/with/for block
            nested = _nested_defs(path, part)
            if isinstance(path[-1], cst.Module):
                top = [(*path, s) for s in body if isinstance(s, _DEFS) and s.name.value == part]
                nested = top or nested
            if len(nested) == 1:
                path = nested[0]
                continue
            paths = {p[-1]: p for p in nested}
            hits = [p[-1] for p in nested]
        else:
            hits = [s for s in body if isinstance(s, _DEFS) and s.name.value == part]
            block = path[-1].body if isinstance(path[-1], _DEFS) else None
            paths = {h: (*path, block, h) if block is not None else (*path, h) for h in hits}
        container = "module" if len(path) == 1 else _name(path[-1])
        if not hits:
            names = [s.name.value for s in body if isinstance(s, _DEFS)]
            close = difflib.get_close_matches(part, names, n=3)
            tip = f"; closest: {', '.join(close)}" if close else ""
            raise (NearMiss if close else NotFound)(
                f"scope {qualname!r}: {container} defines no function or class {part!r}{tip}",
                SCOPE_NEAR if close else SCOPE_MISSING,
                scope_gone=True,
            )
        chosen, used = choose(module, hits, part, qualname, container, offset, parts[k:])
        if chosen is None:
            raise NotFound(f"scope {qualname!r}: every definition of {part!r} in {container} is an `@overload`")
        k += used
        path = paths[chosen]
    return path


def _nested_defs(path: Path_, name: str) -> list[Path_]:
    """The defs and classes called `name` in the function at `path`, in any of its blocks (not
    inside the functions nested in it), as paths."""
    out = []
    for block, i in statement_slots(path):
        stmt = block_body(block[-1])[i]
        if isinstance(stmt, _DEFS) and stmt.name.value == name:
            out.append((*block, stmt))
    return out


def nested_scopes(path: Path_, qualname: str) -> Iterator[tuple[Path_, str]]:
    """Every function and class defined inside the scope at `path` (at any depth, nested ones too),
    with its qualified name, in source order: the scopes a statement or expression of `path` is not in."""
    for p in walk(path, lambda n: isinstance(n, _DEFS), _block_holders):
        node = p[-1]
        assert isinstance(node, _DEFS)
        inner = node.name.value if qualname == "<module>" else f"{qualname}.{node.name.value}"
        yield p, inner
        yield from nested_scopes(p, inner)


def _name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, _DEFS) else "<module>"


def _body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    if isinstance(node, cst.Module):
        return node.body
    assert isinstance(node, _DEFS)
    body = node.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def _children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    return node.children


def walk(
    path: Path_, keep: Callable[[cst.CSTNode], bool], below: Callable[[cst.CSTNode], Sequence[cst.CSTNode]] = _children
) -> Iterator[Path_]:
    """Every node below the scope at `path`, in source order: each node, then what `below` says
    is below it (all its children by default; nested defs are entered only as nodes, not walked)."""
    root = path[-1]
    children = [root.body] if isinstance(root, _DEFS) else list(root.children)
    stack: list[Path_] = [(*path, c) for c in reversed(children)]
    while stack:
        p = stack.pop()
        node = p[-1]
        if keep(node):
            yield p
        if not isinstance(node, _DEFS):
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


def _block_holders(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    return node.children if type(node) in _HOLDS_BLOCKS else ()


def blocks(path: Path_) -> Iterator[Path_]:
    """Every indented block below the scope at `path`, in source order (not those of nested defs)."""
    return walk(path, lambda n: type(n) is cst.IndentedBlock, _block_holders)


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


def _expression_holders(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    t = type(node)
    if t in _BARREN:
        return ()
    if t is cst.ConcatenatedString:
        return (node.left, node.right)  # type: ignore[attr-defined]
    fields = _NAME_FIELDS.get(t)
    if fields is None:
        return node.children
    names = [getattr(node, f) for f in fields]
    return [c for c in node.children if not any(c is n for n in names)]


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
    for p in walk(path, lambda n: type(n) in kinds, _expression_holders):
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
        lambda n: () if type(n) is cst.IndentedBlock else _block_holders(n),
    )


def _block_slots(block: Path_) -> Iterator[tuple[Path_, int]]:
    for i, stmt in enumerate(block_body(block[-1])):
        yield block, i
        if type(stmt) in _HOLDS_BLOCKS and not isinstance(stmt, _DEFS):  # a compound statement: its blocks come next
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


def code_of(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


def find_statements(module: cst.Module, scope: Path_, code: str) -> list[tuple[Path_, int]]:
    """Slots where a run of consecutive statements equals the statements of `code` (compared as
    `ast` statements, so `a = 1; b = 2` typed on one line matches the two lines upstream has)."""
    want = _flat(parse_statements(code))
    hits = []
    for block, i in statement_slots(scope):
        body = block_body(block[-1])
        n = _covering(body, i, len(want))
        if n is not None and _flat(body[i : i + n]) == want and _run_key(module, body[i : i + n]) == _code_key(code):
            hits.append(
                (block, i)
            )  # _flat first: a cheap pre-filter, generating code for every statement is the slow part
    return hits


@dataclasses.dataclass(frozen=True)
class Inline:
    """Statements equal to a `find` that start or end inside a line: `first`, the first of them;
    `lines`, the whole lines they are part of (None in a one-line suite such as `if x: y`)."""

    first: cst.CSTNode
    lines: str | None


@dataclasses.dataclass(frozen=True)
class _Item:
    """One `ast` statement of a block: a simple statement of a line, or a compound statement."""

    node: cst.CSTNode
    line: int  # index of its line in the block
    first: bool  # the first statement of its line
    last: bool  # the last statement of its line


def _items(body: Sequence[cst.CSTNode]) -> list[_Item]:
    out: list[_Item] = []
    for j, st in enumerate(body):
        if isinstance(st, cst.SimpleStatementLine):
            out.extend(_Item(small, j, k == 0, k == len(st.body) - 1) for k, small in enumerate(st.body))
        else:
            out.append(_Item(st, j, True, True))
    return out


def inline_statements(module: cst.Module, scope: Path_, code: str) -> list[Inline]:
    """The runs of statements equal to the statements of `code` that start or end inside a line
    (`if x: return 1`, `a = 1; b = 2` for `b = 2`, `x = 0; a = 1; b = 2` for `a = 1` and `b = 2`),
    which find_statements does not match (it matches whole lines). Searched only for a refusal."""
    want = _flat(parse_statements(code))
    key = _code_key(code)
    holders = walk(scope, lambda n: type(n) in (cst.IndentedBlock, cst.SimpleStatementSuite), _block_holders)
    out: list[Inline] = []
    for holder in (
        [scope[-1], *(p[-1] for p in holders)] if isinstance(scope[-1], cst.Module) else (p[-1] for p in holders)
    ):
        suite = isinstance(holder, cst.SimpleStatementSuite)
        body: Sequence[cst.CSTNode] = holder.body  # type: ignore[attr-defined]
        items = [_Item(small, 0, False, False) for small in body] if suite else _items(body)
        for i in range(len(items) - len(want) + 1):
            run = items[i : i + len(want)]
            if (run[0].first and run[-1].last) or [type(t.node) for t in run] != want:
                continue  # whole lines: find_statements' to match
            try:
                if stmt_key("\n".join(textwrap.dedent(code_of(module, t.node)).strip() for t in run) + "\n") != key:
                    continue
            except SyntaxError:
                continue
            whole = None
            if not suite:
                lines = list(body[run[0].line : run[-1].line + 1])
                lines[0] = lines[0].with_changes(leading_lines=())
                whole = textwrap.dedent("".join(code_of(module, line) for line in lines)).strip()
            out.append(Inline(run[0].node, whole))
    return out


def statement_count(code: str) -> int:
    """How many `ast` statements `code` is (a line `a; b` is two)."""
    return len(_flat(parse_statements(code)))


def run_length(module: cst.Module, body: Sequence[cst.BaseStatement], i: int, code: str) -> int:
    """How many statements from body[i] the match of `code` there spans."""
    n = _covering(body, i, len(_flat(parse_statements(code))))
    assert n is not None
    return n


def _flat(stmts: Sequence[cst.BaseStatement]) -> list[type]:
    """Node types of the `ast` statements that `stmts` are (a line `a; b` is two); any AST-equal
    code shares them, whatever its layout and comments."""
    return [type(s) for st in stmts for s in (st.body if isinstance(st, cst.SimpleStatementLine) else (st,))]


def _covering(body: Sequence[cst.BaseStatement], i: int, count: int) -> int | None:
    """The number of statements from body[i] that hold exactly `count` ast statements, if any."""
    total = 0
    for j in range(i, len(body)):
        st = body[j]
        total += len(st.body) if isinstance(st, cst.SimpleStatementLine) else 1
        if total >= count:
            return j - i + 1 if total == count else None
    return None


def _code_key(code: str) -> str:
    return stmt_key(textwrap.dedent(code).strip("\n") + "\n")


def _run_key(module: cst.Module, stmts: Sequence[cst.BaseStatement]) -> str | None:
    try:
        return stmt_key("".join(textwrap.dedent(code_of(module, s)) for s in stmts))
    except SyntaxError:
        return None


def find_expressions(module: cst.Module, scope: Path_, pattern: str) -> list[Path_]:
    key = expr_key(pattern)
    kind = type(cst.parse_expression(expression_text(pattern)))
    out = []
    for p in nodes_of(scope, kind):
        try:
            if expr_key(code_of(module, p[-1])) == key:
                out.append(p)
        except SyntaxError:
            continue
    return out


def enclosing_expression(module: cst.Module, scope: Path_, pattern: str) -> cst.CSTNode | None:
    """The smallest expression of the scope whose code (as ast.unparse writes it) holds the
    expression `pattern` without `pattern` being one of its sub-expressions: `a and b` in
    `a and b and c` (one operation over three operands to ast), `timeout` in `self.timeout` (an
    attribute's name). Searched only for a refusal."""
    want = pretty(pattern)
    if isinstance(ast.parse(f"(\n{pattern}\n)", mode="eval").body, ast.Tuple) and want.startswith("("):
        want = want[1:-1]  # `a, b` typed alone: the arguments of a call, the items of a list
    bounded = re.compile(
        ("\\b" if want[:1].isidentifier() else "")
        + re.escape(want)
        + ("\\b" if want[-1:].isalnum() or want[-1:] == "_" else "")
    )
    squeezed = "".join(want.split())
    best: tuple[int, cst.CSTNode] | None = None
    for p in walk(scope, lambda n: isinstance(n, cst.BaseExpression), _expression_holders):
        code = code_of(module, p[-1])
        if squeezed.replace('"', "").replace("'", "") not in "".join(code.split()).replace('"', "").replace("'", ""):
            continue  # a cheap test before parsing: the pattern's characters, whatever its layout and quotes
        try:
            norm = pretty(code)
        except (SyntaxError, RecursionError):
            continue
        if norm != want and bounded.search(norm) and (best is None or len(norm) < best[0]):
            best = (len(norm), p[-1])
    return best[1] if best else None


def calls_to(module: cst.Module, scope: Path_, pattern: str) -> list[cst.CSTNode]:
    """The calls of the scope to the callee of the call `pattern` (AST-compared), in source order."""
    try:
        tree = ast.parse(f"(\n{pattern}\n)", mode="eval").body
    except SyntaxError:
        return []
    if not isinstance(tree, ast.Call):
        return []
    key = ast.dump(tree.func)
    out: list[cst.CSTNode] = []
    for p in nodes_of(scope, cst.Call):
        call = p[-1]
        assert isinstance(call, cst.Call)
        try:
            if expr_key(code_of(module, call.func)) == key:
                out.append(call)
        except SyntaxError:
            continue
    return out


def replace_on_path(path: Path_, new: cst.CSTNode) -> cst.CSTNode:
    """Rebuild the ancestors of path[-1] with `new` in its place; return the new root."""
    for parent, old in zip(reversed(path[:-1]), reversed(path[1:])):
        new = _swap_child(parent, old, new)
    return new


def _swap_child(parent: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    for f in dataclasses.fields(parent):
        value = getattr(parent, f.name)
        if value is old:
            return parent.with_changes(**{f.name: new})
        if isinstance(value, (tuple, list)) and any(v is old for v in value):
            seq = [new if v is old else v for v in value]
            return parent.with_changes(**{f.name: type(value)(seq) if isinstance(value, tuple) else seq})
    raise AssertionError(f"{type(old).__name__} is not a child of {type(parent).__name__}")


_CLOSEST: list[tuple[cst.Module, Sequence[cst.CSTNode], str, int, tuple[str, bool]]] = []  # the last few answers


def closest(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str, offset: int = 0) -> tuple[str, bool]:
    """('closest candidate (line N, 80% similar): <code>', plausible) for a no-match message;
    the candidate is shown only when it is plausibly what `find` meant (PLAUSIBLE). The last
    few answers are kept (with the nodes they concern, so an identity is never reused): a
    drifted file's status asks the same of the same tree when undoing and when applying."""
    for m, nodes, pat, off, answer in _CLOSEST:
        if (
            m is module
            and pat == pattern
            and off == offset
            and len(nodes) == len(candidates)
            and all(a is b for a, b in zip(nodes, candidates))
        ):
            return answer
    answer = _closest(module, candidates, pattern, offset)
    _CLOSEST[:] = [(module, tuple(candidates), pattern, offset, answer), *_CLOSEST[:1]]
    return answer


def _closest(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str, offset: int) -> tuple[str, bool]:
    if not candidates:
        return "nothing in the scope is similar to it", False
    want = pretty(pattern)
    best: tuple[float, str, cst.CSTNode] | None = None  # the first candidate of the highest ratio
    for node in candidates:
        text = code_of(module, node).strip()
        try:
            norm = pretty(text)
        except (SyntaxError, RecursionError):
            norm = text
        sm = difflib.SequenceMatcher(None, want, norm)
        # the quick ratios bound ratio() from above: a candidate they rule out cannot win (a tie
        # does not win either: the first of equal candidates is shown)
        if (
            sm.real_quick_ratio() < PLAUSIBLE
            or sm.quick_ratio() < PLAUSIBLE
            or best is not None
            and sm.quick_ratio() <= best[0]
        ):
            continue
        ratio = sm.ratio()
        if ratio >= PLAUSIBLE and (best is None or ratio > best[0]):
            best = (ratio, norm, node)
    if best is None:
        same = _same_target(module, candidates, pattern)
        if same is not None:
            node, text = same
            shown = text if len(text) < 400 else text[:400] + " ..."
            line = line_of(module, node) + offset
            return f"the code assigns the same target at line {line}:\n{textwrap.indent(shown, '      ')}", True
        return "nothing in the scope is similar to it", False
    ratio, norm, node = best
    line = line_of(module, node) + offset
    shown = norm if len(norm) < 400 else norm[:400] + " ..."
    return f"closest candidate (line {line}, {ratio:.0%} similar):\n{textwrap.indent(shown, '      ')}", True


def _targets(code: str) -> set[str]:
    """The targets `code` assigns when it is one assignment (`x = 1`, `x: T = 1`, `x += 1`), else none."""
    try:
        body = ast.parse(textwrap.dedent(code)).body
    except (SyntaxError, ValueError, RecursionError):
        return set()
    if len(body) != 1:
        return set()
    node = body[0]
    if isinstance(node, ast.Assign):
        return {ast.unparse(t) for t in node.targets}
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return {ast.unparse(node.target)}
    return set()


def _same_target(module: cst.Module, candidates: Sequence[cst.CSTNode], pattern: str) -> tuple[cst.CSTNode, str] | None:
    """The first candidate statement assigning what the pattern assigns (`x = True` against the
    code's `x: ClassVar[bool] = True`): a `find` that missed an annotation or the operator."""
    want = _targets(pattern)
    if not want:
        return None
    for node in candidates:
        if isinstance(node, cst.SimpleStatementLine):
            text = code_of(module, node).strip()
            if _targets(text) & want:
                return node, text
    return None


def line_of(module: cst.Module, node: cst.CSTNode) -> int:
    return lines_of(module, [node])[0]


def lines_of(module: cst.Module, nodes: Sequence[cst.CSTNode], offset: int = 0) -> list[int]:
    """1-based first line of each node (plus `offset`: where `module` starts in the file)."""
    pos = starts(module)
    return [(pos[n][0] if n in pos else 0) + offset for n in nodes]


_STARTS: list[tuple[cst.Module, Mapping[cst.CSTNode, tuple[int, int]]]] = []  # the last few modules asked about


def starts(module: cst.Module) -> Mapping[cst.CSTNode, tuple[int, int]]:
    """(line, column) where each node of `module` starts. Resolving positions is a whole
    codegen pass; a refusal asks for several nodes of the same scope (the hits, the closest
    candidate), so the last few modules' answers are kept (the module itself with them, so
    an identity is never reused for another)."""
    for m, pos in _STARTS:
        if m is module:
            return pos
    resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    pos = {n: (r.start.line, r.start.column) for n, r in resolved.items()}
    _STARTS[:] = [(module, pos), *_STARTS[:2]]
    return pos

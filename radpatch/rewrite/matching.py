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
from collections.abc import Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from radpatch.errors import RefusedError
from radpatch.rewrite.source import MAX_DEPTH, depth_over, expression_text
from radpatch.rewrite.tree import (
    DEFS,
    Path_,
    block_body,
    block_holders,
    expression_holders,
    nodes_of,
    statement_slots,
    walk,
)


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
    # fails fast where libcst's parser takes seconds on deep nesting: ast.parse raises RecursionError
    # on 3.11 and 3.12, and on 3.10 and 3.13, which parse it, the depth the loader refuses does
    if depth_over(ast.parse(text)):
        raise RecursionError(f"nested deeper than {MAX_DEPTH} levels")
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
                top = [(*path, s) for s in body if isinstance(s, DEFS) and s.name.value == part]
                nested = top or nested
            if len(nested) == 1:
                path = nested[0]
                continue
            paths = {p[-1]: p for p in nested}
            hits = [p[-1] for p in nested]
        else:
            hits = [s for s in body if isinstance(s, DEFS) and s.name.value == part]
            block = path[-1].body if isinstance(path[-1], DEFS) else None
            paths = {h: (*path, block, h) if block is not None else (*path, h) for h in hits}
        container = "module" if len(path) == 1 else _name(path[-1])
        if not hits:
            names = [s.name.value for s in body if isinstance(s, DEFS)]
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
        if isinstance(stmt, DEFS) and stmt.name.value == name:
            out.append((*block, stmt))
    return out


def nested_scopes(path: Path_, qualname: str) -> Iterator[tuple[Path_, str]]:
    """Every function and class defined inside the scope at `path` (at any depth, nested ones too),
    with its qualified name, in source order: the scopes a statement or expression of `path` is not in."""
    for p in walk(path, lambda n: isinstance(n, DEFS), block_holders):
        node = p[-1]
        assert isinstance(node, DEFS)
        inner = node.name.value if qualname == "<module>" else f"{qualname}.{node.name.value}"
        yield p, inner
        yield from nested_scopes(p, inner)


def _name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, DEFS) else "<module>"


def _body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    if isinstance(node, cst.Module):
        return node.body
    assert isinstance(node, DEFS)
    body = node.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def code_of(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


def find_statements(module: cst.Module, scope: Path_, code: str) -> list[tuple[Path_, int]]:
    """Slots where a run of consecutive statements equals the statements of `code` (compared as
    `ast` statements, so `a = 1; b = 2` typed on one line matches the two lines upstream has)."""
    want = flat(parse_statements(code))
    hits = []
    for block, i in statement_slots(scope):
        body = block_body(block[-1])
        n = _covering(body, i, len(want))
        if n is not None and flat(body[i : i + n]) == want and _run_key(module, body[i : i + n]) == code_key(code):
            hits.append(
                (block, i)
            )  # flat first: a cheap pre-filter, generating code for every statement is the slow part
    return hits


def statement_count(code: str) -> int:
    """How many `ast` statements `code` is (a line `a; b` is two)."""
    return len(flat(parse_statements(code)))


def run_length(module: cst.Module, body: Sequence[cst.BaseStatement], i: int, code: str) -> int:
    """How many statements from body[i] the match of `code` there spans."""
    n = _covering(body, i, len(flat(parse_statements(code))))
    assert n is not None
    return n


def flat(stmts: Sequence[cst.BaseStatement]) -> list[type]:
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


def code_key(code: str) -> str:
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
    for p in walk(scope, lambda n: isinstance(n, cst.BaseExpression), expression_holders):
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

"""The rewrite operations, each with its exact inverse, on Python source text.

forward(text, op) applies one rewrite; inverse(text, op) undoes it. Both raise MatchFailure
unless their anchor matches exactly once. Inverses restore the original bytes: an insertion
removes exactly what it added, a parameter gives its comma back, a replacement puts the pattern
back (the engine proves the round trip byte for byte before writing).

Definitions are inserted and removed as lines, located with `ast`; the other operations parse
only their scope's top-level definition with libcst (see source.py) and splice it back.
"""

from __future__ import annotations

import ast
import contextlib
import re
import functools
import textwrap
from collections.abc import Callable, Iterator, Sequence

import libcst as cst

from radpatch.matching import (
    MatchFailure,
    Path_,
    block_body,
    closest,
    code_of,
    find_expressions,
    find_scope,
    find_statements,

    parse_statements,
    replace_on_path,
    statement_slots,
    stmt_key,
    walk,
)
from radpatch import commas
from radpatch.merge import merge
from radpatch.model import AddParameter, InsertDefinitions, InsertStatements, Operation, Replace
from radpatch.source import Source, Top, decode, expression_text, is_expression

Edit = Callable[[cst.Module, Operation, int], cst.CSTNode]


def forward(src: Source, op: Operation) -> Source:
    with _code_errors():
        if isinstance(op, InsertDefinitions):
            return _insert_defs(src, op)
        return _in_scope(src, _scope_of(op), lambda m, offset: _EDITS[type(op)][0](m, op, offset))


def inverse(src: Source, op: Operation) -> Source:
    with _code_errors():
        if isinstance(op, InsertDefinitions):
            return _remove_defs(src, op)
        return _in_scope(src, _scope_of(op), lambda m, offset: _EDITS[type(op)][1](m, op, offset))


@contextlib.contextmanager
def _code_errors() -> Iterator[None]:
    """Code that parses for `ast` but not for libcst (or not at all once combined) is a refusal."""
    try:
        yield
    except cst.ParserSyntaxError as exc:
        raise MatchFailure(f"libcst cannot parse the code involved: {exc.message} (line {exc.raw_line})") from None
    except SyntaxError as exc:
        raise MatchFailure(f"the code involved does not parse: {exc.msg} (line {exc.lineno})") from None


def _scope_of(op: Operation) -> str:
    return op.function if isinstance(op, AddParameter) else op.scope  # type: ignore[union-attr]


def _in_scope(src: Source, qualname: str, edit: Callable[[cst.Module, int], cst.CSTNode]) -> Source:
    """Run `edit` on a libcst module holding just the top-level definition `qualname` lives in."""
    if qualname == "<module>":
        return Source.parse(_as_module(edit(cst.parse_module(src.text), 0)).code)
    top = qualname.split(".")[0]
    hits = src.named(top)
    if len(hits) != 1:
        if hits:
            raise MatchFailure(f"scope {qualname!r}: the module defines {top!r} {len(hits)} times (ambiguous)")
        raise MatchFailure(f"scope {qualname!r}: the module defines no function or class {top!r}; {_near(top, src.names())}")
    t = src.tops[hits[0]]
    new = _as_module(edit(cst.parse_module(src.text_of(t.start, t.end)), t.start)).code
    return src.splice(hits[0], hits[0] + 1, new, (Top(t.name, 0, _count_lines(new)),))


def _count_lines(text: str) -> int:
    return len(Source.parse_lines(text))


def _as_module(node: cst.CSTNode) -> cst.Module:
    assert isinstance(node, cst.Module)
    return node


def _one(hits: Sequence[object], what: str, scope: str, no_match_detail: Callable[[], str]) -> None:
    if not hits:
        raise MatchFailure(f"{what} not found in {scope}; {no_match_detail()}")
    if len(hits) > 1:
        raise MatchFailure(f"{what} matches {len(hits)} times in {scope} (ambiguous; make `find` more specific)")


def _with_body(module: cst.Module, block: Path_, body: list[cst.BaseStatement]) -> cst.CSTNode:
    return replace_on_path(block, block[-1].with_changes(body=body))


# --- insert_definitions: whole lines, located with ast -------------------------------------------

@functools.lru_cache(maxsize=32)
def _payload_defs(source: bytes, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(source text, ast key) of each named top-level definition of a payload."""
    src = Source.parse(re.sub(r"\r\n?", "\n", decode(source)[0]))  # PEP 263; the target's line endings are applied later
    out = []
    for name in names:
        i = src.named(name)[0]
        text = src.text_of(src.tops[i].start, src.tops[i].end)
        out.append((text if text.endswith("\n") else text + "\n", ast.dump(src.node(i))))
    return tuple(out)


def _insert_defs(src: Source, op: InsertDefinitions) -> Source:
    """Definitions go right after the statement preceding the anchor ("before"; so comments
    above the anchor stay with it) or right after the anchor ("after"), each preceded by two
    blank lines. Before a first statement they go at the top, each followed by two. The
    file's line endings are used, and a file without a final newline stays without one."""
    anchor = src.named(op.anchor)
    _one(anchor, f"top-level definition {op.anchor!r}", "the module", lambda: _near(op.anchor, src.names()))
    for name in op.names:
        if src.named(name):
            raise MatchFailure(f"the module already defines {name!r}; the payload would shadow it")
    nl = src.newline
    defs = [t.replace("\n", nl) for t, _ in _payload_defs(op.payload_source, op.names)]
    first = anchor[0] if op.where == "before" else anchor[0] + 1
    if first == len(src.tops) and src.tops and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + "".join(nl + nl + d for d in defs)[:-len(nl)])
    at_top = first == 0
    block, tops = "", []
    for name, text in zip(op.names, defs):
        start = _count_lines(block) + (0 if at_top else 2)
        tops.append(Top(name, start, start + _count_lines(text)))
        block += text + nl + nl if at_top else nl + nl + text
    at_line = 0 if at_top else src.tops[first - 1].end
    return src.splice_lines(at_line, at_line, first, first, block, tuple(tops))


def _remove_defs(src: Source, op: InsertDefinitions) -> Source:
    first = src.named(op.names[0])
    _one(first, f"injected definition {op.names[0]!r}", "the module", lambda: "it was never inserted")
    i, n = first[0], len(op.names)
    wanted = [k for _, k in _payload_defs(op.payload_source, op.names)]
    got = [ast.dump(src.node(k)) if k < len(src.tops) and src.tops[k].name == name else "" for k, name in zip(range(i, i + n), op.names)]
    if got != wanted:
        differ = [name for name, g, w in zip(op.names, got, wanted) if g != w]
        raise MatchFailure(f"injected definitions differ from the payload {op.payload.name}: {', '.join(differ)}")
    at = i + n if op.where == "before" else i - 1
    if not (0 <= at < len(src.tops) and src.tops[at].name == op.anchor):
        raise MatchFailure(f"injected definitions are not {op.where} {op.anchor!r}")
    start = 0 if i == 0 else src.tops[i - 1].end
    end = src.tops[i + n].start if i == 0 else src.tops[i + n - 1].end
    inside = {line for t in src.tops[i:i + n] for line in range(t.start, t.end)}
    stray = [k + 1 for k in range(start, end) if k not in inside and src.lines[k].strip()]
    if stray:
        raise MatchFailure(f"lines {stray[:3]} between the injected definitions are not blank; cannot remove them exactly")
    if i + n == len(src.tops) and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, start)  # the file had no final newline before the definitions came
        return Source.parse(kept[:-len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(start, end, i, i + n, "", ())


def _near(name: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, names, n=3)
    return f"closest: {', '.join(close)}" if close else "no similar name"


# --- add_parameter -----------------------------------------------------------------------------

def _function(module: cst.Module, qualname: str) -> tuple[Path_, cst.FunctionDef]:
    path = find_scope(module, qualname)
    fn = path[-1]
    if not isinstance(fn, cst.FunctionDef):
        raise MatchFailure(f"{qualname!r} is not a function")
    return path, fn


def _add_param(module: cst.Module, op: AddParameter, offset: int) -> cst.CSTNode:
    path, fn = _function(module, op.function)
    params = fn.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if any(p.name.value == op.name for p in every) or _star_name(params) == op.name:
        raise MatchFailure(f"{op.function}() already has a parameter {op.name!r}")
    new = cst.Param(
        name=cst.Name(op.name),
        default=cst.parse_expression(op.default),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    plist = list(params.params)
    if isinstance(params.star_arg, cst.Param):
        # `def f(a, new=None, *args)` would make existing calls f(1, 2) bind `new`: refuse.
        raise MatchFailure(f"{op.function}() takes *{params.star_arg.name.value}; a new parameter before it would change how existing calls bind")
    sep = commas.separator(plist, fn.whitespace_before_params)
    if not plist and (params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg):
        new = new.with_changes(comma=cst.Comma(whitespace_after=sep))
    slash = params.posonly_ind
    if not plist and isinstance(slash, cst.ParamSlash):
        if isinstance(slash.comma, cst.Comma):
            raise MatchFailure(f"{op.function}(): adding a parameter after '/,' is not supported")
        # `a, /)` -> `a, /, new)`: the slash gets a comma, new takes the space before ')'.
        new = new.with_changes(whitespace_after_param=slash.whitespace_after)
        slash = slash.with_changes(comma=cst.Comma(whitespace_after=sep), whitespace_after=cst.SimpleWhitespace(""))
        params = params.with_changes(posonly_ind=slash)
    plist = commas.append(plist, new, sep)
    return replace_on_path(path, fn.with_changes(params=params.with_changes(params=plist)))


def _star_name(params: cst.Parameters) -> str | None:
    star = params.star_arg
    return star.name.value if isinstance(star, cst.Param) else None


def _remove_param(module: cst.Module, op: AddParameter, offset: int) -> cst.CSTNode:
    path, fn = _function(module, op.function)
    plist = list(fn.params.params)
    if not plist or plist[-1].name.value != op.name:
        raise MatchFailure(f"{op.function}() has no trailing parameter {op.name!r}")
    last = plist[-1]
    if last.default is None or stmt_key(code_of(module, last.default)) != stmt_key(op.default):
        raise MatchFailure(f"{op.function}(): parameter {op.name!r} does not default to {op.default}")
    params = fn.params
    slash = params.posonly_ind
    if len(plist) == 1 and isinstance(slash, cst.ParamSlash) and not isinstance(last.comma, cst.Comma):
        slash = slash.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after=last.whitespace_after_param)
        params = params.with_changes(posonly_ind=slash)
    return replace_on_path(path, fn.with_changes(params=params.with_changes(params=commas.pop(plist))))


# --- insert_before / insert_after --------------------------------------------------------------

def _scope_stmts(module: cst.Module, scope: Path_) -> list[cst.CSTNode]:
    return [block_body(b[-1])[i] for b, i in statement_slots(scope)]


def _insert_stmts(module: cst.Module, op: InsertStatements, offset: int) -> cst.CSTNode:
    scope = find_scope(module, op.scope)
    hits = find_statements(module, scope, [op.find])
    _one(hits, "statement `find`", op.scope, lambda: closest(module, _scope_stmts(module, scope), op.find, offset))
    block, i = hits[0]
    body = list(block_body(block[-1]))
    at = i + 1 if op.where == "after" else i
    body[at:at] = parse_statements(op.code)
    return _with_body(module, block, body)


def _remove_stmts(module: cst.Module, op: InsertStatements, offset: int) -> cst.CSTNode:
    scope = find_scope(module, op.scope)
    code = [code_of(module, s) for s in parse_statements(op.code)]
    seq = [op.find, *code] if op.where == "after" else [*code, op.find]
    hits = find_statements(module, scope, seq)
    _one(hits, "inserted statements next to `find`", op.scope, lambda: "the patch's statements are not there")
    block, i = hits[0]
    body = list(block_body(block[-1]))
    start = i + 1 if op.where == "after" else i
    del body[start:start + len(code)]
    return _with_body(module, block, body)


# --- replace -----------------------------------------------------------------------------------

def _replace(module: cst.Module, op: Replace, offset: int) -> cst.CSTNode:
    return _swap(module, op.scope, op.find, op.with_, offset)


def _unreplace(module: cst.Module, op: Replace, offset: int) -> cst.CSTNode:
    return _swap(module, op.scope, op.with_, op.find, offset)


def _swap(module: cst.Module, qualname: str, old: str, new: str, offset: int) -> cst.CSTNode:
    scope = find_scope(module, qualname)
    if is_expression(old):
        hits = find_expressions(module, scope, old)
        kind = type(cst.parse_expression(expression_text(old)))
        _one(hits, "expression `find`", qualname,
             lambda: closest(module, [p[-1] for p in walk(scope, lambda n: type(n) is kind)], old, offset))
        found = hits[0][-1]
        old_node = cst.parse_expression(expression_text(old))
        new_node = cst.parse_expression(expression_text(new))
        return replace_on_path(hits[0], merge(found, old_node, new_node))
    old_stmts = parse_statements(old)
    old_code = [code_of(module, s) for s in old_stmts]
    hits2 = find_statements(module, scope, old_code)
    _one(hits2, "statement `find`", qualname, lambda: closest(module, _scope_stmts(module, scope), old, offset))
    block, i = hits2[0]
    body = list(block_body(block[-1]))
    new_stmts = parse_statements(new)
    if len(new_stmts) == len(old_stmts):
        stmts = [merge(o, a, b) for o, a, b in zip(body[i:i + len(old_stmts)], old_stmts, new_stmts)]
    else:
        # The replaced lines' comments (above, and after the last one) stay where they were.
        stmts = list(new_stmts)
        stmts[0] = stmts[0].with_changes(leading_lines=body[i].leading_lines)  # type: ignore[attr-defined]
        last = body[i + len(old_stmts) - 1]
        if isinstance(last, cst.SimpleStatementLine) and isinstance(stmts[-1], cst.SimpleStatementLine):
            stmts[-1] = stmts[-1].with_changes(trailing_whitespace=last.trailing_whitespace)
    body[i:i + len(old_stmts)] = stmts  # type: ignore[assignment]
    return _with_body(module, block, body)


_EDITS: dict[type, tuple[Edit, Edit]] = {
    AddParameter: (_add_param, _remove_param),  # type: ignore[dict-item]
    InsertStatements: (_insert_stmts, _remove_stmts),  # type: ignore[dict-item]
    Replace: (_replace, _unreplace),  # type: ignore[dict-item]
}

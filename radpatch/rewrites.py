"""The rewrite operations, each with its exact inverse, on a libcst Module.

forward(module) -> module applies one rewrite; inverse(module) -> module undoes it. Both raise
MatchFailure unless their anchor matches exactly once. Inverses restore the original bytes: an
insertion removes exactly the nodes it added, a parameter gives its comma back, a replacement
puts the pattern back (the engine proves the round trip byte for byte before writing).
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Callable, Sequence

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
    is_expression,
    parse_statements,
    replace_on_path,
    statement_slots,
    stmt_key,
    walk,
)
from radpatch.model import AddParameter, InsertDefinitions, InsertStatements, Operation, Replace

_DEFS = (cst.FunctionDef, cst.ClassDef)


def forward(module: cst.Module, op: Operation) -> cst.Module:
    return _as_module(_DISPATCH[type(op)][0](module, op))


def inverse(module: cst.Module, op: Operation) -> cst.Module:
    return _as_module(_DISPATCH[type(op)][1](module, op))


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


# --- insert_definitions ------------------------------------------------------------------------

def _payload_defs(op: InsertDefinitions) -> list[cst.BaseStatement]:
    return list(_payload_defs_cached(op.payload_source, op.names))


@functools.lru_cache(maxsize=32)
def _payload_defs_cached(source: bytes, names: tuple[str, ...]) -> tuple[cst.BaseStatement, ...]:
    payload = cst.parse_module(source)
    defs = {s.name.value: s for s in payload.body if isinstance(s, _DEFS)}
    blank = [cst.EmptyLine(), cst.EmptyLine()]
    return tuple(defs[n].with_changes(leading_lines=blank) for n in names)


@functools.lru_cache(maxsize=32)
def _payload_keys(source: bytes, names: tuple[str, ...]) -> tuple[str, ...]:
    tree = ast.parse(source)
    defs = {n.name: ast.dump(n) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return tuple(defs[n] for n in names)


def _top_def_index(module: cst.Module, name: str) -> list[int]:
    return [i for i, s in enumerate(module.body) if isinstance(s, _DEFS) and s.name.value == name]


def _insert_defs(module: cst.Module, op: InsertDefinitions) -> cst.CSTNode:
    anchor = _top_def_index(module, op.anchor)
    names = [s.name.value for s in module.body if isinstance(s, _DEFS)]
    _one(anchor, f"top-level definition {op.anchor!r}", "the module", lambda: _near(op.anchor, names))
    for name in op.names:
        if _top_def_index(module, name):
            raise MatchFailure(f"the module already defines {name!r}; the payload would shadow it")
    at = anchor[0] + (1 if op.where == "after" else 0)
    body = list(module.body)
    body[at:at] = _payload_defs(op)
    return module.with_changes(body=body)


def _remove_defs(module: cst.Module, op: InsertDefinitions) -> cst.CSTNode:
    wanted = _payload_keys(op.payload_source, op.names)
    first = _top_def_index(module, op.names[0])
    _one(first, f"injected definition {op.names[0]!r}", "the module", lambda: "it was never inserted")
    start = first[0]
    body = list(module.body)
    block = body[start:start + len(wanted)]
    got = [_def_key(module, s) for s in block]
    if got != list(wanted):
        differ = [n for n, g, w in zip(op.names, got, wanted) if g != w] or list(op.names[len(got):])
        raise MatchFailure(f"injected definitions differ from the payload {op.payload.name}: {', '.join(differ)}")
    anchor_at = start + len(wanted) if op.where == "before" else start - 1
    anchor = body[anchor_at] if 0 <= anchor_at < len(body) else None
    if not (isinstance(anchor, _DEFS) and anchor.name.value == op.anchor):
        raise MatchFailure(f"injected definitions are not {op.where} {op.anchor!r}")
    del body[start:start + len(wanted)]
    return module.with_changes(body=body)


def _def_key(module: cst.Module, node: cst.BaseStatement) -> str:
    tree = ast.parse(textwrap.dedent(code_of(module, node)))
    return ast.dump(tree.body[0]) if tree.body else ""


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


def _add_param(module: cst.Module, op: AddParameter) -> cst.CSTNode:
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
    if plist:
        # The new last parameter takes the old last one's comma (so the inverse can hand it back);
        # the old one gets a comma spaced like the gap after the opening parenthesis.
        prev = plist[-1]
        new = new.with_changes(comma=prev.comma)
        gap = fn.whitespace_before_params
        after = gap if isinstance(gap, cst.ParenthesizedWhitespace) else cst.SimpleWhitespace(" ")
        plist[-1] = prev.with_changes(comma=cst.Comma(whitespace_after=after))
    elif params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg:
        new = new.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    plist.append(new)
    return replace_on_path(path, fn.with_changes(params=params.with_changes(params=plist)))


def _star_name(params: cst.Parameters) -> str | None:
    star = params.star_arg
    return star.name.value if isinstance(star, cst.Param) else None


def _remove_param(module: cst.Module, op: AddParameter) -> cst.CSTNode:
    path, fn = _function(module, op.function)
    plist = list(fn.params.params)
    if not plist or plist[-1].name.value != op.name:
        raise MatchFailure(f"{op.function}() has no trailing parameter {op.name!r}")
    last = plist.pop()
    if last.default is None or stmt_key(code_of(module, last.default)) != stmt_key(op.default):
        raise MatchFailure(f"{op.function}(): parameter {op.name!r} does not default to {op.default}")
    if plist:
        plist[-1] = plist[-1].with_changes(comma=last.comma)
    return replace_on_path(path, fn.with_changes(params=fn.params.with_changes(params=plist)))


# --- insert_before / insert_after --------------------------------------------------------------

def _scope_stmts(module: cst.Module, scope: Path_) -> list[cst.CSTNode]:
    return [block_body(b[-1])[i] for b, i in statement_slots(scope)]


def _insert_stmts(module: cst.Module, op: InsertStatements) -> cst.CSTNode:
    scope = find_scope(module, op.scope)
    hits = find_statements(module, scope, [op.find])
    _one(hits, "statement `find`", op.scope, lambda: closest(module, _scope_stmts(module, scope), op.find))
    block, i = hits[0]
    body = list(block_body(block[-1]))
    at = i + 1 if op.where == "after" else i
    body[at:at] = parse_statements(op.code)
    return _with_body(module, block, body)


def _remove_stmts(module: cst.Module, op: InsertStatements) -> cst.CSTNode:
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

def _replace(module: cst.Module, op: Replace) -> cst.CSTNode:
    return _swap(module, op.scope, op.find, op.with_)


def _unreplace(module: cst.Module, op: Replace) -> cst.CSTNode:
    return _swap(module, op.scope, op.with_, op.find)


def _swap(module: cst.Module, qualname: str, old: str, new: str) -> cst.CSTNode:
    scope = find_scope(module, qualname)
    if is_expression(old):
        hits = find_expressions(module, scope, old)
        kind = type(cst.parse_expression(old.strip()))
        _one(hits, "expression `find`", qualname,
             lambda: closest(module, [p[-1] for p in walk(scope, lambda n: type(n) is kind)], old))
        found = hits[0][-1]
        repl = cst.parse_expression(textwrap.dedent(new).strip())
        if hasattr(found, "lpar") and hasattr(repl, "lpar"):
            repl = repl.with_changes(lpar=found.lpar, rpar=found.rpar)  # type: ignore[attr-defined]
        return replace_on_path(hits[0], repl)
    old_code = [code_of(module, s) for s in parse_statements(old)]
    hits2 = find_statements(module, scope, old_code)
    _one(hits2, "statement `find`", qualname, lambda: closest(module, _scope_stmts(module, scope), old))
    block, i = hits2[0]
    body = list(block_body(block[-1]))
    stmts = parse_statements(new)
    stmts[0] = stmts[0].with_changes(leading_lines=body[i].leading_lines)  # type: ignore[union-attr]
    body[i:i + len(old_code)] = stmts
    return _with_body(module, block, body)


_DISPATCH = {
    InsertDefinitions: (_insert_defs, _remove_defs),
    AddParameter: (_add_param, _remove_param),
    InsertStatements: (_insert_stmts, _remove_stmts),
    Replace: (_replace, _unreplace),
}

"""A call set_keyword does not search, in a `def` or `class` statement's header: a decorator or a
parameter's default, of the scope itself or of a definition right in it. They run where the
definition is made, not in its body; set_keyword changes them with `header:` (the call alone of its
callee in that header), `replace_decorator` and `set_default` otherwise. When set_keyword finds no
call, this says where the call is and the rewrite to write instead, with the code as set_keyword
would have left it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Protocol

import libcst as cst

from radpatch.rewrite.matching import MatchFailure, code_of, lines_of
from radpatch.rewrite.ops.common.keyword_calls import header_calls, header_exprs
from radpatch.rewrite.ops.common.no_match import Explanation
from radpatch.rewrite.patterns import expr_key
from radpatch.rewrite.tree import Path_, nodes_of

Edit = Callable[[cst.Call, int], cst.Call | None]  # the call as set_keyword leaves it; None: not one it changes


class HeaderOp(Protocol):
    @property
    def call(self) -> str: ...


def _definitions(scope: Path_, qualname: str) -> Iterator[tuple[Path_, str]]:
    """The scope's own definition, then those right in its body, each with its qualified name."""
    node = scope[-1]
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        yield scope, qualname
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    else:
        body = node.body if isinstance(node, cst.Module) else ()
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield (*scope, stmt), stmt.name.value if qualname == "<module>" else f"{qualname}.{stmt.name.value}"


def in_headers(
    module: cst.Module, scope: Path_, qualname: str, op: HeaderOp, offset: int, edit: Edit
) -> Explanation | None:
    """Where the call set_keyword would change is in a definition's header, and what to write instead."""
    key = expr_key(op.call)
    for path, name in _definitions(scope, qualname):
        for expr, kind, parameter in header_exprs(path):
            for p in [*([expr] if isinstance(expr[-1], cst.Call) else []), *nodes_of(expr, cst.Call)]:
                call = p[-1]
                assert isinstance(call, cst.Call)
                try:
                    if expr_key(code_of(module, call.func)) != key:
                        continue
                    line = lines_of(module, [call], offset)[0]
                    new = edit(call, line)
                except (SyntaxError, MatchFailure):
                    continue
                if new is None:
                    continue
                old = code_of(module, expr[-1]).strip()
                written = cst.Module([]).code_for_node(expr[-1].deep_replace(call, new)).strip()
                header = "decorators" if kind == "decorator" else "defaults"
                if kind == "decorator":
                    where = f"in the decorator `@{old}` of `{name}`"
                    rewrite = f"replace_decorator: {{function: {name}, find: {_q(old)}, with: {_q(written)}}}"
                else:
                    where = f"in the default of parameter `{parameter}` of `{name}`"
                    rewrite = (
                        f"set_default: {{function: {name}, parameter: {parameter}, from: {_q(old)}, to: {_q(written)}}}"
                    )
                same = [c[-1] for c in header_calls(path, header) if _callee(module, c[-1]) == key]
                alone = len(same) == 1 and same[0] is call
                rewrite = _with_header(op, name, header) if alone and _with_header(op, name, header) else rewrite
                return (
                    f"the call to `{op.call}` at line {line} is {where}, which set_keyword searches only with "
                    f"`header: {header}` (without it, calls in the scope's body)",
                    True,
                    f"write instead: {rewrite}",
                )
    return None


def or_in_headers(
    module: cst.Module,
    scope: Path_,
    qualname: str,
    op: HeaderOp,
    offset: int,
    edit: Edit,
    why: Callable[[], Explanation],
) -> Callable[[], Explanation]:
    """The no-match explanation: the call in a definition's header (`in_headers`) if it is there, else `why`'s."""
    return lambda: in_headers(module, scope, qualname, op, offset, edit) or why()


def _callee(module: cst.Module, node: cst.CSTNode) -> object:
    """The callee of a call as patterns.expr_key compares it (None for anything but a call)."""
    return expr_key(code_of(module, node.func)) if isinstance(node, cst.Call) else None


def _with_header(op: HeaderOp, name: str, header: str) -> str:
    """The set_keyword `op` with `scope: name` and `header:` (its call alone of its callee there); ""
    for another operation, or one that picks its call (`within:`, `occurrence:`), which `header:` does not."""
    if getattr(op, "KEY", None) != "set_keyword" or getattr(op, "within", None) or getattr(op, "occurrence", None):
        return ""
    parts = [f"scope: {name}", f"call: {_q(op.call)}", f"keyword: {getattr(op, 'keyword', '')}"]
    for key, attr in (("from", "from_"), ("to", "to"), ("after", "after"), ("before", "before")):
        value = getattr(op, attr, None)
        if value is not None:
            parts.append(f"{key}: {_q(value)}")
    return "set_keyword: {" + ", ".join([*parts, f"header: {header}"]) + "}"


def _q(code: str) -> str:
    """`code` as a YAML flow scalar: single-quoted, or JSON's double quotes where it holds a `'`."""
    return json.dumps(code) if "'" in code or "\n" in code else f"'{code}'"

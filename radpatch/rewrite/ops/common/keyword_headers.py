"""A call set_keyword does not search, in a `def` or `class` statement's header: a decorator or a
parameter's default, of the scope itself or of a definition right in it. They run where the
definition is made, not in its body; the operations that change them are `replace_decorator` and
`set_default`. When set_keyword finds no call, this says where the call is and the rewrite to
write instead, with the code as set_keyword would have left it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Protocol

import libcst as cst

from radpatch.rewrite.matching import MatchFailure, code_of, lines_of
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


def _headers(path: Path_) -> Iterator[tuple[Path_, str, str | None]]:
    """(path to the expression, "decorator" or "default", the parameter) of the definition's header."""
    node = path[-1]
    assert isinstance(node, (cst.FunctionDef, cst.ClassDef))
    for dec in node.decorators:
        yield (*path, dec, dec.decorator), "decorator", None
    if isinstance(node, cst.FunctionDef):
        p = node.params
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.default is not None:
                yield (*path, p, param, param.default), "default", param.name.value


def in_headers(
    module: cst.Module, scope: Path_, qualname: str, op: HeaderOp, offset: int, edit: Edit
) -> Explanation | None:
    """Where the call set_keyword would change is in a definition's header, and what to write instead."""
    key = expr_key(op.call)
    for path, name in _definitions(scope, qualname):
        for expr, kind, parameter in _headers(path):
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
                if kind == "decorator":
                    where = f"in the decorator `@{old}` of `{name}`"
                    rewrite = f"replace_decorator: {{function: {name}, find: {_q(old)}, with: {_q(written)}}}"
                else:
                    where = f"in the default of parameter `{parameter}` of `{name}`"
                    rewrite = (
                        f"set_default: {{function: {name}, parameter: {parameter}, from: {_q(old)}, to: {_q(written)}}}"
                    )
                return (
                    f"the call to `{op.call}` at line {line} is {where}, which set_keyword does not search (it "
                    "changes calls in the scope's body)",
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


def _q(code: str) -> str:
    """`code` as a YAML flow scalar: single-quoted, or JSON's double quotes where it holds a `'`."""
    return json.dumps(code) if "'" in code or "\n" in code else f"'{code}'"

"""set_default: a parameter's default value `from` becomes `to` (and back, for the inverse)."""

from __future__ import annotations

import libcst as cst

from radpatch.registry.model import SetDefault
from radpatch.rewrite.matching import (
    MatchFailure,
    NotFound,
    NotUndoable,
    code_of,
    expr_key,
    replace_on_path,
)
from radpatch.rewrite.merge import merge
from radpatch.rewrite.ops.add_parameter import function
from radpatch.rewrite.ops.common import in_scope
from radpatch.rewrite.source import Source, expression_text


def forward(src: Source, op: SetDefault) -> Source:
    return in_scope(src, op.function, lambda m, offset: _set(m, op, op.from_, op.to, offset, NotFound))


def inverse(src: Source, op: SetDefault) -> Source:
    return in_scope(src, op.function, lambda m, offset: _set(m, op, op.to, op.from_, offset, NotUndoable))


def _set(
    module: cst.Module, op: SetDefault, old: str, new: str, offset: int, failure: type[MatchFailure]
) -> cst.CSTNode:
    path, fn = function(module, op.function, offset)
    params = fn.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    hits = [p for p in every if p.name.value == op.parameter]
    if not hits:
        names = ", ".join(p.name.value for p in every) or "none"
        raise NotFound(f"{op.function}() has no parameter {op.parameter!r} (it has: {names})")
    param = hits[0]
    if param.default is None:
        raise failure(f"{op.function}(): parameter {op.parameter!r} has no default")
    have = code_of(module, param.default)
    if expr_key(have) != expr_key(old):
        raise failure(f"{op.function}(): parameter {op.parameter!r} defaults to {have}, not {old}")
    default = merge(
        param.default, cst.parse_expression(expression_text(old)), cst.parse_expression(expression_text(new))
    )
    return replace_on_path((*path, params, param), param.with_changes(default=default))

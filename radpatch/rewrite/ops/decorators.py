"""add_decorator, remove_decorator, replace_decorator on a function, method or class.

Decorators are compared as expressions (AST): `@functools.cache` typed in any layout matches.
Adding and removing happen at one end of the list (`position`), so each undoes the other.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from radpatch.registry.model import AddDecorator, RemoveDecorator, ReplaceDecorator
from radpatch.rewrite.matching import (
    MatchFailure,
    NotFound,
    NotUndoable,
    Path_,
    code_of,
    expr_key,
    find_scope,
    replace_on_path,
)
from radpatch.rewrite.merge import merge
from radpatch.rewrite.ops.common import in_scope
from radpatch.rewrite.source import Source, expression_text

Decorated = cst.FunctionDef | cst.ClassDef
Op = AddDecorator | RemoveDecorator | ReplaceDecorator


def _target(module: cst.Module, qualname: str, offset: int) -> tuple[Path_, Decorated]:
    path = find_scope(module, qualname, offset)
    node = path[-1]
    assert isinstance(node, (cst.FunctionDef, cst.ClassDef))
    return path, node


def _edit(src: Source, op: Op, change: Callable[[cst.Module, list[cst.Decorator]], list[cst.Decorator]]) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, node = _target(module, op.function, offset)
        return replace_on_path(path, node.with_changes(decorators=change(module, list(node.decorators))))

    return in_scope(src, op.function, edit)


def _is(module: cst.Module, dec: cst.Decorator, expr: str) -> bool:
    return expr_key(code_of(module, dec.decorator)) == expr_key(expr)


def _add(
    op: AddDecorator | RemoveDecorator, failure: type[MatchFailure]
) -> Callable[[cst.Module, list[cst.Decorator]], list[cst.Decorator]]:
    def change(module: cst.Module, decs: list[cst.Decorator]) -> list[cst.Decorator]:
        if any(_is(module, d, op.decorator) for d in decs):
            # adding it again would not be undone by removing one: the code already has it (upstream took it?)
            raise failure(
                f"{op.function} is already decorated with @{op.decorator}",
                "this version may already have the change: check it, and declare it `obsolete:` if so",
            )
        new = cst.Decorator(decorator=cst.parse_expression(expression_text(op.decorator)))
        return [new, *decs] if op.position == "top" else [*decs, new]

    return change


def _remove(
    op: AddDecorator | RemoveDecorator, failure: type[MatchFailure]
) -> Callable[[cst.Module, list[cst.Decorator]], list[cst.Decorator]]:
    def change(module: cst.Module, decs: list[cst.Decorator]) -> list[cst.Decorator]:
        at = 0 if op.position == "top" else len(decs) - 1
        if not decs or not _is(module, decs[at], op.decorator):
            there = [d for d in decs if _is(module, d, op.decorator)]
            where = "outermost" if op.position == "top" else "innermost"
            detail = (
                f"it is there but not {where} (say `position: {'bottom' if op.position == 'top' else 'top'}`)"
                if there
                else "it is not there"
            )
            raise failure(f"{op.function}: no {where} decorator @{op.decorator}; {detail}")
        return decs[:at] + decs[at + 1 :]

    return change


def _swap(
    op: ReplaceDecorator, old: str, new: str, failure: type[MatchFailure]
) -> Callable[[cst.Module, list[cst.Decorator]], list[cst.Decorator]]:
    def change(module: cst.Module, decs: list[cst.Decorator]) -> list[cst.Decorator]:
        hits = [i for i, d in enumerate(decs) if _is(module, d, old)]
        if len(hits) != 1:
            shown = ", ".join("@" + code_of(module, d.decorator) for d in decs) or "none"
            raise failure(f"{op.function}: {len(hits)} decorators equal @{old} (it has: {shown})")
        d = decs[hits[0]]
        merged = merge(
            d.decorator, cst.parse_expression(expression_text(old)), cst.parse_expression(expression_text(new))
        )
        assert isinstance(merged, cst.BaseExpression)
        return decs[: hits[0]] + [d.with_changes(decorator=merged)] + decs[hits[0] + 1 :]

    return change


def forward(src: Source, op: Op) -> Source:
    if isinstance(op, AddDecorator):
        return _edit(src, op, _add(op, NotFound))
    if isinstance(op, RemoveDecorator):
        return _edit(src, op, _remove(op, NotFound))
    return _edit(src, op, _swap(op, op.find, op.with_, NotFound))


def inverse(src: Source, op: Op) -> Source:
    if isinstance(op, AddDecorator):
        return _edit(src, op, _remove(op, NotUndoable))
    if isinstance(op, RemoveDecorator):
        return _edit(src, op, _add(op, NotUndoable))
    return _edit(src, op, _swap(op, op.with_, op.find, NotUndoable))

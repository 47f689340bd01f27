"""add_decorator, remove_decorator, replace_decorator on a function, method or class.

Decorators are compared as expressions (AST): `@functools.cache` typed in any layout matches.
Adding and removing happen at one end of the list (`position`), so each undoes the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from radpatch.registry.code import expression_text
from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import MatchFailure, NearMiss, NotFound, NotUndoable, code_of, replace_on_path
    from radpatch.rewrite.merge import merge
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.patterns import expr_key
    from radpatch.rewrite.scopes import find_scope
    from radpatch.rewrite.tree import Path_


class _Decorators(Operation):
    """The three decorator operations: what they share (a function or class, one undoing the other)."""

    function: str

    def scope_name(self) -> str:
        return self.function

    def touches(self) -> tuple[Touch, ...]:
        """The function's decorator list (outside its body: a body rewrite commutes with it)."""
        return (Touch("node", self.function, "decorators", beside_body=True),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return _forward(src, self)  # type: ignore[arg-type]

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return _inverse(src, self)  # type: ignore[arg-type]


@dataclass(frozen=True)
class AddDecorator(_Decorators):
    """Add `@decorator` to a function or class, outermost (`top`, default) or innermost (`bottom`)."""

    function: str
    decorator: str
    position: Literal["top", "bottom"] = "top"

    KEY: ClassVar[str] = "add_decorator"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the decorated function or class: `f`, `Class`, `Class.method`"),
        Field("decorator", "expression", "the decorator without `@`, e.g. `functools.cache`"),
        Field(
            "position",
            "choice",
            "optional: `top` (outermost, default) or `bottom` (innermost)",
            required=False,
            choices=("top", "bottom"),
        ),
    )
    EXAMPLE: ClassVar[str] = 'function: EngineCore.abort_requests\ndecorator: instrument(span_name="Abort requests")'

    def describe(self) -> str:
        return f"add @{self.decorator} to {self.function} ({self.position})"


@dataclass(frozen=True)
class RemoveDecorator(_Decorators):
    """Remove `@decorator` from a function or class; it must be the outermost (`top`) or innermost (`bottom`)."""

    function: str
    decorator: str
    position: Literal["top", "bottom"] = "top"

    KEY: ClassVar[str] = "remove_decorator"
    FIELDS: ClassVar[tuple[Field, ...]] = AddDecorator.FIELDS
    EXAMPLE: ClassVar[str] = "function: EngineCoreProc.startup_handshake\ndecorator: staticmethod"

    def describe(self) -> str:
        return f"remove @{self.decorator} from {self.function}"

    def takes_away(self) -> bool:
        return True


@dataclass(frozen=True)
class ReplaceDecorator(_Decorators):
    """Replace the one decorator of a function or class equal to `find` by `with_`."""

    function: str
    find: str
    with_: str

    KEY: ClassVar[str] = "replace_decorator"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the decorated function or class"),
        Field("find", "expression", "the decorator now there, without `@` (AST-compared)"),
        Field("with", "expression", "the decorator that replaces it"),
    )
    EXAMPLE: ClassVar[str] = (
        'function: EngineCore._initialize_kv_caches\nfind: instrument(span_name="Prepare model")\n'
        'with: instrument(span_name="Prepare model and KV cache")'
    )

    def describe(self) -> str:
        return f"replace @{self.find} by @{self.with_} on {self.function}"


Op = AddDecorator | RemoveDecorator | ReplaceDecorator


def _definition_of(module: cst.Module, qualname: str, offset: int) -> tuple[Path_, cst.FunctionDef | cst.ClassDef]:
    path = find_scope(module, qualname, offset)
    node = path[-1]
    if not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        raise MatchFailure(
            f"{qualname!r} is the module, which has no decorators",
            "name the decorated function, method or class: `f`, `Class`, `Class.method`",
        )
    return path, node


def _edit(src: Source, op: Op, change: Callable[[cst.Module, list[cst.Decorator]], list[cst.Decorator]]) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, node = _definition_of(module, op.function, offset)
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
        if op.position == "top" and decs and failure is NotFound:
            outer = code_of(module, decs[0].decorator)
            if _descriptor(outer):
                # @lru_cache over @staticmethod wraps the descriptor: calls through an instance break
                raise MatchFailure(
                    f"{op.function}'s outermost decorator @{outer} makes it a descriptor; "
                    f"@{op.decorator} above it would wrap the descriptor, not the function",
                    "say `position: bottom` to decorate the function itself",
                )
        return [new, *decs] if op.position == "top" else [*decs, new]

    return change


_DESCRIPTORS = frozenset(
    {"staticmethod", "classmethod", "property", "cached_property", "abstractproperty", "setter", "getter", "deleter"}
)


def _dotted(expr: str) -> str:
    """The decorator's name without its call: `torch.inference_mode` for `torch.inference_mode()`."""
    return "".join(expr.split("(")[0].split())


def _descriptor(expr: str) -> bool:
    """`@staticmethod`, `@classmethod`, `@property`, `@functools.cached_property`, `@x.setter`, ..."""
    return expr.split("(")[0].strip().split(".")[-1].strip() in _DESCRIPTORS


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
                + (
                    f" (it has: {', '.join('@' + code_of(module, d.decorator) for d in decs)})"
                    if decs
                    else " (it has no decorators)"
                )
            )
            near = [
                code_of(module, d.decorator)
                for d in decs
                if _dotted(code_of(module, d.decorator)) == _dotted(op.decorator)
            ]
            if not there and near and failure is NotFound:
                raise NearMiss(
                    f"{op.function}: no {where} decorator @{op.decorator}; it has @{near[0]}",
                    f"fix `decorator`: write `decorator: {near[0]}` (the decorator as the code writes it)",
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
            message = f"{op.function}: {len(hits)} decorators equal @{old} (it has: {shown})"
            near = [code_of(module, d.decorator) for d in decs if _dotted(code_of(module, d.decorator)) == _dotted(old)]
            if not hits and len(near) == 1 and failure is NotFound:
                # `torch.inference_mode` for the code's `torch.inference_mode()`: a typo, not another version
                raise NearMiss(message, f"fix `find`: write `find: {near[0]}` (the decorator as the code writes it)")
            raise failure(message)
        d = decs[hits[0]]
        merged = merge(
            d.decorator, cst.parse_expression(expression_text(old)), cst.parse_expression(expression_text(new))
        )
        assert isinstance(merged, cst.BaseExpression)
        return decs[: hits[0]] + [d.with_changes(decorator=merged)] + decs[hits[0] + 1 :]

    return change


def _forward(src: Source, op: Op) -> Source:
    if isinstance(op, AddDecorator):
        return _edit(src, op, _add(op, NotFound))
    if isinstance(op, RemoveDecorator):
        return _edit(src, op, _remove(op, NotFound))
    return _edit(src, op, _swap(op, op.find, op.with_, NotFound))


def _inverse(src: Source, op: Op) -> Source:
    if isinstance(op, AddDecorator):
        return _edit(src, op, _remove(op, NotUndoable))
    if isinstance(op, RemoveDecorator):
        return _edit(src, op, _add(op, NotUndoable))
    return _edit(src, op, _swap(op, op.with_, op.find, NotUndoable))

"""set_default: a parameter's default value `from` becomes `to` (and back, for the inverse)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import expression_text
from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import MatchFailure, NotFound, NotUndoable, code_of, replace_on_path
    from radpatch.rewrite.merge import enclosed, merge
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.later_definition import refuse_later_definition
    from radpatch.rewrite.ops.common.selection import function
    from radpatch.rewrite.patterns import expr_key


@dataclass(frozen=True)
class SetDefault(Operation):
    """Change a parameter's default value from `from_` to `to`."""

    function: str
    parameter: str
    from_: str
    to: str

    KEY: ClassVar[str] = "set_default"
    PROVES_LATER: ClassVar[bool] = True
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function: `f` or `Class.method`"),
        Field("parameter", "identifier", "the parameter whose default changes"),
        Field("from", "expression", "the default the installed code has (any layout); anything else is refused"),
        Field("to", "expression", "the new default"),
    )
    EXAMPLE: ClassVar[str] = (
        "function: AsyncLLM.wait_for_requests_to_drain\nparameter: drain_timeout\nfrom: 300\nto: 900"
    )

    def describe(self) -> str:
        return f"change the default of {self.function}({self.parameter}=...) from {self.from_} to {self.to}"

    def scope_name(self) -> str:
        return self.function

    def touches(self) -> tuple[Touch, ...]:
        """The parameter's default."""
        return (Touch("node", self.function, f"default of {self.parameter}", beside_body=True),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        out = in_scope(src, self.function, lambda m, offset: _set(m, self, self.from_, self.to, offset, NotFound))
        refuse_later_definition(src.text, self.function, "set_default", self.parameter)
        return out

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.function, lambda m, offset: _set(m, self, self.to, self.from_, offset, NotUndoable))


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
        param.default,
        enclosed(cst.parse_expression(expression_text(old))),
        enclosed(cst.parse_expression(expression_text(new))),
    )
    return replace_on_path((*path, params, param), param.with_changes(default=default))

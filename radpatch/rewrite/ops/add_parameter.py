"""add_parameter: `name=default` becomes the last positional-or-keyword parameter of a function.

The separator and line layout follow the list's own (rewrite/commas.py); the inverse pops it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import Field, Operation
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite import commas
    from radpatch.rewrite.matching import MatchFailure, NotUndoable, code_of, replace_on_path, stmt_key
    from radpatch.rewrite.ops.common import function, in_scope


@dataclass(frozen=True)
class AddParameter(Operation):
    """Add `name=default` as the last positional-or-keyword parameter of `function`."""

    function: str
    name: str
    default: str

    KEY: ClassVar[str] = "add_parameter"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function: `f`, `Class.method`, `Outer.Inner.method`"),
        Field("name", "identifier", "the new parameter's name"),
        Field("default", "expression", "its default value (existing calls keep working)"),
    )
    EXAMPLE: ClassVar[str] = "function: _get_kv_cache_groups_uniform_page_size\nname: vllm_config\ndefault: None"

    def describe(self) -> str:
        return f"add parameter {self.name}={self.default} to {self.function}()"

    def scope_name(self) -> str:
        return self.function

    def forward(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.function, lambda m, offset: _add(m, self, offset))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.function, lambda m, offset: _remove(m, self, offset))


def _add(module: cst.Module, op: AddParameter, offset: int) -> cst.CSTNode:
    path, fn = function(module, op.function, offset)
    params = fn.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if any(p.name.value == op.name for p in every) or _star_name(params) == op.name:
        raise MatchFailure(
            f"{op.function}() already has a parameter {op.name!r}",
            "upstream may have added it: check whether this version already has the change",
        )
    new = cst.Param(
        name=cst.Name(op.name),
        default=cst.parse_expression(op.default),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    plist = list(params.params)
    if isinstance(params.star_arg, cst.Param):
        # `def f(a, new=None, *args)` would make existing calls f(1, 2) bind `new`: refuse.
        raise MatchFailure(
            f"{op.function}() takes *{params.star_arg.name.value}; "
            "a new parameter before it would change how existing calls bind",
            "use a `replace` of the signature's call sites, or wrap the function instead",
        )
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


def _remove(module: cst.Module, op: AddParameter, offset: int) -> cst.CSTNode:
    path, fn = function(module, op.function, offset)
    plist = list(fn.params.params)
    if not plist or plist[-1].name.value != op.name:
        raise NotUndoable(f"{op.function}() has no trailing parameter {op.name!r}")
    last = plist[-1]
    if last.default is None or stmt_key(code_of(module, last.default)) != stmt_key(op.default):
        raise NotUndoable(f"{op.function}(): parameter {op.name!r} does not default to {op.default}")
    params = fn.params
    slash = params.posonly_ind
    if len(plist) == 1 and isinstance(slash, cst.ParamSlash) and not isinstance(last.comma, cst.Comma):
        slash = slash.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after=last.whitespace_after_param)
        params = params.with_changes(posonly_ind=slash)
    return replace_on_path(path, fn.with_changes(params=params.with_changes(params=commas.pop(plist))))

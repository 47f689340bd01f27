"""add_parameter: `name=default` (or `name: annotation = default`) becomes the last
positional-or-keyword parameter of a function.

The separator and line layout follow the list's own (rewrite/commas.py); the inverse pops it back.
"""

from __future__ import annotations

import builtins
import re
import symtable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite import commas
    from radpatch.rewrite.matching import MatchFailure, NotUndoable, code_of, replace_on_path
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.selection import function
    from radpatch.rewrite.patterns import stmt_key


@dataclass(frozen=True)
class AddParameter(Operation):
    """Add `name=default` (`name: annotation = default` with `annotation`) as the last positional-or-keyword
    parameter of `function`."""

    function: str
    name: str
    default: str
    annotation: str | None = None

    KEY: ClassVar[str] = "add_parameter"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function: `f`, `Class.method`, `Outer.Inner.method`"),
        Field("name", "identifier", "the new parameter's name"),
        Field("default", "expression", "its default value (existing calls keep working)"),
        Field(
            "annotation", "expression", "optional: its annotation, written `name: annotation = default`", required=False
        ),
    )
    EXAMPLE: ClassVar[str] = "function: _get_kv_cache_groups_uniform_page_size\nname: vllm_config\ndefault: None"

    def describe(self) -> str:
        if self.annotation is not None:
            return f"add parameter {self.name}: {self.annotation} = {self.default} to {self.function}()"
        return f"add parameter {self.name}={self.default} to {self.function}()"

    def scope_name(self) -> str:
        return self.function

    def touches(self) -> tuple[Touch, ...]:
        """The function's signature."""
        return (Touch("node", self.function, "signature", beside_body=True),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        shadowed = _shadowed(src.text, self.function, self.name)
        if shadowed is not None:
            raise MatchFailure(
                f"{self.function}() reads {self.name!r} from {shadowed}; "
                f"a parameter {self.name!r} would take its place there",
                "pick another name for the new parameter",
            )
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
    if op.annotation is None:
        new = cst.Param(
            name=cst.Name(op.name),
            default=cst.parse_expression(op.default),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
            ),
        )
    else:  # PEP 8: an annotated parameter's `=` has spaces around it
        new = cst.Param(
            name=cst.Name(op.name),
            annotation=cst.Annotation(cst.parse_expression(op.annotation)),
            default=cst.parse_expression(op.default),
            equal=cst.AssignEqual(),
        )
    plist = list(params.params)
    if isinstance(params.star_arg, cst.Param):
        # `def f(a, new=None, *args)` would make existing calls f(1, 2) bind `new`: refuse.
        raise MatchFailure(
            f"{op.function}() takes *{params.star_arg.name.value}; "
            "a new parameter before it would change how existing calls bind",
            "use a `replace` of the signature's call sites, or wrap the function instead",
        )
    if isinstance(params.star_kwarg, cst.Param):
        # `def f(a, new=None, **kw)`: an existing call f(1, new=2) would bind `new` instead of
        # putting it into kw; radpatch cannot prove no caller passes that keyword.
        raise MatchFailure(
            f"{op.function}() takes **{params.star_kwarg.name.value}; "
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
    if op.annotation is None:
        annotated = last.annotation is None
    else:
        annotated = last.annotation is not None and stmt_key(code_of(module, last.annotation.annotation)) == stmt_key(
            op.annotation
        )
    if not annotated:
        what = "no annotation" if op.annotation is None else f"the annotation {op.annotation}"
        raise NotUndoable(f"{op.function}(): parameter {op.name!r} does not carry {what}")
    params = fn.params
    slash = params.posonly_ind
    if len(plist) == 1 and isinstance(slash, cst.ParamSlash) and not isinstance(last.comma, cst.Comma):
        slash = slash.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after=last.whitespace_after_param)
        params = params.with_changes(posonly_ind=slash)
    return replace_on_path(path, fn.with_changes(params=params.with_changes(params=commas.pop(plist))))


def _shadowed(text: str, qualname: str, name: str) -> str | None:
    """Where `qualname`'s body (or a scope nested in it) reads `name` from when the function does
    not bind it: "the module", "the builtins" or "an enclosing function"; None when it reads no
    such name (a read of an undefined name is the patch's own use of the new parameter)."""
    try:
        top = symtable.symtable(text, "<module>", "exec")
    except (SyntaxError, ValueError):
        # newer syntax than radpatch's Python: any mention of the name refuses
        return "outside the function" if re.search(rf"\b{re.escape(name)}\b", text) else None
    tables = [top]
    for part in qualname.split("."):
        inner = [c for t in tables for c in t.get_children() if c.get_name() == part]
        if not inner:
            break  # `Class.prop.setter`: every `prop` is checked
        tables = inner
    for table in tables:
        if table is top:
            continue
        where = _free_read(table, name)
        if where is None:
            continue
        if where == "free":
            return "an enclosing function"
        if name in top.get_identifiers():
            sym = top.lookup(name)
            if sym.is_assigned() or sym.is_imported() or sym.is_namespace() or sym.is_global():
                return "the module"
        if hasattr(builtins, name):
            return "the builtins"
        if _declared_global(top, name):
            return "the module"
    return None


def _free_read(table: symtable.SymbolTable, name: str) -> str | None:
    """Returns "free" or "global" when `table` or a scope nested in it reads `name` without binding it."""
    if name in table.get_identifiers():
        sym = table.lookup(name)
        if sym.is_free() and sym.is_referenced():
            return "free"
        if sym.is_global() and sym.is_referenced():
            return "global"
        if sym.is_local() or sym.is_parameter():
            return None
    for child in table.get_children():
        found = _free_read(child, name)
        if found is not None:
            return found
    return None


def _declared_global(table: symtable.SymbolTable, name: str) -> bool:
    """A `global name` in some function of the module binds it at module level."""
    for child in table.get_children():
        if name in child.get_identifiers() and child.lookup(name).is_declared_global():
            return True
        if _declared_global(child, name):
            return True
    return False

"""add_element / remove_element: one element of a set, list or tuple display bound to a name, as its
own rewrite.

`NAME = {...}`, `NAME = [...]` or `NAME = (...)` (or `NAME: T = ...`) bound once in its scope (a
module, a class or a function body, at any depth of its blocks; what binds a name, a `for` target,
`del`, `:=`, an assignment in a `global` function..., is rewrite.name_bindings' rule, which an
annotation without a value is not): `add_element` adds `element` as
the display's last element, or with `after` right after the element of that value, or with `before`
right before it (the display's new first element); `remove_element` takes it away (where `after`/
`before` says it was, when it is not the last one: the inverse puts it back there). Elements are
AST-compared, so another element added upstream (a name in `__all__`, a field in a set of the
fields a hash ignores, a choice in a list of choices) leaves the rewrite applying. An element there
already is refused as set_item refuses a key there already. The display's layout is kept: one
element per line with a trailing comma stays so, a comment on the last element's line stays on it.

Instead of `name`, the display can be an argument of a call (`parser.add_argument("--x",
choices=["a", "b"])`): `call` names the callee as set_keyword does, `keyword` the keyword argument
holding the display (or `argument` its position among the positional ones, from 1), and `within`/
`occurrence` tell calls of one callee apart (rewrite.ops.common.call_display).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.call_address import PICK_FIELDS, call_fields, check, literal_key, name_field, named, part, said
from radpatch.registry.model import SCOPE, Fail, Field, Occurrence, Operation
from radpatch.registry.touch import Touch, norm, place_of
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    from collections.abc import Callable

    import libcst as cst

    from radpatch.rewrite.matching import (
        Ambiguous,
        Clash,
        MatchFailure,
        NotFound,
        NotUndoable,
        Shown,
        replace_on_path,
        shown_line,
    )
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.bound_literal import bound_literal
    from radpatch.rewrite.ops.common.call_display import call_display
    from radpatch.rewrite.ops.common.display_elements import (
        DISPLAYS,
        Display,
        elements_of,
        placed,
        refuse_elsewhere,
        shown,
        without,
    )

_SHAPE = "{...}`, `[...]` or `(...)` (a set, list or tuple display)"


@dataclass(frozen=True)
class SetElement(Operation):
    """Add `element` to the set, list or tuple display bound to `name` in `scope`, or passed as an
    argument of a call to `call` (as its last element, or with `after` right after, with `before`
    right before, the element of that value), or take it away (`remove_element`)."""

    scope: str
    name: str | None
    element: str
    after: str | None = None
    before: str | None = None
    remove: bool = False
    call: str | None = None
    keyword: str | None = None
    argument: int | None = None
    within: str | None = None
    occurrence: Occurrence = None

    KEY: ClassVar[str] = "add_element"  # and remove_element (keys())
    PROVES_LATER: ClassVar[bool] = True
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("name", "call"),)
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        name_field("display (`NAME = {...}`, `[...]`, `(...)`)"),
        *call_fields("display"),
        Field("element", "expression", "the element (AST-compared: quotes and layout do not matter)"),
        Field(
            "after",
            "expression",
            "optional: the element the new one follows (AST-compared); without it the element is added as the "
            "display's last (for remove_element: where it was, when it is not the last)",
            required=False,
        ),
        Field(
            "before",
            "expression",
            "optional, instead of `after`: the element the new one precedes (AST-compared), such as the first",
            required=False,
        ),
        *PICK_FIELDS,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: CacheConfig.compute_hash\nname: ignored_factors\nelement: '\"enable_deferred_release\"'\n"
        "after: '\"kv_sharing_fast_prefill\"'"
    )

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return ("add_element", "remove_element")

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        if values.get("after") is not None and values.get("before") is not None:
            raise fail("before", "give `after:` or `before:`, not both")
        check(values, fail, "display")
        return cls(**values, remove=key == "remove_element")  # type: ignore[arg-type]

    def takes_away(self) -> bool:
        return self.remove

    def describe(self) -> str:
        where = "" if self.scope == "<module>" else f" in {self.scope}"
        at = "" if self.after is None else f" after {self.after}"
        at = at if self.before is None else f" before {self.before}"
        if self.remove:
            return f"take {self.element} from {self.display_said()}{where}"
        return f"add {self.element} to {self.display_said()}{at}{where}"

    def display_said(self) -> str:
        return said(self)

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The one element of the display (in the assignment of `name`, which a `replace` may take
        whole), and for a new one the place it goes: two going to one place make the order."""
        name = literal_key(self)
        says = f"element {self.element} of `{self.display_said()}`"
        element = Touch(
            "node",
            self.scope,
            f"element {name}[{norm(self.element)}]",
            part=part(self),
            kind="display element",
            says=says,
            inside=f"constant {name}" if self.name is not None else "",
        )
        if self.remove:
            return (element,)
        place = place_of(self.scope, name, self.element, self.after, self.before, named(self), element=True)
        return (element, place)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=False))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=True))


def _edit(module: cst.Module, op: SetElement, offset: int, undo: bool) -> cst.CSTNode:
    key = "remove_element" if op.remove else "add_element"
    if op.name is not None:
        edit = None if undo else (op.element, "remove" if op.remove else "add")
        path = bound_literal(module, op.scope, op.name, offset, DISPLAYS, _SHAPE, key, edit, _edited(module, op))
    else:
        path = call_display(module, op, offset, DISPLAYS, _SHAPE, key)
    d = path[-1]
    assert isinstance(d, DISPLAYS)
    at = shown_line(module, path[-3], offset)
    what = Shown(lambda: f"{op.display_said()} (line {at})")
    hits = elements_of(module, d, op.element)
    if len(hits) > 1:
        raise Ambiguous(
            f"{what} holds the element {op.element} {len(hits)} times", "change the display with a `replace` rewrite"
        )
    if op.remove == undo:  # an element added, or a removed one put back
        if hits:
            if undo:
                raise NotUndoable(f"{what} holds the element {op.element} (the rewrite took it away)")
            raise Clash(
                f"{what} holds the element {op.element} already",
                "check the version range (this version may carry the element: declare it `obsolete:` if so)",
            )
        return replace_on_path(path, placed(module, d, op, what))
    if not hits:
        raise (NotUndoable if undo else NotFound)(f"{what} has no element {op.element}{_its_elements(module, d, op)}")
    if not undo:
        refuse_elsewhere(module, d, op, hits[0], what)
    if isinstance(d, cst.Set) and len(d.elements) == 1:
        raise MatchFailure(
            f"{what}: taking {op.element} away leaves no element, and `{{}}` is a dict, not a set",
            "write the change as a `replace` of the assignment (`set()`)",
        )
    return replace_on_path(path, without(d, hits[0]))


def _edited(module: cst.Module, op: SetElement) -> Callable[[cst.BaseExpression], cst.BaseExpression]:
    """The display as the edit leaves it, for bound_literal's replay of a list's later changes."""

    def edit(d: cst.BaseExpression) -> cst.BaseExpression:
        assert isinstance(d, DISPLAYS)
        return without(d, elements_of(module, d, op.element)[0]) if op.remove else placed(module, d, op, "")

    return edit


def _its_elements(module: cst.Module, d: Display, op: SetElement) -> str:
    """The elements closest to `op.element` as the code writes them (all, when there are few), for
    the message of an element the display lacks: a typo in `element:` reads as one."""
    said = [shown(module, d, i) for i, e in enumerate(d.elements) if isinstance(e, cst.Element)]
    close = said if len(said) <= 3 else difflib.get_close_matches(op.element.strip(), said, n=3, cutoff=0.4)
    return f"; closest: {', '.join(close)}" if close else ("; it is empty" if not said else "")

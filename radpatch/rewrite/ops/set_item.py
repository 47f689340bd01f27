"""set_item: one entry of a dict literal bound to a name, as its own rewrite.

`NAME = {...}` (or `NAME: T = {...}`) in a module or class body: without `from`, the entry
`key: value` is added as the literal's last item, or with `after` right after the entry of that
key (an entry put in the middle of an alphabetical table; refused if the key is there already), or
with `before` right before the entry of that key (the literal's new first entry); with
`from`, the entry `key: from` changes to `key: value`, or without `value` is taken away (where
`after`/`before` says it was, when it is not the last item: the inverse puts it back there). The
key is AST-compared, so another entry added upstream (the common case: vLLM's model registry
gains architectures every release) leaves the rewrite applying. The literal's layout is kept: one
item per line with a trailing comma stays so, a comment on the last item's line stays on it. The
inverse removes the added entry, puts `from` back or the removed entry.

Instead of `name`, the dict literal can be an argument of a call (`register(archs={...})`), in any
scope: `call`, `keyword` or `argument`, `within`/`occurrence`, as add_element says it
(registry.call_address).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.call_address import PICK_FIELDS, call_fields, check, literal_key, name_field, named, part, said
from radpatch.registry.code import expression_text
from radpatch.registry.model import SCOPE, Fail, Field, Occurrence, Operation
from radpatch.registry.touch import Touch, norm, place_of
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import (
        Ambiguous,
        Clash,
        MatchFailure,
        NotFound,
        NotUndoable,
        Shown,
        code_of,
        replace_on_path,
        shown_line,
    )
    from radpatch.rewrite.merge import enclosed, merge
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.bound_literal import bound_literal
    from radpatch.rewrite.ops.common.call_display import call_display
    from radpatch.rewrite.ops.common.dict_items import items_of, placed, refuse_elsewhere, removed
    from radpatch.rewrite.patterns import expr_key
    from radpatch.rewrite.tree import Path_


@dataclass(frozen=True)
class SetItem(Operation):
    """Add one entry `key: value` to the dict literal bound to `name` in `scope` (as its last item, or
    with `after` right after, with `before` right before, the entry of that key), or, with `from`, change
    the entry `key: from` to `key: value`, or without `value` take it away."""

    scope: str
    name: str | None
    key: str
    value: str | None = None
    from_: str | None = None
    after: str | None = None
    before: str | None = None
    call: str | None = None
    keyword: str | None = None
    argument: int | None = None
    within: str | None = None
    occurrence: Occurrence = None

    KEY: ClassVar[str] = "set_item"
    PROVES_LATER: ClassVar[bool] = True
    ANY_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("value", "from"),)
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("name", "call"),)
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        name_field("dict literal (`NAME = {...}` or `NAME: T = {...}`)"),
        *call_fields("dict literal"),
        Field("key", "expression", "the entry's key (AST-compared: quotes and layout do not matter)"),
        Field(
            "value",
            "expression",
            "the entry's new value; without it the entry `key: from` is taken away (`after:`/`before:` then say "
            "where it was, when it is not the last item)",
            required=False,
        ),
        Field(
            "from",
            "expression",
            "optional: the entry's value now (AST-compared), which changes; without it the key must be new, "
            "and the entry is added as the literal's last item (or `after:` a key)",
            required=False,
        ),
        Field(
            "after",
            "expression",
            "optional, with a new key: the key of the entry the new one follows (AST-compared); without it the "
            "new entry is added as the literal's last item",
            required=False,
        ),
        Field(
            "before",
            "expression",
            "optional, with a new key instead of `after`: the key of the entry the new one precedes (AST-compared), "
            "such as the literal's first",
            required=False,
        ),
        *PICK_FIELDS,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: <module>\nname: _TEXT_GENERATION_MODELS\nkey: '\"MyModelForCausalLM\"'\n"
        'value: \'("my_model", "MyModelForCausalLM")\''
    )

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        check(values, fail, "dict literal")
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        where = "" if self.scope == "<module>" else f" in {self.scope}"
        if self.from_ is None:
            at = "" if self.after is None else f" after {self.after}"
            at = at if self.before is None else f" before {self.before}"
            return f"add {self.key}: {self.value} to {said(self)}{at}{where}"
        if self.value is None:
            return f"take {self.key}: {self.from_} from {said(self)}{where}"
        if self.name is None:
            return f"set {self.key}: {self.value} (was {self.from_}) in {said(self)}{where}"
        return f"set {self.name}[{self.key}] = {self.value} (was {self.from_}){where}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The one entry of the literal: a dict entry, in the assignment of `name` (which a `replace`
        may take whole, or a `set_constant` change: `inside` its touch)."""
        name = literal_key(self)
        key = f"item {name}[{norm(self.key)}]"
        says = f"dict entry {self.key} of `{said(self)}`"
        inside = f"constant {name}" if self.name is not None else ""
        entry = Touch("node", self.scope, key, part=part(self), kind="dict entry", says=says, inside=inside)
        if self.from_ is not None:
            return (entry,)
        # a new entry also goes somewhere: two going to one place make the dict's key order (prove.overlaps.touching)
        place = place_of(self.scope, name, self.key, self.after, self.before, named(self))
        return (entry, place)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=False))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _edit(m, self, offset, undo=True))


def _literal(module: cst.Module, op: SetItem, offset: int, undo: bool) -> Path_:
    """The path to the dict literal `name` is bound to, bound once in the scope (at any depth of its
    blocks) and, to apply, not changed later (rewrite.later_changes), or passed to the call `call:` names."""
    if op.name is None:
        return call_display(module, op, offset, (cst.Dict,), "{...}` (a dict literal)", "set_item")
    mode = "add" if op.from_ is None else "remove" if op.value is None else "change"
    edit = None if undo else (op.key, mode)
    return bound_literal(module, op.scope, op.name, offset, (cst.Dict,), "{...}` (a dict literal)", "set_item", edit)


def _shown(module: cst.Module, e: cst.BaseDictElement) -> str:
    assert isinstance(e, cst.DictElement)
    return code_of(module, e.value).strip()


def _edit(module: cst.Module, op: SetItem, offset: int, undo: bool) -> cst.CSTNode:
    path = _literal(module, op, offset, undo)
    d = path[-1]
    assert isinstance(d, cst.Dict)
    at = shown_line(module, path[-3], offset)
    hits = items_of(module, d, op.key)
    what = Shown(lambda: f"{said(op)} (line {at})")
    if len(hits) > 1:
        raise Ambiguous(f"{what} writes the key {op.key} {len(hits)} times", "change the dict with a `replace` rewrite")
    place = "after" if op.after is not None else "before"
    if op.from_ is not None and op.value is not None and (op.after is not None or op.before is not None):
        raise MatchFailure(
            f"set_item of {op.key} in {said(op)} gives both `from:` and `{place}:`",
            "`after:` and `before:` place a new key, or say where a removed one was; to change the value of one "
            "there, leave them out",
        )
    if op.after is not None and op.before is not None:
        raise MatchFailure(f"set_item of {op.key} in {said(op)} gives both `after:` and `before:`", "give one of them")
    failure = NotUndoable if undo else NotFound
    if op.from_ is None and op.value is None:
        raise MatchFailure(
            f"set_item of {op.key} in {said(op)} gives neither `value:` nor `from:`", "give one, or both"
        )
    if (op.from_ is None) != undo and (op.value is None) == undo:  # a new entry, or a removed one put back
        if hits:
            if undo:
                raise NotUndoable(f"{what} has the key {op.key} (the rewrite took it away)")
            raise Clash(
                f"{what} has the key {op.key} already (value {_shown(module, d.elements[hits[0]])})",
                "to change its value, give `from:` with the value it has now; else check the version range "
                "(this version may carry the entry: declare it `obsolete:` if so)",
            )
        value = op.from_ if undo else op.value
        assert value is not None
        return replace_on_path(path, placed(module, d, op, value, what))
    if not hits:
        raise failure(f"{what} has no key {op.key}", _key_hint(module, d, op.key) if not undo else "")
    old, new = (op.value, op.from_) if undo else (op.from_, op.value)
    i = hits[0]
    element = d.elements[i]
    assert isinstance(element, cst.DictElement)
    if old is not None and expr_key(code_of(module, element.value)) != expr_key(old):
        raise failure(
            f"{what}: the key {op.key} has the value {_shown(module, element)}, not {old}",
            "" if undo else "fix `from:` to the value the code has now (AST-compared)",
        )
    if new is None:  # an entry taken away, or an added one undone
        if not undo:
            refuse_elsewhere(module, d, op, i, what)
        return replace_on_path(path, removed(d, i))
    merged = merge(
        element.value,
        enclosed(cst.parse_expression(expression_text(old or ""))),
        enclosed(cst.parse_expression(expression_text(new))),
    )
    assert isinstance(merged, cst.BaseExpression)
    elements = [*d.elements[:i], element.with_changes(value=merged), *d.elements[i + 1 :]]
    return replace_on_path(path, d.with_changes(elements=elements))


def _key_hint(module: cst.Module, d: cst.Dict, key: str) -> str:
    """For a key the dict lacks: a key is a Python expression, so `key: timeout` is the name timeout,
    not the string the dict holds; the spelling that matches when the dict has it as a string."""
    keys = [code_of(module, e.key).strip() for e in d.elements if isinstance(e, cst.DictElement)]
    quoted = [k for k in keys if k[:1] in "'\"" and k[1:-1] == key.strip()]
    if quoted:
        return f"`key:` is a Python expression: write key: '{quoted[0]}' (quoted in YAML) for the string key"
    return ""

"""A literal passed to a call, as add_element/remove_element and set_item address it instead of a
name bound to it: the keys (`call:`, `keyword:` or `argument:`, with the shared `within:` and
`occurrence:`), the check across them, and how messages and touches name the literal. The edit
finds it in rewrite.ops.common.call_display."""

from __future__ import annotations

from typing import Protocol

from radpatch.registry.operation_spec import OCCURRENCE, WITHIN, Fail, Field, Occurrence
from radpatch.registry.touch import norm


class CallAddress(Protocol):
    """The keys that address a literal passed to a call (the registry's and the edit's view)."""

    @property
    def call(self) -> str | None: ...

    @property
    def keyword(self) -> str | None: ...

    @property
    def argument(self) -> int | None: ...

    @property
    def within(self) -> str | None: ...

    @property
    def occurrence(self) -> Occurrence: ...


class Addressed(CallAddress, Protocol):
    @property
    def name(self) -> str | None: ...


def name_field(what: str) -> Field:
    return Field("name", "identifier", f"the variable bound to the {what}; or, instead, `call:`", required=False)


def call_fields(what: str) -> tuple[Field, ...]:
    """`call`, `keyword`, `argument` (after `name`), for the literal `what` (`display`, `dict literal`)."""
    return (
        Field(
            "call",
            "expression",
            f"instead of `name`, for a {what} passed to a call: the callee as the code writes it, AST-compared, as "
            "set_keyword names it (`parser.add_argument`)",
            required=False,
        ),
        Field(
            "keyword", "identifier", f"with `call`: the keyword argument holding the {what} (`choices`)", required=False
        ),
        Field(
            "argument",
            "index",
            f"with `call`, instead of `keyword`: the positional argument holding the {what}, counted from 1",
            required=False,
        ),
    )


PICK_FIELDS = (WITHIN, OCCURRENCE)  # with `call`: which call of the callee


def check(values: dict[str, object], fail: Fail, what: str) -> None:
    """`keyword:` or `argument:` with `call:`; none of them, nor `within:`/`occurrence:`, with `name:`.
    Sets `name` to None where `call:` is given."""
    by_call = values.get("call") is not None
    if by_call and (values.get("keyword") is None) == (values.get("argument") is None):
        raise fail(
            "call",
            f"with `call:`, give one of `keyword:` (the keyword argument holding the {what}) or `argument:` "
            "(its position)",
        )
    for k in ("keyword", "argument", "within", "occurrence"):
        if not by_call and values.get(k) is not None:
            raise fail(
                k, f"`{k}:` goes with `call:` (a {what} passed to a call); a {what} bound to `name:` is bound once"
            )
    values.setdefault("name", None)


def said(op: Addressed) -> str:
    """`NAME`, or `choices= of a call to parser.add_argument (occurrence 2)`."""
    if op.name is not None:
        return op.name
    arg = f"{op.keyword}=" if op.keyword is not None else f"positional argument {op.argument}"
    nth = "" if op.occurrence is None else f" (occurrence {op.occurrence})"
    return f"{arg} of a call to {op.call}{nth}"


def named(op: Addressed) -> str:
    """The literal as a message names it, in backticks: `NAME`, or `parser.add_argument(choices=...)`
    (occurrence 2)."""
    if op.name is not None:
        return f"`{op.name}`"
    arg = f"{op.keyword}=..." if op.keyword is not None else f"<argument {op.argument}>"
    nth = "" if op.occurrence is None else f" (occurrence {op.occurrence})"
    return f"`{op.call}({arg})`{nth}"


def literal_key(op: Addressed) -> str:
    """The literal's name in the touches: the variable, or the call's argument as picked."""
    if op.name is not None:
        return op.name
    arg = op.keyword if op.keyword is not None else f"#{op.argument}"
    pick = "" if op.occurrence is None and op.within is None else f"@{op.within or ''}#{op.occurrence or ''}"
    return f"{norm(op.call or '')}({arg}=){pick}"


def part(op: Addressed) -> tuple[str, ...]:
    """Where a `find` holds the literal (prove.overlaps.touching.holds): the assignment to the name;
    a call's argument is no part it reads."""
    return ("constant", op.name) if op.name is not None else ("argument", op.call or "", literal_key(op))

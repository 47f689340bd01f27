"""insert_definitions: a payload's top-level defs, classes and constants go next to a named
top-level definition of the target, or into a class (next to one of its methods, or at the end of
its body, indented to it), as whole lines located with `ast` (no libcst parse of the target); its
imports go after the target's imports (ops/common.py), unless the target has them.
The edit is ops/common/definitions_edit.py (into a class: ops/common/class_body.py); the payload as
it is placed, and what both kinds use to place an item, ops/common/payload_items.py.

Nothing of the payload is dropped silently: the loader refuses statements that cannot move (a
call, an `if`); the payload's docstring describes the payload; a `from __future__` import must
be in the target already. A name the target binds already (def, class, import, assignment) is
refused: the payload would take it over; in a class, a name its body binds (a method, a class
attribute) likewise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, cast

from radpatch.registry.model import Fail, Field, Operation, PayloadFile
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source
from radpatch.rewrite.top_bindings import bound_names, payload_statement

if TYPE_CHECKING:
    from radpatch.rewrite.ops.common.definitions_edit import forward_definitions, inverse_definitions


@dataclass(frozen=True)
class InsertDefinitions(Operation):
    """Insert definitions (and the imports and constants they need) from a payload file before or
    after a named top-level definition, before or after a method of a class (`Class.method`), or at
    the end of a class (`into: Class`); in a class they are indented into its body."""

    payload: Path
    payload_source: bytes
    names: tuple[str, ...]
    anchor: str
    side: Literal["before", "after", "into"]

    KEY: ClassVar[str] = "insert_definitions"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("payload", "payload", "path of a Python file, relative to the registry file"),
        Field(
            "names", "names", "optional: which definitions and constants (default: all, in file order)", required=False
        ),
        Field(
            "before",
            "qualname",
            "a top-level def/class of the target, or a method of a class (`Class.method`): the payload goes into "
            "that class; give one of `before`, `after`, `into`",
            required=False,
        ),
        Field("after", "qualname", "like `before`, after it", required=False),
        Field(
            "into",
            "qualname",
            "a class (`Class`, `Outer.Inner`): the payload goes at the end of its body, as methods and class "
            "attributes",
            required=False,
        ),
    )
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("before", "after", "into"),)
    EXAMPLE: ClassVar[str] = (
        "payload: ../patches/kv_group_size/payload.py\nbefore: _get_kv_cache_groups_uniform_page_size"
    )

    @classmethod
    def read(cls, key: str, value: object, fail: Callable[[str], Exception]) -> object:
        """The payload holds only what can move into another module: defs, classes, imports and
        NAME = value constants, each name once. Returns (file, bytes, the names it defines)."""
        if key != "payload":
            return value
        p = cast(PayloadFile, value)
        defs: list[str] = []
        for i, stmt in enumerate(p.tree.body):
            kind = payload_statement(stmt, first=i == 0)
            if kind is None:
                raise fail(
                    f"payload {p.path}:{stmt.lineno}: a top-level {type(stmt).__name__} statement cannot be "
                    "inserted into another module; payloads hold defs, classes, imports and NAME = value constants"
                )
            for name in bound_names(stmt) if kind in ("def", "constant") else ():
                if name in defs:
                    raise fail(f"payload {p.path}:{stmt.lineno}: {name!r} is defined twice; keep one")
                defs.append(name)
        return p.path, p.data, defs

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        side: Literal["before", "after", "into"] = next(k for k in ("before", "after", "into") if k in values)
        if values[side] == "<module>":
            raise fail(side, "name a definition of the target (`f`, `Class`, `Class.method`), not `<module>`")
        file, data, defs = cast("tuple[Path, bytes, list[str]]", values["payload"])
        names = cast("tuple[str, ...] | None", values.get("names"))
        if names is None:
            if not defs:
                raise fail("payload", f"payload {file.name} has no top-level definition or constant to insert")
            names = tuple(defs)
        missing = [n for n in names if n not in defs]
        if missing:
            raise fail("names", f"payload {file.name} defines no top-level {', '.join(map(repr, missing))}")
        return cls(file, data, names, str(values[side]), side)

    def describe(self) -> str:
        return f"insert {', '.join(self.names)} from {self.payload.name} {self.side} {self.anchor}"

    @property
    def in_class(self) -> bool:
        """The payload goes into a class body (`into:`, or next to a `Class.method`)."""
        return self.side == "into" or "." in self.anchor

    def scope_name(self) -> str:
        return self.anchor

    def touches(self) -> tuple[Touch, ...]:
        """The anchor: its side of the top-level definition (or into the class) it inserts at; at
        module level, also the names it binds there (`names`: an `add_import` of one meets it)."""
        names = () if self.in_class else tuple(self.names)
        return (Touch("anchor", "<module>", f"definitions {self.side} {self.anchor}", names=names),)

    def may_be_present(self, text: str) -> bool:
        return all(name in text for name in self.names)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return forward_definitions(src, self)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return inverse_definitions(src, self)

"""What every operation's spec is: `Operation`, the base each `rewrite/ops/<name>.py` subclasses, and
its keys (`Field`, the shared `WITHIN`, `OCCURRENCE` and `SCOPE`); the loader's `Fail`, a payload file
as read, and `code_key`, how patterns are compared. `registry.model` re-exports each name: the typed
model is imported from there."""

from __future__ import annotations

import ast
import keyword
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from radpatch.registry.touch import Touch

if TYPE_CHECKING:
    from radpatch.rewrite.source import Source


@dataclass(frozen=True)
class Field:
    """One YAML key of an operation: the reader kind decides validation and its JSON Schema.

    An enum-valued key is kind "choice" and names its values in `choices` (e.g.
    `Field("marker", "choice", "...", choices=("pass", "comment"))`): the loader's one choice reader
    checks them and the JSON Schema renders them as an `enum`, so such a key needs no reader or
    schema fragment of its own."""

    key: str
    kind: str  # a reader in loader.field_kinds.READERS, or "payload", or "choice"; a fragment in json_schema.KINDS
    doc: str
    required: bool = True
    attr: str = ""  # the spec's attribute, when it is not the key (default: `with` -> `with_`)
    choices: tuple[str, ...] = ()  # kind "choice": the values allowed, in the order messages list them

    def __post_init__(self) -> None:
        if (self.kind == "choice") != bool(self.choices):
            raise ValueError(f"field {self.key!r}: a kind 'choice' field names its choices, and only it does")

    @property
    def name(self) -> str:
        return self.attr or (self.key + "_" if keyword.iskeyword(self.key) else self.key)


WITHIN = Field(
    "within",
    "within",
    "optional: only matches inside an enclosing statement like this one "
    "(a compound statement's header such as `for x in y:`, or a whole statement), "
    "or in the clause a clause's header names (`elif x:`, `else:`, `except E:`, `finally:`, `case P:`, a `try:` body)",
    required=False,
)
OCCURRENCE = Field(
    "occurrence",
    "occurrence",
    "optional: the n-th match instead of requiring exactly one, counted from 1 in the installed file's source "
    "order (as the file is before the entry's rewrites run: `occurrence: 2` stays the installed second match "
    "after a rewrite above it changed the first); `all`: every match (at least one)",
    required=False,
)
SCOPE = Field(
    "scope",
    "qualname",
    "where to look: `<module>`, `f`, `Class`, `Class.method`, `Outer.Inner`, a property's setter "
    "`Class.prop.setter`; an `@overload`ed function's scope is its implementation",
)


@dataclass(frozen=True)
class PayloadFile:
    """A Python file beside the entry (a `payload` key), read and parsed by the loader."""

    path: Path  # resolved
    data: bytes
    tree: ast.Module


Occurrence = int | Literal["all"] | None  # `occurrence:`: the n-th match, every match, or the one match


def code_key(code: str) -> str:
    """The code's syntax tree (layout, comments and quotes play no part), for comparing patterns."""
    return ast.dump(ast.parse(textwrap.dedent(code).strip()))


Fail = Callable[..., Exception]  # fail(key, message, at=None): report at the YAML node of `at or key`


class Operation:
    """What every operation's spec declares and does; radpatch/rewrite/ops/<name>.py subclasses it
    once per YAML key family, as a frozen dataclass.

    Declared (class level): KEY (its YAML key), FIELDS (its keys, for the loader, the JSON Schema
    and the reference), EXAMPLE, ONE_OF (key groups of which exactly one is given), ANY_OF (key groups
    of which at least one is given) and a docstring
    saying what it does. Done: forward and inverse (libcst loads only when they run), describe,
    and the hooks the pipeline asks instead of testing the operation's type."""

    KEY: ClassVar[str]
    FIELDS: ClassVar[tuple[Field, ...]]
    EXAMPLE: ClassVar[str]
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = ()
    ANY_OF: ClassVar[tuple[tuple[str, ...], ...]] = ()
    # Applied to code that already holds its result it succeeds again, adding it a second time
    # (an insert: its anchor stays). apply then checks it on its own (prove.form.refuse_if_present).
    REPEATABLE: ClassVar[bool] = False
    # Its edit changes the code it matched (a replace, a delete), so that code is no longer a match of
    # its pattern: a later rewrite's `occurrence:` on the same pattern counts it still (rewrite.runner).
    CONSUMES: ClassVar[bool] = False
    # Its module does not exist before it: the rewrite creates the file (create_module). Its state
    # before is no file at all, which the rewrites and proofs read as an empty module, locate does not
    # look for, and the state model records as absence (state.record.ABSENT; docs/state.md); revert
    # deletes the file. Such a rewrite is the only one of its module in its entry (the loader checks).
    CREATES: ClassVar[bool] = False
    # Its forward proves that no later code of the module undoes its edit (rewrite.later_changes), on the
    # file as the rewrites before it leave it: prove.entry_order runs it again after the entry's others.
    PROVES_LATER: ClassVar[bool] = False

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The YAML keys that load into this spec (insert_before and insert_after share one)."""
        return (cls.KEY,)

    @classmethod
    def read(cls, key: str, value: object, fail: Callable[[str], Exception]) -> object:
        """Check one key's value beyond what its reader kind checks; `raise fail(message)` reports
        at that key. Returns the value the spec holds."""
        return value

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        """The spec from its keys' values (by attribute name); checks across keys go here."""
        return cls(**values)

    def describe(self) -> str:
        raise NotImplementedError

    def forward(self, src: Source) -> Source:
        """The module with the rewrite applied; a MatchFailure (with a hint) unless its anchor is found."""
        raise NotImplementedError

    def inverse(self, src: Source) -> Source:
        """The module with the rewrite undone: AST-equal to the code before (the exact bytes come
        from the copy radpatch keeps); NotUndoable unless the result is there as forward writes it."""
        raise NotImplementedError

    def creates_package(self) -> bool:
        """A rewrite that CREATES its module makes it a package's `__init__.py` even when the module
        is named by its import name (`pkg.sub`): locate then resolves the name to `pkg/sub/__init__.py`."""
        return False

    def scope_name(self) -> str:
        """The definition the rewrite needs (`<module>` for module-level ones): when a `modules:`
        name's module moved between releases, locate picks the candidate that defines it."""
        return "<module>"

    def match_key(self) -> tuple[object, ...] | None:
        """What the rewrite matches (scope, pattern, `within`), equal for two rewrites that match the
        same code; None for an operation without `occurrence:`. rewrite.runner counts a rewrite's
        `occurrence:` on the installed file by it."""
        return None

    def at_imports(self) -> str | None:
        """Where the rewrite inserts when the registry anchors it nowhere: "import" for a line that
        goes after the module's imports and commutes with another such import (`add_import`), "line"
        for one that goes there but does not commute (`set_constant` of a new name); None for a
        rewrite anchored in the code. prove.overlaps.gaps asks it for the one-gap overlaps."""
        return None

    def present_hint(self) -> str:
        """Added to apply's refusal when the installed file already carries what the rewrite adds
        (prove.form.refuse_if_present): how to tell the rewrite's result from code already there."""
        return ""

    def takes_away(self) -> bool:
        """Its result is the absence of what it names (remove_element, remove_decorator): code that
        never held it reads as patched, so prove.form.refuse_if_present says what is missing there
        rather than that the release carries the change."""
        return False

    def touches(self) -> tuple[Touch, ...]:
        """What the rewrite changes, for prove.overlaps.pairs (registry.touch): the node it changes or
        the anchor it inserts at, in its scope; () for an edit that stacks with anything. The default,
        for an operation that does not say: it may change anything in its module, so it overlaps every
        other rewrite there (apply refuses two such entries unless `requires:` orders them)."""
        return (Touch("any", self.scope_name(), self.KEY),)

    def may_be_present(self, text: str) -> bool:
        """False only when the file's text cannot hold what the operation adds: apply's cheap test
        before the structural one (prove.form.refuse_if_present)."""
        return True

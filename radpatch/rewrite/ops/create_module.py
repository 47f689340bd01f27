"""create_module: a module that does not exist in the install, its whole content a Python file
beside the entry (`content:`, relative to the registry file, like `insert_definitions`' payload).

The module's state before the rewrite is no file at all. In the rewrite pipeline that absence
reads as an empty module: forward turns an empty module into the content and refuses anything
else (the file exists already), inverse turns a module whose code is the content (compared as
syntax trees) back into the empty one. So every proof step runs on the pair as on any other:
the new module compiles for the target interpreter, uses no undefined name, and undoes. Which
file that is and what radpatch writes or deletes (the file, directories it makes, bytecode) is
the engine's, told by `CREATES` (docs/writing-patches.md, "A new module").
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from radpatch.errors import Undecodable
from radpatch.registry.model import Field, Operation, PayloadFile
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source, decode

if TYPE_CHECKING:
    from radpatch.rewrite.matching import MatchFailure, NotUndoable


@dataclass(frozen=True)
class CreateModule(Operation):
    """Create the module (it must not exist yet) with the content of a Python file beside the entry.
    A module `pkg.sub.mod` is the file `pkg/sub/mod.py` (directories it needs are created); a new
    package `pkg.sub` is `pkg/sub/__init__.py` when it is named `pkg.sub.__init__` or its content file
    is named `__init__.py`. It is the only rewrite of its module in the entry;
    a later entry that `requires:` this one may rewrite the module. Revert deletes it, its bytecode
    and the directories radpatch created for it."""

    content: Path
    data: bytes

    KEY: ClassVar[str] = "create_module"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field(
            "content",
            "payload",
            "path of the new module's Python file (UTF-8 or its PEP 263 coding; written byte for byte), "
            "relative to the registry file",
        ),
    )
    EXAMPLE: ClassVar[str] = "content: ../patches/kv_group_size/payload.py  # becomes the new module, whole"
    CREATES: ClassVar[bool] = True

    @classmethod
    def read(cls, key: str, value: object, fail: Callable[[str], Exception]) -> object:
        p = cast(PayloadFile, value)
        if p.data.startswith(codecs.BOM_UTF8):
            raise fail(f"content {p.path} starts with a byte order mark; save it as UTF-8 without one")
        try:
            decode(p.data)
        except Undecodable as exc:
            raise fail(
                f"content {p.path} is not text in the encoding Python reads it in ({exc}): UTF-8, or what its "
                "coding declaration (PEP 263) names; save it so"
            )
        return p.path, p.data

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Callable[..., Exception]) -> Operation:
        path, data = cast("tuple[Path, bytes]", values["content"])
        return cls(path, data)

    def describe(self) -> str:
        return f"create the module from {self.content.name}"

    def touches(self) -> tuple[Touch, ...]:
        """The module itself: another entry creating it overlaps (one that `requires:` this one rewrites it after)."""
        return (Touch("node", "<module>", self.KEY),)

    def creates_package(self) -> bool:
        return self.content.name == "__init__.py"  # `pkg.sub` with content `.../sub/__init__.py`: a package

    def may_be_present(self, text: str) -> bool:
        return False  # a module that does not exist holds nothing; one that exists is refused by forward

    def forward(self, src: Source) -> Source:
        load(__name__)
        if src.lines:
            raise MatchFailure(
                "the module exists already (create_module creates a module the install does not have)",
                "if the installed release has this module, rewrite it instead of creating it, or limit the "
                "entry's `versions:` to the releases without it",
            )
        return Source.parse(decode(self.data)[0])  # written back in its declared encoding (runner.forward)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        import ast

        try:
            same = ast.dump(ast.parse(src.text)) == ast.dump(ast.parse(self.data))
        except (SyntaxError, ValueError):
            same = False
        if not same:
            raise NotUndoable(
                f"the module is not the one this entry creates from {self.content.name} (compared as syntax trees)",
            )
        return Source.parse("")

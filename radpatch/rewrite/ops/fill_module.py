"""fill_module: code for an installed module that holds no statement yet (an empty `__init__.py`,
or one of comments only), which no other operation can anchor on (they all stand next to a
statement). The code goes after what the file holds (its comments stay above it); the inverse takes
exactly that code off again, leaving the comments.

A module with a statement is refused: the code then has a statement to stand next to
(insert_before/insert_after, add_import), so an entry written for an empty module never lands in
a release that has filled it in.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch import source_lines
from radpatch.registry.model import Field, Operation, code_key
from radpatch.registry.touch import Touch, code_trees
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    from radpatch.rewrite.matching import NotUndoable
    from radpatch.rewrite.refused import Occupied


@dataclass(frozen=True)
class FillModule(Operation):
    """Write `code` into a module that has no statement (empty, or comments only): it goes after
    the comments. Revert takes it off, leaving the module as it was."""

    code: str

    KEY: ClassVar[str] = "fill_module"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("code", "code", "the module's statements (it has none before): imports, definitions, any code"),
    )
    EXAMPLE: ClassVar[str] = "code: |\n  from .kv_cache_utils import get_kv_cache_configs\n"

    def describe(self) -> str:
        return "write code into the module, which has no statement"

    def touches(self) -> tuple[Touch, ...]:
        """The module's whole code: another entry filling it overlaps (one that `requires:` this one
        rewrites what it wrote)."""
        return (Touch("node", "<module>", "statements of the module, which has none", writes=code_trees(self.code)),)

    def may_be_present(self, text: str) -> bool:
        return source_lines.every_line_in(self.code, text)

    def _lines(self, newline: str) -> list[str]:
        """The code as whole lines in the file's line ending."""
        code = textwrap.dedent(self.code).rstrip("\r\n")  # blank lines above the code stay: the diff's layout
        return [ln + newline for ln in source_lines.split(code)]

    def forward(self, src: Source) -> Source:
        load(__name__)
        if src.tops:
            raise Occupied(
                f"the module has a statement (line {src.tops[0].start + 1}): fill_module writes code into a module "
                "that has none",
                "anchor the code on one of its statements instead (insert_before/insert_after; add_import for an "
                "import), or limit the entry's `versions:` to the releases whose module is empty",
            )
        lines = list(src.lines)
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += src.newline
        return Source.parse("".join(lines + self._lines(src.newline)))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        if not src.tops or code_key(src.text) != code_key(self.code):  # both parse: a Source, a loaded key
            raise NotUndoable("the module's code is not the code this rewrite writes (compared as syntax trees)")
        first = src.tops[0].start
        lines = list(src.lines)
        # the code's own leading comment lines sit above its first statement: they go with it
        lead = [ln.strip() for ln in self._lines("\n")]
        own = lead[: next((i for i, ln in enumerate(lead) if ln and not ln.startswith("#")), len(lead))]
        while own and first > 0 and lines[first - 1].strip() == own[-1]:
            own.pop()
            first -= 1
        return Source.parse("".join(lines[:first]))

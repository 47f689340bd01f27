"""add_import: one import line after the module's imports, unless the module already imports
the same names from the same place of its own (then nothing changes). A line another entry's
add_import added is held by this one too (its mark counts the holders), so two independent entries
adding the same import apply in either order and each comes off leaving the other's import.
When the entry's own later rewrites use the name at import time above that line (a late import
below module-level code), the runner moves the line above that use (ops/common/import_lines.py:
imports_before_uses).

The line ends with `# radpatch: added import`, so the inverse removes exactly the line radpatch
added and never an import the module had of its own (ops/common/import_lines.py: insert_definitions
adds a payload's imports the same way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch, import_bindings
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    from radpatch.rewrite.ops.common.import_lines import add_import, remove_import


@dataclass(frozen=True)
class AddImport(Operation):
    """Add an import at module level after the module's imports; a no-op if the module has it of its
    own, one more holder of the line when radpatch added it for another rewrite."""

    statement: str

    KEY: ClassVar[str] = "add_import"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("import", "import", "one `import x` or `from x import y` statement", attr="statement"),
    )
    EXAMPLE: ClassVar[str] = "import: import os"

    def describe(self) -> str:
        return f"add `{self.statement.strip()}`"

    def at_imports(self) -> str | None:
        return "import"

    def touches(self) -> tuple[Touch, ...]:
        """The names it binds (registry.touch.import_bindings): another entry binding one of them to
        something else overlaps it; the same import added twice is one line held twice, and commutes."""
        return import_bindings(self.statement)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return add_import(src, self.statement)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return remove_import(src, self.statement)

"""Generated modules with code inside a block (`if TYPE_CHECKING:`, `try:`, a guard the proof cannot
decide): the tests of guarded definitions (tests/importing/test_guarded_definitions.py) and of
typing stubs, dead blocks and live definitions (tests/prove/) build them with these."""

from __future__ import annotations


def indent(text: str, by: str = "    ") -> str:
    """Each line of `text` that holds code indented by `by` (blank lines stay blank)."""
    return "".join(by + line if line.strip() else line for line in text.splitlines(keepends=True))


def in_block(opening: str, body: str, closing: str = "", by: str = "    ") -> str:
    """`opening` (ending in the block's header line), `body` indented by `by` into it, then `closing`
    (an `else:`/`except` branch, or nothing)."""
    return opening + indent(body, by) + closing

"""The note `radpatch import` (and capture) writes when a dict literal's change is not said as
`set_item` entries but as a replace of the whole literal: one line per literal, saying where (the
scope and the name), why (what set_item cannot say), and what was written instead, each once."""

from __future__ import annotations

import pytest

from radpatch.importing.rewrites import rewrites

TABLES = """\
import os

_MODELS = {
    "a": ("a", "A"),
    "z": ("z", "Z"),
}

_VLLM = {
    **_MODELS,
    "x": 1,
}
"""


@pytest.mark.parametrize(
    ("after", "why"),
    [
        (TABLES.replace("    **_MODELS,\n", ""), "a `**` item is removed"),  # an entry removed: set_item (kw38)
        (TABLES.replace("    **_MODELS,", '    **_MODELS,\n    "w": 0,'), "right after a `**` item"),
        (TABLES.replace('    "x": 1,', '    "x": 1,\n    **os.environ,'), "a `**` item is added"),
        (
            TABLES.replace('    "a": ("a", "A"),\n    "z": ("z", "Z"),', '    "z": ("z", "Z"),\n    "a": ("a", "A"),'),
            "reordered",
        ),
    ],
)
def test_a_whole_literal_replace_is_said_once_in_one_line(after: str, why: str) -> None:
    found = rewrites(TABLES, after)
    assert [s.op for s in found.steps] == ["replace"]
    (note,) = found.fallbacks
    assert why in note and "dict literal" in note and "\n" not in note, note
    assert note.count("set_item") == 1 and note.count("replace") == 1, note  # the why and the what, each once


def test_two_entries_added_before_the_first_and_at_the_end_are_one_note_per_literal() -> None:
    """Entries added before the first are set_item `before:` it (then `after:` each other); after a
    `**` item no set_item says: one note for that literal."""
    after = TABLES.replace('    "a": ("a", "A"),', '    "0": 0,\n    "1": 1,\n    "a": ("a", "A"),')
    after = after.replace('    "x": 1,', '    "x": 1,\n    "y": 2,').replace(
        "    **_MODELS,", '    **_MODELS,\n    "w": 0,'
    )
    found = rewrites(TABLES, after)
    assert len(found.fallbacks) == 1 and "_VLLM" in found.fallbacks[0], found.fallbacks
    placed = [dict(s.keys) for s in found.steps if s.op == "set_item"]
    assert [(k["key"], k.get("before"), k.get("after")) for k in placed] == [('"0"', '"a"', None), ('"1"', None, '"0"')]

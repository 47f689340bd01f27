"""The value reached through an expression that may give it back (`CFG or {}`, `CFG if c else {}`) and then
stored into or changed by a method (att61 F4): `(CFG or {})["timeout"] = 1` undid the set_item, which applied;
the walk climbed the `or` and then took the subscript for a read. Now a store, a delete or a changing method
there is an escape, refused by line; an item read or a reading method stays a read.

Generated: the container edits and set_keyword of tests/lib/escape_edits x the expression x a statement that
undoes the edit or changes something else, or only reads. The oracle imports the original and the patched
module in a fresh interpreter (tests/lib/later_values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, verdict
from tests.lib.generated import sample

SHAPES = {"or": "({n} or None)", "if-else": "({n} if len('x') else None)"}
EDITED = ("set_item", "add_element list", "add_element set", "remove_element set", "set_keyword")
READS = {"set_item": 'X = {v}["retries"]', "add_element list": "X = {v}[0]", "set_keyword": "X = {v}.other"}
KEYS = ("undo", "twin", "read")
CASES = sample([(e, s, k) for e in EDITED for s in SHAPES for k in KEYS if k != "read" or e in READS])


@pytest.mark.parametrize(("edit", "shape", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_change_through_an_expression_giving_the_value_back_is_read(
    tmp_path: Path, edit: str, shape: str, key: str
) -> None:
    e = EDITS[edit]
    through = SHAPES[shape].format(n=e.name)
    statement = {"undo": e.undo, "twin": e.twin, "read": READS.get(edit, "")}[key].format(v=through)
    later = f"try:\n    {statement}\nexcept Exception:\n    pass\n"
    refused, took, before = verdict(tmp_path, e, later)
    assert took is not None, before
    if key == "read":
        assert took and refused is None, f"refused, but the statement only reads: {refused}\n{before}"
    elif not took:
        assert refused is not None, f"applied, but the module ends without the edit:\n{before}"

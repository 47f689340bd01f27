"""A literal edit undone by a later rewrite of the same entry (att61 F12): set_item, add_element,
remove_element, set_keyword and set_default proved, when they ran, that no later code undoes them; the
entry's rewrites after them had not run yet, so `set_item` then an `insert_after` adding the undoing
statement applied, and the module ended without the edit (the other order was refused). prove.entry_order
runs each such rewrite again after the others: refused in both orders now. set_constant's rebinding is
proven on the whole result (prove.placement), in both orders too.

Generated: the edits of tests/lib/escape_edits x the later rewrite (an insert after `x = 0`, a replace of
it) x the statement it writes (undoing the edit, or changing something else) x the order of the two
rewrites in the entry. The oracle imports the original and the patched module in a fresh interpreter
(tests/lib/later_values): where the edit does not take effect, radpatch must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.runner import forward
from tests.lib.escape_edits import EDITS
from tests.lib.generated import sample
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

LATER = ("insert", "replace")
CASES = sample(
    [(e, w, k, o) for e in EDITS for w in LATER for k in ("undo", "twin") for o in ("edit first", "later first")]
)


def _planned(text: str, *ops: Operation) -> tuple[str | None, str | None]:
    patch = patch_of(*ops)
    try:
        return plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), text.encode()).after.decode(), None
    except RefusedError as exc:
        return None, exc.message


@pytest.mark.parametrize(("edit", "later", "key", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_a_literal_edit_a_later_rewrite_of_the_entry_undoes_is_refused_in_either_order(
    tmp_path: Path, edit: str, later: str, key: str, order: str
) -> None:
    e = EDITS[edit]
    statement = "try:\n    " + (e.undo if key == "undo" else e.twin).format(v=e.name) + "\nexcept Exception:\n    pass"
    before = e.top + "\n\nx = 0\n"
    other: Operation = (
        InsertStatements(scope="<module>", find="x = 0", code=statement, side="after")  # type: ignore[call-arg]
        if later == "insert"
        else Replace(scope="<module>", find="x = 0", with_=statement)  # type: ignore[call-arg]
    )
    ops = (e.op, other) if order == "edit first" else (other, e.op)
    after, refused = _planned(before, *ops)
    # what the two rewrites give, each run alone without the proof (the edit on the module without the later statement)
    alone = forward(patch_of(e.op), patch_of(e.op).rewrites, before.encode(), "mod.py")
    expected = forward(patch_of(other), patch_of(other).rewrites, alone, "mod.py").decode()
    took = took_effect(tmp_path, before, expected, e.name, e.removed, e.added)
    assert took is not None, f"the original does not import:\n{before}"
    if not took:
        assert refused is not None, f"applied, but the module ends without the edit:\n{after}"
    elif key == "twin":
        assert refused is None, f"refused, but the statement changes something else: {refused}"

"""An augmented assignment through another name holding the value changes it in place (att61 F1): `A = CFG`
then `A |= {"timeout": 1}`, a parameter (`def f(d): d |= ...` called with it), a loop variable over a display
holding it. The name's own `CFG |= ...` binds it again (refused as a second binding); through the other name it
was not seen, and the edit applied while the module ended without it.

Generated: the container edits of tests/lib/escape_edits x the route naming the value x an in-place operator
that undoes the edit or changes something else. The oracle imports the original and the patched module in a
fresh interpreter (tests/lib/later_values): where the edit does not take effect, radpatch must refuse. (Where
it does, radpatch may still refuse: an in-place operator through another name is not read further.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone
from tests.lib.generated import sample

OPS = {  # edit -> (undoing, other): an in-place operator on `{v}`
    "set_item": ('{v} |= {{"timeout": 1}}', '{v} |= {{"other": 1}}'),
    "add_element list": ("{v} *= 0", '{v} += ["z"]'),
    "add_element set": ('{v} -= {{"c"}}', '{v} |= {{"z"}}'),
    "remove_element set": ('{v} |= {{"b"}}', '{v} -= {{"a"}}'),
}
ROUTES = {
    "alias": "A = {n}\n{op}\n",
    "parameter": "def f(d):\n    {op}\n\n\nf({n})\n",
    "loop over a display": "for d in [{n}]:\n    {op}\n",
}
KEYS = ("undo", "other")
CASES = sample([(e, r, k) for e in OPS for r in ROUTES for k in KEYS])


@pytest.mark.parametrize(("edit", "route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_an_in_place_operator_through_another_name_is_read(tmp_path: Path, edit: str, route: str, key: str) -> None:
    e = EDITS[edit]
    holder = "A" if route == "alias" else "d"
    op = OPS[edit][0 if key == "undo" else 1].format(v=holder)
    later = ROUTES[route].format(n=e.name, op=op)
    assert_refused_where_undone(tmp_path, e, later, key == "undo")

"""set_default's function held where the walk does not follow it, then its defaults set there: a class attribute
(`class C: g = f`, then `C.g.__defaults__ = ...`), an attribute of another object, an item stored into a dict, a
branch of `or` or of a conditional expression. Each applied while the module ended with the old default (a
function's escapes were limited to code from elsewhere and a method taken); each is an escape now, refused
naming the line.

Generated: the route x a statement that sets `__defaults__` back (undo) or sets `__doc__` (twin). The oracle
imports the original and the patched module in a fresh interpreter (tests/lib/later_values): where the edit
does not take effect, radpatch must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone
from tests.lib.generated import sample

ROUTES = {
    "a class attribute": ("class C:\n    g = f\n", "C.g"),
    "another object's attribute": ("class O:\n    pass\n\n\no = O()\no.h = f\n", "o.h"),
    "an item stored": ('REG = {}\nREG["f"] = f\n', 'REG["f"]'),
    "or": ("", "(f or None)"),
    "a conditional expression": ("", "(f if True else None)"),
}
CASES = sample([(r, k) for r in ROUTES for k in ("undo", "twin")])


@pytest.mark.parametrize(("route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_function_held_where_the_walk_does_not_follow_is_refused_where_its_defaults_change(
    tmp_path: Path, route: str, key: str
) -> None:
    e = EDITS["set_default"]
    setup, reach = ROUTES[route]
    later = setup + (e.undo if key == "undo" else e.twin).format(v=reach)
    assert_refused_where_undone(tmp_path, e, later, key == "undo")

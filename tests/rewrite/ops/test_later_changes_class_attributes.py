"""A class attribute bound to the value in a class body (`class Config: defaults = CFG`) is the value itself,
reached later as `Config.defaults`, through a subclass, `self.defaults` in a method that runs, or `getattr`
(att61 F2): it was taken for a plain alias of the class body, and a change through it was not read, so the
edit applied while the module ended without it. It is an escape now: refused, naming the line.

Generated: the container edits and set_keyword of tests/lib/escape_edits x the route reaching the attribute
x a statement that undoes the edit or changes something else. The oracle imports the original and the
patched module in a fresh interpreter (tests/lib/later_values): where the edit does not take effect, radpatch
must refuse. (set_default's function kept as a class attribute is not covered: a method.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone
from tests.lib.generated import sample

_TRY = "try:\n    {s}\nexcept Exception:\n    pass"  # the original may not hold what it takes away
ROUTES = {
    "the class": "class Config:\n    held = {n}\n\n\n{t}\n",
    "a subclass": "class Config:\n    held = {n}\n\n\nclass Sub(Config):\n    pass\n\n\n{t}\n",
    "a method": "class Config:\n    held = {n}\n\n    def run(self):\n        {i}\n\n\nConfig().run()\n",
    "getattr": "class Config:\n    held = {n}\n\n\n{t}\n",
}
REACH = {
    "the class": "Config.held",
    "a subclass": "Sub.held",
    "a method": "self.held",
    "getattr": 'getattr(Config, "held")',
}
EDITED = ("set_item", "add_element list", "add_element set", "remove_element set", "set_keyword")
KEYS = ("undo", "twin")
CASES = sample([(e, r, k) for e in EDITED for r in ROUTES for k in KEYS])


@pytest.mark.parametrize(("edit", "route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_class_attribute_holding_the_value_is_followed_or_refused(
    tmp_path: Path, edit: str, route: str, key: str
) -> None:
    e = EDITS[edit]
    statement = (e.undo if key == "undo" else e.twin).format(v=REACH[route])
    guarded = _TRY.format(s=statement)
    later = ROUTES[route].format(n=e.name, t=guarded, i=guarded.replace("\n", "\n        "))
    assert_refused_where_undone(tmp_path, e, later, key == "undo")

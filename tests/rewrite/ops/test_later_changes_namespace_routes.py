"""The value reached through the module's namespace or the module object by a route the escape rule did not
list (att61 F7): a frame's `f_globals`, a function's `__globals__`, `globals().get(...)`, `vars().get(...)`,
`sys.modules[__name__].__dict__`, a name bound to the module object, `__getattribute__`, a loop over
`globals().items()`, `d = sys.modules`, a lambda returning `globals()`. Each applied while the module ended
without the edit; each is read as the value (a later change) or refused as the namespace handed on.
set_constant's name rebound through the same routes (`sys._getframe().f_globals["LIMIT"] = 1`,
`dict.update(globals(), LIMIT=1)`) is prove.placement's rebinding, which reads them now too.
set_keyword's object changed through itself (att61 F3): `B.__init__()` again, `type(B).__init__(B, ...)`,
`B.__dict__ = {...}`, `B.__dict__ |= {...}`.

Generated: the edits of tests/lib/escape_edits (but set_constant) x the route x a statement that undoes the edit
or changes something else; set_constant x its rebinding routes x the name or another; set_keyword x its own
routes. The oracle imports the original and the patched module in a fresh interpreter (tests/lib/later_values):
where the edit does not take effect, radpatch must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone
from tests.lib.generated import sample

# {s}: the statement on {v}, the value as the route reaches it; {n}: its name
ROUTES = {
    "a frame's f_globals": ("import sys", 'sys._getframe().f_globals["{n}"]'),
    "a function's __globals__": ("def _h():\n    pass", '_h.__globals__["{n}"]'),
    "globals().get": ("", 'globals().get("{n}")'),
    "vars().get": ("", 'vars().get("{n}")'),
    "the module's __dict__": ("import sys", 'sys.modules[__name__].__dict__["{n}"]'),
    "a name for the module": ("import sys\n_m = sys.modules[__name__]", '_m.__dict__["{n}"]'),
    "__getattribute__": ("import sys", 'sys.modules[__name__].__getattribute__("{n}")'),
    "sys.modules bound to a name": ("import sys\n_d = sys.modules", "_d[__name__].{n}"),
    "a lambda's globals()": ("", '(lambda: globals())()["{n}"]'),
    "a loop over globals().items()": ("", "_k_v_"),
    # att62 F2, F7: a class's module, inspect.getmodule, a copy of the namespace
    "a class's __module__": ("import sys\nclass _K:\n    pass", "sys.modules[_K.__module__].{n}"),
    "inspect.getmodule": ("import inspect\ndef _h():\n    pass", 'inspect.getmodule(_h).__dict__["{n}"]'),
    "a copy of globals()": ("", 'dict(globals())["{n}"]'),
}
_LOOP = 'for _k, _v in list(globals().items()):\n    if _k == "{n}":\n        {s}'
EDITED = tuple(k for k in EDITS if k != "set_constant")
CASES = sample([(e, r, k) for e in EDITED for r in ROUTES for k in ("undo", "twin")])
_TRY = "try:\n    {s}\nexcept Exception:\n    pass"  # the original may not hold what it takes away


def _later(edit: str, route: str, key: str) -> str:
    e = EDITS[edit]
    setup, reach = ROUTES[route]
    statement = e.undo if key == "undo" else e.twin
    if reach == "_k_v_":
        body = _LOOP.format(n=e.name, s=statement.format(v="_v"))
    else:
        body = statement.format(v=reach.format(n=e.name))
    return (setup + "\n" if setup else "") + _TRY.format(s=body.replace("\n", "\n    "))


@pytest.mark.parametrize(("edit", "route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_the_value_reached_through_the_modules_namespace_is_followed_or_refused(
    tmp_path: Path, edit: str, route: str, key: str
) -> None:
    assert_refused_where_undone(tmp_path, EDITS[edit], _later(edit, route, key), key == "undo")


REBINDS = {
    "a frame's f_globals": "import sys\nsys._getframe().f_globals[{k!r}] = 1",
    "a function's __globals__": "def _h():\n    pass\n_h.__globals__[{k!r}] = 1",
    "dict.update(globals())": "dict.update(globals(), {k}=1)",
    "sys.modules bound to a name": "_d = sys.modules\nsetattr(_d[__name__], {k!r}, 1)",
    "a lambda's globals()": "(lambda: globals())()[{k!r}] = 1",
}
REBIND_CASES = sample([(r, k) for r in REBINDS for k in ("LIMIT", "OTHER")])


@pytest.mark.parametrize(("route", "name"), REBIND_CASES, ids=["-".join(c) for c in REBIND_CASES])
def test_a_constant_rebound_through_the_modules_namespace_is_refused(tmp_path: Path, route: str, name: str) -> None:
    assert_refused_where_undone(tmp_path, EDITS["set_constant"], REBINDS[route].format(k=name), name == "LIMIT")


OWN = {
    "__init__ again": "{v}.__init__(timeout=1, other=0)",
    "type(B).__init__": "type({v}).__init__({v}, timeout=1, other=0)",
    "__dict__ replaced": '{v}.__dict__ = {{"timeout": 1, "other": 0}}',
    "__dict__ merged": '{v}.__dict__ |= {{"timeout": 1}}',
    "__class__.__init__": "{v}.__class__.__init__({v}, timeout=1)",
}
OWN_CASES = sample(list(OWN))


@pytest.mark.parametrize("route", OWN_CASES)
def test_set_keywords_object_changed_through_its_own_dunders_is_refused(tmp_path: Path, route: str) -> None:
    e = EDITS["set_keyword"]
    assert_refused_where_undone(tmp_path, e, OWN[route].format(v=e.name), True)

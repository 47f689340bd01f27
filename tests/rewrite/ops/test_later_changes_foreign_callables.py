"""A value handed to a callee the text cannot tell (a name bound otherwise than to a def, a loop variable, a
parameter, `HS[0]`, a partial, a `methodcaller`) where the module lets out a callable from elsewhere: its
type's own method (`type(CFG).__setitem__`, `dict.update`), got by name or by `getattr` (att61 F6). The
unknown-callee rule took such a callee for one of the module's functions let out, so a change made through it
was not read: the edit applied and the module ended without it. It is an escape now, refused naming both lines.

Generated: the edits of tests/lib/escape_edits that have a method (set_item, add_element and remove_element on a
list and a set, set_keyword, set_default) x the route handing the type's method to the value x a statement that
undoes the edit or changes something else. The oracle imports the original and the patched module in a fresh
interpreter (tests/lib/later_values): where the edit does not take effect, radpatch must refuse. Twins: the same
routes handing on the module's own function instead: applied, and in effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone, verdict
from tests.lib.generated import sample

# {f}: the callable as an expression; {n}: the value's name; {a}: the method's arguments after the value
ROUTES = {
    "a name": "h = {f}\nh({n}, {a})",
    "getattr": 'h = getattr({o}, "{m}")\nh({n}, {a})',
    "a loop": "for h in ({f},):\n    h({n}, {a})",
    "a parameter": "def g(h):\n    h({n}, {a})\n\n\ng({f})",
    "an item": "HS = [{f}]\nHS[0]({n}, {a})",
    "a default": "def g(h={f}):\n    h({n}, {a})\n\n\ng()",
    "a partial": "import functools\n\nfunctools.partial({f}, {n})({a})",
    "a function's result": "def make():\n    return {f}\n\n\nmake()({n}, {a})",
    "methodcaller": 'import operator\n\nh = operator.methodcaller("{m}", {a})\nh({n})',
    # att62 F1: a call of a decorated def runs what its decorator returned
    "a decorated def": "def _dec(fn):\n    return {f}\n\n\n@_dec\ndef _f(*a):\n    pass\n\n\n_f({n}, {a})",
}
OWN = "def _keep(v, *args):\n    return None\n\n\n"  # the twins' callable: the module's own, followed
EDITED = tuple(k for k, e in EDITS.items() if e.method is not None)
CASES = sample([(e, r, k) for e in EDITED for r in ROUTES for k in ("undo", "twin")])


def _later(edit: str, route: str, key: str, own: bool) -> str:
    e = EDITS[edit]
    assert e.method is not None
    method, undo, twin = e.method
    owner = f"type({e.name})"
    f = "_keep" if own else f"{owner}.{method}"
    text = ROUTES[route].format(f=f, o=owner, m=method, n=e.name, a=undo if key == "undo" else twin)
    guarded = "try:\n    " + text.replace("\n", "\n    ") + "\nexcept Exception:\n    pass"  # the original may lack it
    return (OWN + guarded) if own else guarded


@pytest.mark.parametrize(("edit", "route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_value_handed_to_an_unknown_callee_that_may_be_its_types_method_is_refused_where_undone(
    tmp_path: Path, edit: str, route: str, key: str
) -> None:
    assert_refused_where_undone(tmp_path, EDITS[edit], _later(edit, route, key, own=False), key == "undo")


# getattr and methodcaller name a method, not _keep; a callee that is a call's result is refused as before
OWN_ROUTES = [r for r in ROUTES if r not in ("getattr", "methodcaller", "a function's result")]
OWN_CASES = sample([(e, r) for e in EDITED for r in OWN_ROUTES])


@pytest.mark.parametrize(("edit", "route"), OWN_CASES, ids=["-".join(c) for c in OWN_CASES])
def test_the_same_routes_handing_on_the_modules_own_function_apply(tmp_path: Path, edit: str, route: str) -> None:
    refused, took, before = verdict(tmp_path, EDITS[edit], _later(edit, route, "undo", own=True))
    assert took, f"the twin should leave the edit in effect:\n{before}"
    assert refused is None, f"refused, but the callee is the module's own function, which changes nothing: {refused}"

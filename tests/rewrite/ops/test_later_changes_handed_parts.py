"""A call that hands on a part of the value, not the value (esc55): real vLLM 0.33.0/0.34.0's
`round_up(n, BUCKETS[0])`, `_CPU_ACT_METHODS[a]`, `dict(_VL_PREFIX_MAPPING)`, triton's
`autotune(configs=[... for bt in BT_LIST_AUTOTUNE])` were taken as handing the container itself to
the functions let out, whose parameters then seemed to hold it (rewrite.evaluates_to).

Generated: the container edits of tests/lib/escape_edits x the argument (PARTS: an item, a copy, a
spread, a comprehension over it, its length; VALUES: the value itself, in a display, `or`, a
display's item, a lambda returning it) x the route handing it, with a function of the module that
undoes the edit on what it gets, to code the text cannot tell (ROUTES: `map`; a list holding both,
the function called from it) x {undo, twin}. The oracle imports the original and the patched module
in a fresh interpreter (tests/lib/later_values): a part leaves the value alone, so the edit applies;
the value itself undone is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, verdict
from tests.lib.generated import sample

_KEYS = {"set_item": '"timeout"', "add_element list": "0"}  # an item of the value (a set has none)
PARTS = {
    "an item": "{n}[{k}]",
    "list()": "list({n})",
    "tuple()": "tuple({n})",
    "set()": "set({n})",
    "frozenset()": "frozenset({n})",
    "sorted()": "sorted({n})",
    "dict()": "dict({n})",
    "copy.copy()": "copy.copy({n})",
    "[*X]": "[*{n}]",
    "{**X}": "{{**{n}}}",
    "comprehension": "[k for k in {n}]",
    "generator": "list(k for k in {n})",
    "len()": "len({n})",
    "an item of a copy": "sorted({n})[0]",
}
VALUES = {
    "itself": "{n}",
    "or": "{n} or None",
    "display": "({n},)[0]",
    "lambda": "(lambda: {n})()",
    "comprehension of a display": "[k for k in [{n}]][0]",
}
ROUTES = {  # `_use` (defined first) gets {a}, through code the text cannot tell
    "map": "list(map(_use, [{a}]))",
    "a list holding both": "RUN = [_use, {a}]\nRUN[0](RUN[1])",
}
_USE = "import copy\n\n\ndef _use(x):\n    try:\n        {s}\n    except Exception:\n        pass\n\n\n"
KEYS = ("undo", "twin")
EDITED = [e for e in EDITS if e in ("set_item", "add_element list", "add_element set", "remove_element set")]


def later_text(edit: str, arg: str, route: str, key: str) -> str | None:
    e = EDITS[edit]
    shape = {**PARTS, **VALUES}[arg]
    if "{k}" in shape and edit not in _KEYS:
        return None
    given = shape.format(n=e.name, k=_KEYS.get(edit, ""))
    statement = (e.undo if key == "undo" else e.twin).format(v="x")
    return _USE.format(s=statement) + ROUTES[route].format(a=given)


CASES = sample(
    [
        (e, a, r, k)
        for e in EDITED
        for a in [*PARTS, *VALUES]
        for r in ROUTES
        for k in KEYS
        if later_text(e, a, r, k) is not None
    ]
)


@pytest.mark.parametrize(("edit", "arg", "route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_part_of_the_value_handed_on_leaves_it_alone(
    tmp_path: Path, edit: str, arg: str, route: str, key: str
) -> None:
    later = later_text(edit, arg, route, key)
    assert later is not None
    refused, took, before = verdict(tmp_path, EDITS[edit], later)
    if took is None:
        return  # the original does not import (`dict()` of a list): no value to compare
    if arg in VALUES and key == "undo":
        assert not took, f"the oracle: the value itself is undone\n{before}"
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
    elif not took:
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
    elif arg in PARTS:
        assert took
        assert refused is None, f"refused, but the edit takes effect: {refused}\n{before}"

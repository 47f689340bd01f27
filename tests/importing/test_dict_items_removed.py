"""A dict display's entries removed (`{"a": 1, "b": 2}` -> `{"a": 1}`, kw38, issue 20) imported as a
`replace` of the whole statement (or a `set_constant` of the whole literal): now one `set_item`
without `value:` per removed entry (`from:` its value, and `after:` the key before it, or
`before:` the key after it when it was first, so that revert puts it back there), beside the
`set_item`s of entries whose value changes. The entry survives a release that adds other keys.

Generated: layout (one line, one item per line, comments on and between item lines) x module or
class body x which entries go (each, two) x another entry's value changed or not. As data, only
set_item steps (a `replace`, with its note, where a comment on or right above a removed entry
could not be put back by revert); the steps run by the engine give the bytes GNU patch gives for the diff and undo to
the installed bytes (check); and the batch through `radpatch import`, apply, `status --check` and
revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

KEYS = ('"a"', '"b"', '"c"', '"d"')
LAYOUTS = ("line", "tall", "commented")


def literal(layout: str, values: dict[str, str], pad: str) -> str:
    items = [(k, v) for k, v in values.items()]
    if layout == "line":
        return "T = {" + ", ".join(f"{k}: {v}" for k, v in items) + "}\n"
    rows = []
    for k, v in items:
        if layout == "commented" and k == '"d"':
            rows.append(f"{pad}    # about d\n")
        note = "  # first" if layout == "commented" and k == '"a"' else ""
        rows.append(f"{pad}    {k}: {v},{note}\n")
    return "T = {\n" + "".join(rows) + f"{pad}}}\n"


def case(layout: str, in_class: bool, gone: tuple[int, ...], change: bool) -> tuple[str, str]:
    pad = "    " if in_class else ""
    values = {k: str(n + 1) for n, k in enumerate(KEYS)}
    kept = {k: v for n, (k, v) in enumerate(values.items()) if n not in gone}
    if change:
        other = next(k for k in kept)
        kept[other] = "10"
    head = "import os\n\n" + ("class K:\n    x = 0\n" if in_class else "")
    return (
        head + pad + literal(layout, values, pad) + "\n\nY = 1\n",
        head + pad + literal(layout, kept, pad) + "\n\nY = 1\n",
    )


GONE = [(n,) for n in range(len(KEYS))] + [(0, 1), (1, 3), (0, 3), (2, 3)]
CASES = sample(list(itertools.product(LAYOUTS, (False, True), GONE, (False, True))))


@pytest.mark.parametrize(("layout", "in_class", "gone", "change"), CASES)
def test_a_removed_entry_is_one_set_item(layout: str, in_class: bool, gone: tuple[int, ...], change: bool) -> None:
    before, after = case(layout, in_class, gone, change)
    found = rewrites(before, after)
    steps = found.steps
    if layout == "commented" and (0 in gone or 3 in gone):
        # the comment on the first entry's line, or above the last: revert could not put it back
        assert [s.op for s in steps] == ["replace"], steps
        assert any("a removed entry has a comment" in f for f in found.fallbacks), found.fallbacks
        return
    assert {s.op for s in steps} == {"set_item"}, steps
    taken = [dict(s.keys) for s in steps if "value" not in dict(s.keys)]
    assert [k["key"] for k in taken] == [KEYS[n] for n in gone], steps
    ops = []
    for s in steps:
        k = dict(s.keys)
        ops.append(
            SetItem(
                str(k["scope"]),
                str(k["name"]),
                str(k["key"]),
                k.get("value"),  # type: ignore[arg-type]
                k.get("from"),  # type: ignore[arg-type]
                k.get("after"),  # type: ignore[arg-type]
                k.get("before"),  # type: ignore[arg-type]
            )
        )
    check(before, tuple(ops), after)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_removed_entries_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)

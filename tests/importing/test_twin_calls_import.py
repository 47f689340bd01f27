"""Some of N identical calls changed by a patch (issue 20, att43 #8 and #9): `p.add(x=["a"])` three
times, the diff adding "b" to the first and "c" to the third; `p.add(d={"a": 1})` twice, the first
becoming `{"a": 2, "b": 3}`. The importer paired the unchanged call of the patched code with the
first of its twins, so the changed calls read as one inserted and another deleted: an
`insert_before` and a `delete` counted with `occurrence:`, which apply refused (nothing imported) or
which left a `# radpatch: deleted:` line GNU patch does not write. Now each changed call is changed
in place, in the call form (`call:`, `keyword:`/`argument:`, `occurrence:` the installed file's
number of that call): add_element/remove_element, set_item, one per part; and keyword arguments
of the call added, taken away or given new values, one set_keyword per keyword (they were one
wider `replace` of the call's statements, issue 20's kw44: apply follows the counted call through
the earlier steps' edits of its line, rewrite.line_map).

Generated: N (2, 3, 4) identical calls x which of them change (every non-empty proper subset, each
changed call its own new element, value or key) x the change (a list: an element added, one
taken away; a dict: a value changed, a key added, a key taken away, a value changed and a key
added; two keywords after the literal: added, taken away, given new values, one given a new value
and one added) x layout (the literal on the call's line, one part per line) x argument (keyword,
first positional) x scope (a function, the module). As data, only call-form steps (set_keyword for
the keywords), one call each, at the changed calls' occurrences; run by the engine they give the
bytes GNU patch gives for the diff and undo to the installed bytes (check); a batch through
`radpatch import` on a pip-installed wheel, apply, `status --check` and revert, against GNU patch,
byte for byte.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops import Operation
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_element import SetElement
from radpatch.rewrite.ops.set_item import SetItem
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.importing import imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives
from tests.lib.rewrites import check

KEYWORDS = ("kw-add", "kw-take", "kw-value", "kw-value+add")  # two keyword arguments of a call, its literal kept
CHANGES = ("add", "remove", "value", "key", "drop", "value+key", *KEYWORDS)
LAYOUTS = ("flat", "tall")
ARGUMENTS = ("keyword", "positional")
SCOPES = ("function", "module")
CALL_FORM = {"add_element", "remove_element", "set_item", "set_keyword"}


def _subsets(n: int) -> list[tuple[int, ...]]:
    return [c for k in range(1, n) for c in itertools.combinations(range(n), k)]


def _parts(change: str, changed: int | None) -> list[str]:
    """The literal's parts: its base (`changed` None), or as the change leaves the call `changed`."""
    if change in KEYWORDS:
        return ['"a"', '"b"']
    if change in ("add", "remove"):
        parts = ['"a"', '"b"']
        if changed is None:
            return parts
        return [*parts, f'"n{changed}"'] if change == "add" else parts[:1]
    parts = ['"a": 1', '"b": 2']
    if changed is None:
        return parts
    return {
        "value": [f'"a": {10 + changed}', '"b": 2'],
        "key": [*parts, f'"k{changed}": {changed}'],
        "drop": parts[:1],
        "value+key": [f'"a": {10 + changed}', '"b": 2', f'"k{changed}": {changed}'],
    }[change]


def _call(change: str, layout: str, argument: str, pad: str, changed: int | None) -> str:
    opening, closing = ("[", "]") if change in ("add", "remove") else ("{", "}")
    parts = _parts(change, changed)
    if layout == "flat":
        literal = opening + ", ".join(parts) + closing
    else:
        literal = opening + "\n" + "".join(f"{pad}    {x},\n" for x in parts) + pad + closing
    given = f"x={literal}" if argument == "keyword" else f"{literal}, 0"
    return f"{pad}p.add({given}{_keywords(change, changed)})\n"


def _keywords(change: str, changed: int | None) -> str:
    """The keyword arguments after the literal: `y=` and `z=` added to the changed calls, taken from
    them, or given new values (each changed call its own), or `y=`'s value changed and `z=` added."""
    if change not in KEYWORDS or (change == "kw-add" and changed is None):
        return ""
    if change == "kw-value+add" and changed is None:  # y's value changed, z added
        return ", y=1"
    if changed is None or change == "kw-take":
        return "" if changed is not None else ", y=1, z=2"
    return f", y={10 + changed}, z={20 + changed}"


def module(n: int, changed: tuple[int, ...], change: str, layout: str, argument: str, scope: str) -> str:
    pad = "    " if scope == "function" else ""
    head = (
        "def build(p):\n"
        if scope == "function"
        else "class _P:\n    def add(self, *a, **k):\n        pass\n\n\np = _P()\n"
    )
    calls = "".join(_call(change, layout, argument, pad, i if i in changed else None) for i in range(n))
    return f"import os\n\n\n{head}{calls}\n\nY = 1\n"


def case(n: int, changed: tuple[int, ...], change: str, layout: str, argument: str, scope: str) -> tuple[str, str]:
    return module(n, (), change, layout, argument, scope), module(n, changed, change, layout, argument, scope)


CASES = sample(
    [
        (n, changed, change, layout, argument, scope)
        for n in (2, 3, 4)
        for changed in _subsets(n)
        for change, layout, argument, scope in itertools.product(CHANGES, LAYOUTS, ARGUMENTS, SCOPES)
    ]
)


def _ops(steps: tuple[object, ...]) -> tuple[Operation, ...]:
    ops: list[Operation] = []
    for s in steps:
        k = dict(s.keys)  # type: ignore[attr-defined]
        scope = str(k.pop("scope"))
        if "from" in k:
            k["from_"] = k.pop("from")
        op = s.op  # type: ignore[attr-defined]
        if op == "replace":
            ops.append(Replace(scope, str(k.pop("find")), str(k.pop("with")), **k))  # type: ignore[arg-type]
        elif op == "set_keyword":
            ops.append(SetKeyword(scope, **k))  # type: ignore[arg-type]
        elif op == "set_item":
            ops.append(SetItem(scope, None, str(k.pop("key")), **k))  # type: ignore[arg-type]
        else:
            ops.append(SetElement(scope, None, str(k.pop("element")), remove=op == "remove_element", **k))  # type: ignore[arg-type]
    return tuple(ops)


@pytest.mark.parametrize(("n", "changed", "change", "layout", "argument", "scope"), CASES)
def test_the_changed_twins_are_changed_in_place_by_their_occurrence(
    n: int, changed: tuple[int, ...], change: str, layout: str, argument: str, scope: str
) -> None:
    before, after = case(n, changed, change, layout, argument, scope)
    found = rewrites(before, after)
    assert not found.fallbacks, found.fallbacks  # two parts of a counted call on its line: each its own step
    ops = {s.op for s in found.steps}
    keys = [dict(s.keys) for s in found.steps]
    if change in KEYWORDS:  # one set_keyword per keyword of each changed call, not a wider rewrite
        assert ops == {"set_keyword"} and {k["keyword"] for k in keys} == {"y", "z"}, found.steps
    else:
        assert ops <= CALL_FORM and "set_keyword" not in ops, found.steps
    assert {k["call"] for k in keys} == {"p.add"}, found.steps
    assert sorted({k["occurrence"] for k in keys}) == [c + 1 for c in changed], found.steps  # type: ignore[type-var]
    assert len(found.steps) == len(changed) * (2 if change in {"value+key", *KEYWORDS} else 1), found.steps
    check(before, _ops(found.steps), after)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_twin_calls_apply_as_gnu_patch_gives_byte_for_byte(tmp_path: Path) -> None:
    batch = CASES[::7]
    passed = imported_as_gnu_patch_give_each(tmp_path, [case(*c) for c in batch])
    failed = [c for i, c in enumerate(batch) if i not in passed]
    if failed:
        imported_as_gnu_patch_gives(tmp_path / "alone", *case(*failed[0]))
    assert not failed, failed
    counts = {i: str(entry["_stdout"]) for i, entry in passed.items()}
    assert [batch[i] for i, out in counts.items() if "1 of 1 file byte-identical" not in out] == [], counts

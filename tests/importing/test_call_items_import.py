"""An entry added to or taken from a dict literal passed to a call (`register(archs={...})`; issue
20, elem41 #1): imported as a set_keyword or `replace` of the whole literal before; now one
`set_item` each with `call:` and `keyword:` (or `argument:`), and `occurrence:` where the scope
has several calls to the callee passing it.

Generated: call shape (a plain callee, a method, one argument per line, the second of two calls)
x argument (keyword, first or second positional) x scope (module, function) x change (an entry
added first, in the middle, last; two added; one taken away, first or last). As data, only
set_item steps addressed by the call (the wider rewrite, noted, for two entries of a counted
call); through the engine byte for byte and back (check); a batch through `radpatch import`,
apply, `status --check` and revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

ITEMS = (('"a"', "1"), ('"b"', "2"), ('"c"', "3"))
NEW = (('"n"', "9"), ('"m"', "8"))
SHAPES = ("reg", "parser.add", "tall", "second")
ARGUMENTS = ("keyword", "first", "second")
SCOPES = ("module", "function")
CHANGES = [("add", 0), ("add", 1), ("add", 3), ("add2", 3), ("remove", 0), ("remove", 2)]


def module(shape: str, argument: str, scope: str, items: list[tuple[str, str]]) -> str:
    d = "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    pad = "" if scope == "module" else "    "
    callee = {"tall": "register", "second": "reg"}.get(shape, shape)
    args = {"keyword": ['"--x"', f"archs={d}"], "first": [d, '"--x"'], "second": ['"--x"', d, "k=1"]}[argument]
    call = (
        f"{callee}(\n" + "".join(f"{pad}    {x},\n" for x in args) + f"{pad})"
        if shape == "tall"
        else f"{callee}({', '.join(args)})"
    )
    first = f'{pad}reg("--w", 0, archs=None)\n' if shape == "second" else ""
    head = "" if scope == "module" else "def f(self, parser):\n"
    tail = "    return 0\n" if scope == "function" else ""
    return f"import os\n\n\n{head}{first}{pad}{call}\n{tail}\n\nY = 1\n"


def case(shape: str, argument: str, scope: str, change: tuple[str, int]) -> tuple[str, str]:
    what, at = change
    now = list(ITEMS)
    new = (
        [e for n, e in enumerate(now) if n != at]
        if what == "remove"
        else [*now[:at], *NEW[: 1 + (what == "add2")], *now[at:]]
    )
    return module(shape, argument, scope, now), module(shape, argument, scope, new)


CASES = sample(list(itertools.product(SHAPES, ARGUMENTS, SCOPES, CHANGES)))


def _ops(steps: tuple[object, ...]) -> tuple[SetItem, ...]:
    ops = []
    for s in steps:
        k = dict(s.keys)  # type: ignore[attr-defined]
        scope, key = str(k.pop("scope")), str(k.pop("key"))
        k["from_"] = k.pop("from", None)  # type: ignore[assignment]
        ops.append(SetItem(scope, None, key, **k))  # type: ignore[arg-type]
    return tuple(ops)


@pytest.mark.parametrize(("shape", "argument", "scope", "change"), CASES)
def test_an_entry_of_a_dict_passed_to_a_call_is_its_own_rewrite(
    shape: str, argument: str, scope: str, change: tuple[str, int]
) -> None:
    before, after = case(shape, argument, scope, change)
    found = rewrites(before, after)
    assert [s.op for s in found.steps] == ["set_item"] * (2 if change[0] == "add2" else 1), found.steps
    keys = [dict(s.keys) for s in found.steps]
    assert {k["call"] for k in keys} == {{"tall": "register", "second": "reg"}.get(shape, shape)}
    assert {k.get("keyword") for k in keys} == {"archs" if argument == "keyword" else None}
    assert {k.get("argument") for k in keys} == {{"keyword": None, "first": 1, "second": 2}[argument]}
    assert {k.get("occurrence") for k in keys} == {2 if shape == "second" else None}
    assert not found.fallbacks
    check(before, _ops(found.steps), after)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_call_dicts_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    batch = CASES[::4]
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in batch], batch)

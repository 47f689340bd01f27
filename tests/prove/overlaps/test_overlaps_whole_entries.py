"""Two entries judged whole (ovl45, issue 23 item 4 / issue 20): the overlap rules compared rewrite
with rewrite, so they missed a `find` that is one element of a literal another entry's call-form or
literal rewrite changes, a rewrite inside a definition another entry creates (`insert_definitions`
adds `def g`, the other changes `g`), and two entries whose rewrites only together depend on the
order.

Generated: pairs of entries (one or two rewrites each, from ENTRIES) x entry order. Oracle: the
rewrite runner applies each entry whole on the module text, A then B and B then A
(tests.lib.overlaps.orders_differ). With the module text, and from the registry text alone (as
one that may meet), `list`'s rules (prove.overlaps.pairs) report the pair whenever the orders differ
or one fails, and apply's check refuses it (unordered)
exactly when both orders apply and write different code, and when neither applies both though each
applies alone; a pair where one order only applies (a stack) is reported."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, pairs
from radpatch.registry.model import Patch, Rewrite
from tests.lib.generated import sample
from tests.lib.overlaps import orders_differ, run_entry, write

SRC = """\
OPTS = {"j": 0}
CHOICES = ["a", "b"]
MODES = ("a", "b")


def build(p):
    p.add("--x", choices=["a", "b"])
    x = 1
    y = x
    return p


class K:
    def m(self):
        return 1
"""
PAYLOADS = {
    "g.py": "def g():\n    v = 1\n    return v\n",
    "meth.py": "def extra(self):\n    return 3\n",
}

# an entry: its rewrites' YAML (each `- id:` added in order)
ENTRIES = {
    # a `find` that is one element of a literal (item 1)
    "element in the call": ["replace: {scope: build, find: '\"b\"', with: '\"B\"'}"],
    "element in CHOICES": ['replace: {scope: <module>, find: \'CHOICES = ["a", "b"]\', with: \'CHOICES = ["a"]\'}'],
    "a bare element of CHOICES": ["replace: {scope: <module>, find: '\"b\"', with: '\"B\"', occurrence: 1}"],
    "dict value": ["replace: {scope: <module>, find: '0', with: '5'}"],
    "tuple element": ["replace: {scope: <module>, find: '\"a\"', with: '\"A\"', occurrence: 2}"],
    # literal rewrites
    "add to the call's choices": ["add_element: {scope: build, call: p.add, keyword: choices, element: '\"c\"'}"],
    "remove b from the call's choices": [
        "remove_element: {scope: build, call: p.add, keyword: choices, element: '\"b\"'}"
    ],
    "add to CHOICES": ["add_element: {scope: <module>, name: CHOICES, element: '\"c\"'}"],
    "remove b from CHOICES": ["remove_element: {scope: <module>, name: CHOICES, element: '\"b\"'}"],
    "remove b from MODES": ["remove_element: {scope: <module>, name: MODES, element: '\"b\"'}"],
    "a key in OPTS": ["set_item: {scope: <module>, name: OPTS, key: '\"k\"', value: '1'}"],
    # a definition created, and rewrites inside it (item 2)
    "define g": ["insert_definitions: {payload: g.py, after: build}"],
    "change g": ["replace: {scope: g, find: 'v = 1', with: 'v = 2'}"],
    "insert into g": ["insert_after: {scope: g, find: 'v = 1', code: 'w = 0'}"],
    "add a method": ["insert_definitions: {payload: meth.py, into: K}"],
    "change the method": ["replace: {scope: K.extra, find: 'return 3', with: 'return 4'}"],
    # two rewrites that meet another entry only together (item 3)
    "x then y": [
        "replace: {scope: build, find: 'x = 1', with: 'x = 2'}",
        "insert_after: {scope: build, find: 'y = x', code: 'z = y'}",
    ],
    "y then return": [
        "replace: {scope: build, find: 'y = x', with: 'y = x + 1'}",
        "replace: {scope: build, find: 'return p', with: 'return y'}",
    ],
    "unrelated": ["replace: {scope: K.m, find: 'return 1', with: 'return 2'}"],
}


def entry(reg: Path, name: str, key: str) -> Patch:
    for rel, text in PAYLOADS.items():
        (reg / rel).write_text(text)
    body = "".join(f"  - id: {name}{i}\n    {yaml}\n" for i, yaml in enumerate(ENTRIES[key], 1))
    return write(reg, name, body)


def _cases() -> list[tuple[str, str, bool]]:
    return [(a, b, flip) for a, b in itertools.combinations(ENTRIES, 2) for flip in (False, True)]


def _refused(entries: list[Patch], texts: object) -> bool:
    try:
        apply_check.refuse_unordered(entries, [Version("1.0")], (), texts)  # type: ignore[arg-type]
    except RefusedError:
        return True
    return False


@pytest.mark.parametrize(("one", "other", "flip"), sample(_cases()), ids=str)
def test_two_entries_overlap_exactly_when_their_orders_disagree(
    tmp_path: Path, one: str, other: str, flip: bool
) -> None:
    a, b = entry(tmp_path, "a", one), entry(tmp_path, "b", other)
    differ = orders_differ(a, b, SRC)
    if differ is None:
        pytest.skip("neither order applies, nor one of them alone: no pair to judge")
    entries = [b, a] if flip else [a, b]

    def texts(p: Patch, rw: Rewrite, v: Version) -> str:
        return SRC

    on_file = pairs.find(entries, [Version("1.0")], texts)
    if differ:
        assert on_file, f"{one} / {other}: the orders disagree, and no overlap is reported"
        assert pairs.find(entries, [Version("1.0")]), f"{one} / {other}: not reported from the registry text"
    both = [run_entry(b, run_entry(a, SRC)), run_entry(a, run_entry(b, SRC))]
    if None in both:  # one order only (a stack: reported, the order named), or neither (refused)
        if both == [None, None]:
            assert _refused(entries, texts), (one, other, [o.describe() for o in on_file])
        return
    disagree = ast.dump(ast.parse(both[0] or "")) != ast.dump(ast.parse(both[1] or ""))
    assert _refused(entries, texts) is disagree, (one, other, disagree, [o.describe() for o in on_file])

"""`list`, `verify` and `apply` on two entries judged whole (ovl45; the generated family, with the
rewrite runner's two orders as the oracle, is tests/prove/overlaps/test_overlaps_whole_entries.py),
on toypkg 1.0 built as a wheel and unpacked as pip lays it out (RECORD and all), its release on a
loopback index. Per pair, the oracle (both entries run whole, both orders, on the module) decides:
both apply and write the same code: apply applies them; both apply and differ, or neither order
applies both: apply refuses naming both, and `list` and `verify` report the pair; one order only
(a stack): `list` and `verify` report it, the entry that must go first named first."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.overlaps import one_rewrite, run_entry
from tests.lib.site import Site

SRC = """\
CHOICES = ["a", "b"]
MODES = ("a", "b")


def build(p):
    p.add("--x", choices=["a", "b"])
    return p
"""
G = "def g():\n    v = 1\n    return v\n"
ENTRIES = {
    "element in the call": "replace: {scope: build, find: '\"b\"', with: '\"B\"'}",
    "remove b from the call's choices": "remove_element: {scope: build, call: p.add, keyword: choices, "
    "element: '\"b\"'}",
    "add to the call's choices": "add_element: {scope: build, call: p.add, keyword: choices, element: '\"c\"'}",
    "CHOICES whole": 'replace: {scope: <module>, find: \'CHOICES = ["a", "b"]\', with: \'CHOICES = ["a"]\'}',
    "tuple element": "replace: {scope: <module>, find: '\"a\"', with: '\"A\"', occurrence: 2}",
    "define g": "insert_definitions: {payload: g.py, after: build}",
    "change g": "replace: {scope: g, find: 'v = 1', with: 'v = 2'}",
}
PAIRS = [
    ("element in the call", "remove b from the call's choices"),
    ("add to the call's choices", "remove b from the call's choices"),
    ("CHOICES whole", "tuple element"),
    ("define g", "change g"),
    ("element in the call", "tuple element"),
]


def _entry(name: str, key: str) -> str:
    return one_rewrite(name, ENTRIES[key])


@pytest.mark.parametrize(("pair", "flip"), sample(list(itertools.product(PAIRS, (False, True)))), ids=str)
def test_list_verify_and_apply_agree_with_both_orders_of_two_whole_entries(
    pair: tuple[str, str],
    flip: bool,
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    toy_release(SRC, wheel=True)
    write_registry("a", _entry("a", pair[0]), {"g.py": G})
    reg = write_registry("b", _entry("b", pair[1]), {"g.py": G})
    from radpatch.registry.loader import load_patch

    a, b = load_patch(reg / "a.yaml"), load_patch(reg / "b.yaml")
    both = [run_entry(b, run_entry(a, SRC)), run_entry(a, run_entry(b, SRC))]
    before = site.snapshot()
    reports = [radpatch("--registry", str(reg), *argv) for argv in (("verify", "--all"), ("list",))]
    said = [[ln for ln in x.out.splitlines() if "overlap: " in ln] for x in reports]
    if both[0] is not None and both[1] is not None and ast.dump(ast.parse(both[0])) == ast.dump(ast.parse(both[1])):
        r = radpatch("--registry", str(reg), "apply", *(("b", "a") if flip else ("a", "b")))
        assert r.code == 0, (pair, r.out, r.err)
        assert ast.dump(ast.parse((site.root / "toypkg/core.py").read_text())) == ast.dump(ast.parse(both[0]))
        return
    assert all(lines for lines in said), (pair, said)  # the order matters: both report it
    if None in both and both != [None, None]:  # one order only: a stack, the one to go first named first
        first = "a" if both[0] is not None else "b"
        assert all(any(f"overlap: {first} (" in ln for ln in lines) for lines in said), (pair, said)
        return
    r = radpatch("--registry", str(reg), "apply", *(("b", "a") if flip else ("a", "b")))
    assert r.code != 0 and site.snapshot() == before, (pair, r.out, r.err)
    assert " overlap: " in r.err and "requires: [" in r.err and "a (" in r.err and "b (" in r.err, r.err

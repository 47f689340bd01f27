"""`list`, `verify` and `apply` take one decision on every pair of entries (ovl47, issue 23 part 4):
two entries overlap exactly when the two orders, tried on the module, write different bytes or one of
them refuses. Before, `apply` cleared a pair whose two orders write the same code (prove.overlaps.
entry_orders) while `list` and `verify` still reported it from the registry text (two insertions of
the same code at one anchor, an insertion after one statement and one before the next).

Generated: pairs of entries (the same node, the same anchor, one gap, the same code, disjoint, an
import at the imports' end, keywords of different calls of one callee) on three toy modules, in both
entry orders, on toypkg 1.0 built as a wheel and unpacked as pip lays it out, its release on a
loopback index. Oracle: the two entries applied
whole by radpatch's rewrite runner, a then b and b then a, on the module's bytes, and the two results
compared byte for byte (or one order failing). Per pair: `apply` in both orders (its refusal, or the
bytes it writes), `verify --all`, and `list` give the oracle's answer; `list` tries the orders on
verify's cached release, or before verify has read it on the installed release (its RECORD bytes, or
the original radpatch keeps while an order is applied). With neither (the installed file edited by
hand), `list` claims no overlap: only "may overlap", not tried."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch
from tests.lib.generated import sample
from tests.lib.overlaps import one_rewrite, run_entry
from tests.lib.site import Site

MODULES = {
    "function": """\
import os

LIMIT = 4


def plan(spec):
    total = 0
    size = len(spec)
    return total + size


def other():
    return 1
""",
    "class": """\
import os


class K:
    def m(self):
        x = 1
        return x

    def n(self):
        return 2
""",
    "calls": """\
def build(p):
    p.add("--x", nargs=1)
    p.add("--y", nargs=5)
    p.add("--z", nargs=1)
    return p
""",
}

# per module: an entry's rewrite (YAML); keys name what it is, so a pair says how the two meet
ENTRIES = {
    "function": {
        "total = 1": "replace: {scope: plan, find: 'total = 0', with: 'total = 1'}",
        "total = 2": "replace: {scope: plan, find: 'total = 0', with: 'total = 2'}",
        "n after total": "insert_after: {scope: plan, find: 'total = 0', code: 'n = 1'}",
        "m after total": "insert_after: {scope: plan, find: 'total = 0', code: 'm = 1'}",
        "k before size": "insert_before: {scope: plan, find: 'size = len(spec)', code: 'k = 1'}",
        "other returns 2": "replace: {scope: other, find: 'return 1', with: 'return 2'}",
        "import sys": "add_import: {import: 'import sys'}",
        "Z after import os": "insert_after: {scope: <module>, find: 'import os', code: 'Z = 0'}",
    },
    "class": {
        "x = 2": "replace: {scope: K.m, find: 'x = 1', with: 'x = 2'}",
        "y after x": "insert_after: {scope: K.m, find: 'x = 1', code: 'y = 1'}",
        "z after x": "insert_after: {scope: K.m, find: 'x = 1', code: 'z = 1'}",
        "w before return x": "insert_before: {scope: K.m, find: 'return x', code: 'w = 1'}",
        "n returns 3": "replace: {scope: K.n, find: 'return 2', with: 'return 3'}",
        "extra into K": "insert_definitions: {payload: meth.py, into: K}",
        "more after K.n": "insert_definitions: {payload: more.py, after: K.n}",
    },
    # keywords of different calls of one callee: the registry text cannot tell them apart (a set_keyword's
    # touches name no call), the file can; `occurrence:` counts the calls passing the `from:` value
    "calls": {
        "first nargs=1 to 2": "set_keyword: {scope: build, call: p.add, keyword: nargs, from: '1', to: '2', "
        "occurrence: 1}",
        "second nargs=1 to 3": "set_keyword: {scope: build, call: p.add, keyword: nargs, from: '1', to: '3', "
        "occurrence: 2}",
        "nargs=5 to 6": "set_keyword: {scope: build, call: p.add, keyword: nargs, from: '5', to: '6'}",
        "replace the --y call": "replace: {scope: build, find: 'p.add(\"--y\", nargs=5)', with: 'p.add(\"--y\")'}",
    },
}
PAYLOADS = {"meth.py": "def extra(self):\n    return 3\n", "more.py": "def more(self):\n    return 4\n"}


# an entry of "calls" paired with itself writes one keyword value on two calls of a callee: apply cannot
# prove that undone (the undo's match is ambiguous) in either order, which is no question of their order
ALONE = {"calls"}


def _cases() -> list[tuple[str, str, str, bool]]:
    """(module, a's rewrite, b's rewrite, flip): every pair, an entry with itself too (the same code)."""
    return [
        (module, one, two, flip)
        for module, entries in ENTRIES.items()
        for one, two in (itertools.combinations if module in ALONE else itertools.combinations_with_replacement)(
            entries, 2
        )
        for flip in (False, True)
    ]


def _entry(name: str, module: str, key: str) -> str:
    return one_rewrite(name, ENTRIES[module][key])


def _order_matters(a: Patch, b: Patch, src: str) -> bool:
    """The oracle: a then b and b then a, each entry whole by the rewrite runner, on `src`: the two
    write different bytes, or one of them fails."""
    one, two = run_entry(b, run_entry(a, src)), run_entry(a, run_entry(b, src))
    return one is None or two is None or one != two


def _overlap_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("overlap: ", "may overlap: "))]


@pytest.mark.parametrize(("module", "one", "two", "flip"), sample(_cases()), ids=str)
def test_list_verify_and_apply_say_an_overlap_exactly_when_the_order_matters(
    module: str,
    one: str,
    two: str,
    flip: bool,
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    src = MODULES[module]
    toy_release(src, wheel=True)
    write_registry("a", _entry("a", module, one), PAYLOADS)
    reg = write_registry("b", _entry("b", module, two), PAYLOADS)
    a, b = load_patch(reg / "a.yaml"), load_patch(reg / "b.yaml")
    if run_entry(a, src) is None or run_entry(b, src) is None:
        pytest.fail(f"{one} / {two}: an entry of the family does not apply alone")
    matters = _order_matters(a, b, src)
    case = (module, one, two, "the order matters" if matters else "either order writes the same bytes")

    core = site.root / "toypkg/core.py"
    pristine = core.read_bytes()
    core.write_bytes(pristine + b"# edited by hand\n")  # not the release's bytes: nothing to try the orders on
    unread = _overlap_lines(radpatch("--registry", str(reg), "list").out)
    assert not [ln for ln in unread if ln.startswith("overlap: ")], (case, "list claims it untried", unread)
    core.write_bytes(pristine)

    said = {}
    # list on the installed release (its RECORD bytes), verify on the release it reads, list on verify's cache
    for argv, said_as in ((("list",), "installed"), (("verify", "--all"), "verify"), (("list",), "list")):
        lines = _overlap_lines(radpatch("--registry", str(reg), *argv).out)
        assert not [ln for ln in lines if ln.startswith("may ")], (case, argv, "a release's file was at hand", lines)
        said[said_as] = bool(lines)

    written = []
    for names in (("b", "a"), ("a", "b")) if flip else (("a", "b"), ("b", "a")):
        r = radpatch("--registry", str(reg), "apply", *names)
        if r.code != 0:
            assert core.read_bytes() == pristine, (case, names, r.err)
            continue
        written.append(core.read_bytes())
        applied = _overlap_lines(radpatch("--registry", str(reg), "list").out)  # tried on the kept original
        said[f"list with {names} applied"] = bool(applied) and not any(ln.startswith("may ") for ln in applied)
        assert radpatch("--registry", str(reg), "revert", *names).code == 0
        assert core.read_bytes() == pristine, (case, names)
    apply_says = len(written) < 2 or written[0] != written[1]

    assert set(said.values()) == {matters} and apply_says is matters, (case, said, apply_says)

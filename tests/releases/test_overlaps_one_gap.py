"""Two insertions whose anchors differ but that go into one gap of the file: after a statement and
before the next one, after a definition and before the next, at the end of a class and after its
last method. The registry text cannot tell; the file can (prove.overlaps.gaps), and on it either order writes the
same file (each insertion stays next to its own anchor): `apply` applies the pair, and `verify` and
`list` (the release's file from verify's cache) do not report it (ovl47: before, they did)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import apply_check, pairs
from radpatch.prove.overlaps.touching import Meet
from tests.lib.index_server import IndexServer
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

SRC = """\
def plan(spec):
    size = len(spec)
    # the cap
    size = size * 2

    limit = 3
    return size


def other():
    return 1


class K:
    def m(self):
        return 1

    def n(self):
        return 2
"""
PAYLOADS = {"one.py": "def one():\n    return 1\n", "meth.py": "def extra(self):\n    return 3\n"}

AFTER_LEN = 'insert_after: {scope: plan, find: "size = len(spec)", code: "n = 3"}'
BEFORE_TWICE = 'insert_before: {scope: plan, find: "size = size * 2", code: "n = 4"}'
BEFORE_TWICE_LIMIT = 'insert_before: {scope: plan, find: "size = size * 2\\n\\nlimit = 3", code: "n = 4"}'
AFTER_TWICE = 'insert_after: {scope: plan, find: "size = size * 2", code: "n = 5"}'
BEFORE_RETURN = 'insert_before: {scope: plan, find: "return size", code: "n = 6"}'
AFTER_RETURN = 'insert_after: {scope: plan, find: "return size", code: "n = 7"}'
DEFS_AFTER_PLAN = "insert_definitions: {payload: one.py, after: plan}"
DEFS_BEFORE_OTHER = "insert_definitions: {payload: one.py, before: other}"
DEFS_BEFORE_K = "insert_definitions: {payload: one.py, before: K}"
INTO_K = "insert_definitions: {payload: meth.py, into: K}"
AFTER_LAST_METHOD = "insert_definitions: {payload: meth.py, after: K.n}"
AFTER_FIRST_METHOD = "insert_definitions: {payload: meth.py, after: K.m}"


def entry(reg: Path, name: str, op: str) -> Any:
    """Entry `name`, its payloads its own (`b`'s define `one_b`, `extra_b`): two entries that both
    defined `one` would clash whatever their places (neither order applies both)."""
    for rel, text in PAYLOADS.items():
        if name != "a":
            rel, text = rel.replace(".py", f"_{name}.py"), text.replace("(self", f"_{name}(self")
            text = text.replace("one(", f"one_{name}(")
        (reg / rel).write_text(text)
    if name != "a":
        op = op.replace("one.py", f"one_{name}.py").replace("meth.py", f"meth_{name}.py")
    return write(reg, name, f"  - id: {name}\n    {op}\n")


ONE_GAP = [
    pytest.param(AFTER_LEN, BEFORE_TWICE, id="after-s1/before-s2 (a comment between)"),
    pytest.param(AFTER_LEN, BEFORE_TWICE_LIMIT, id="after-s1/before-s2 of a several-statement find"),
    pytest.param(DEFS_AFTER_PLAN, DEFS_BEFORE_OTHER, id="definitions after f/before the next"),
    pytest.param(INTO_K, AFTER_LAST_METHOD, id="end of a class/after its last method"),
]
APART = [
    pytest.param(AFTER_TWICE, BEFORE_RETURN, id="a statement between (blank line, limit = 3)"),
    pytest.param(AFTER_LEN, AFTER_TWICE, id="after two statements"),
    pytest.param(DEFS_AFTER_PLAN, DEFS_BEFORE_K, id="a definition between"),
    pytest.param(INTO_K, AFTER_FIRST_METHOD, id="end of a class/after its first method"),
    pytest.param(AFTER_RETURN, DEFS_AFTER_PLAN, id="end of a body/after the function: two blocks"),
]


@pytest.mark.parametrize(("op_a", "op_b"), ONE_GAP)
def test_two_anchors_at_one_gap_of_the_file_overlap(tmp_path: Path, op_a: str, op_b: str) -> None:
    tmp_path.mkdir(exist_ok=True)
    a, b = entry(tmp_path, "a", op_a), entry(tmp_path, "b", op_b)
    on_file = pairs.find([a, b], [Version("1.0")], texts=lambda *_: SRC)
    assert [(o.first, o.second, o.kind) for o in on_file] == [("a", "b", Meet.GAP)]
    assert "insert at the same place" in on_file[0].what
    apply_check.refuse_unordered([a, b], [Version("1.0")])  # apply's check: not refused


@pytest.mark.parametrize(("op_a", "op_b"), APART)
def test_two_anchors_at_different_gaps_do_not_overlap(tmp_path: Path, op_a: str, op_b: str) -> None:
    a, b = entry(tmp_path, "a", op_a), entry(tmp_path, "b", op_b)
    assert pairs.find([a, b], [Version("1.0")], texts=lambda *_: SRC) == []


ENTRY = HEAD.format(supported=">=1.0,<2") + "  - id: {name}\n    {op}\n"


def test_apply_writes_the_same_file_in_either_order(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    write_registry("a", ENTRY.format(name="a", op=AFTER_LEN))
    reg = write_registry("b", ENTRY.format(name="b", op=BEFORE_TWICE))
    before = (site.root / "toypkg/core.py").read_bytes()
    results = []
    for names in (("a", "b"), ("b", "a"), ("a",), ("b",)):
        r = radpatch("--registry", str(reg), "apply", *names)
        assert r.code == 0, r.out + r.err
        if len(names) == 1:  # one at a time: the second onto the first
            continue
        results.append((site.root / "toypkg/core.py").read_bytes())
        assert radpatch("--registry", str(reg), "revert", "a", "b").code == 0
        assert (site.root / "toypkg/core.py").read_bytes() == before
    results.append((site.root / "toypkg/core.py").read_bytes())
    assert results[0] != before and results[0] == results[1] == results[2]


def test_verify_and_list_do_not_report_the_pair_whose_orders_write_one_file(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one decision apply takes (prove.overlaps.order_matters): tried on the release's file, either
    order writes the same file, so neither `verify` nor `list` reports the pair (ovl47); before verify
    has read the release, `list` says the two may overlap, not tried on a release's file."""
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")
    server: IndexServer = loopback("toypkg", {"1.0": {"toypkg/__init__.py": "", "toypkg/core.py": SRC}})
    assert server.url
    write_registry("a", ENTRY.format(name="a", op=AFTER_LEN))
    reg = write_registry("b", ENTRY.format(name="b", op=BEFORE_TWICE))
    r = radpatch("--registry", str(reg), "list")
    assert "overlap: " not in r.out, r.out  # no file: the registry text alone does not see one gap
    for argv in (("verify", "--all"), ("verify", "a"), ("list",)):
        r = radpatch("--registry", str(reg), *argv)
        assert "overlap: " not in r.out, (argv, r.out + r.err)

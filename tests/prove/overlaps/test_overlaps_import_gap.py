"""add_import, and set_constant of a new name, go into the gap after the module's imports; an
insertion anchored on the last import goes there too (att23 F2). Imports commute with imports, not
with a statement inserted at that gap: `list`/`verify` report the pair, and `apply` refuses it
unordered when the two orders write different files (and only then)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from radpatch.prove.overlaps.touching import Meet
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

SRC = "import os\n\nX = 1\nOTHER = 1\n\n\ndef f():\n    return X\n"

ADD_SYS = 'add_import: {import: "import sys"}'
ADD_JSON = 'add_import: {import: "import json"}'
NEW_CONST = "set_constant: {name: NEWC, value: 41}"
AFTER_OS = 'insert_after: {scope: <module>, find: "import os", code: "Z = 0"}'
AFTER_OS_JSON = 'insert_after: {scope: <module>, find: "import os", code: "json = None"}'
AFTER_OS_IMPORT = 'insert_after: {scope: <module>, find: "import os", code: "import re"}'
AFTER_X = 'insert_after: {scope: <module>, find: "X = 1", code: "Z = 0"}'

ENTRY = HEAD.format(supported=">=1.0,<2") + "  - id: {name}\n    {op}\n"


def _pair(reg: Path, op_a: str, op_b: str) -> list[Any]:
    return [write(reg, "a", f"  - id: a\n    {op_a}\n"), write(reg, "b", f"  - id: b\n    {op_b}\n")]


GAP = (Meet.GAP, "insert at the same place")
# the inserted code binds the name the import adds: the registry text shows it, before the file does
BINDS_JSON = (Meet.BINDS, "bind the same module-level name `json`")


@pytest.mark.parametrize(
    ("op_a", "op_b", "meets"),
    [
        pytest.param(ADD_SYS, AFTER_OS, GAP, id="add_import/insert_after the last import"),
        pytest.param(ADD_JSON, AFTER_OS_JSON, BINDS_JSON, id="add_import json/json = None after the last import"),
        pytest.param(NEW_CONST, AFTER_OS, GAP, id="set_constant new name/insert_after the last import"),
    ],
)
def test_an_insertion_at_the_import_gap_overlaps_on_the_file(
    tmp_path: Path, op_a: str, op_b: str, meets: tuple[Meet, str]
) -> None:
    a, b = _pair(tmp_path, op_a, op_b)
    found = pairs.find([a, b], [Version("1.0")], texts=lambda *_: SRC)
    assert [(o.first, o.second, o.kind) for o in found] == [("a", "b", meets[0])]
    assert meets[1] in found[0].what


@pytest.mark.parametrize(
    ("op_a", "op_b"),
    [
        pytest.param(ADD_SYS, AFTER_X, id="an insertion at another gap"),
        pytest.param(ADD_SYS, AFTER_OS_IMPORT, id="imports inserted at the gap: they commute"),
        pytest.param(ADD_SYS, ADD_JSON, id="two add_imports"),
    ],
)
def test_no_overlap_elsewhere_or_between_imports(tmp_path: Path, op_a: str, op_b: str) -> None:
    a, b = _pair(tmp_path, op_a, op_b)
    assert pairs.find([a, b], [Version("1.0")], texts=lambda *_: SRC) == []


@pytest.mark.parametrize(
    ("op_a", "op_b", "meets"),
    [
        pytest.param(ADD_SYS, AFTER_OS, GAP, id="add_import"),
        pytest.param(ADD_JSON, AFTER_OS_JSON, BINDS_JSON, id="add_import json/json = None: refused in both orders"),
        pytest.param(NEW_CONST, AFTER_OS, GAP, id="set_constant"),
    ],
)
def test_apply_refuses_the_unordered_pair_whose_orders_differ(
    site: Site, radpatch: Any, write_registry: Any, op_a: str, op_b: str, meets: tuple[Meet, str]
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    write_registry("a", ENTRY.format(name="a", op=op_a))
    reg = write_registry("b", ENTRY.format(name="b", op=op_b))
    for names in (("a", "b"), ("b", "a")):
        r = radpatch("--registry", str(reg), "apply", *names)
        assert r.code == 1, r.out + r.err
        assert f"{names[0]} and {names[1]} overlap" in r.err and meets[1] in r.err, r.err
        assert (site.root / "toypkg/core.py").read_text() == SRC  # nothing written
    ordered = write_registry("b", "requires: [a]\n" + ENTRY.format(name="b", op=op_b), dirname="r2")
    write_registry("a", ENTRY.format(name="a", op=op_a), dirname="r2")
    r = radpatch("--registry", str(ordered), "apply", "a", "b")
    if meets is BINDS_JSON:  # `json = None` lands above a's import, dead: a proven again on b's file is refused
        # (prove.below, att53 #1), as `apply b; apply a` is: ordered or not, the two cannot both stand
        assert r.code == 1 and "b undoes a's change" in r.err and "would rebind 'json'" in r.err, r.err
        assert (site.root / "toypkg/core.py").read_text() == SRC
        return
    assert r.code == 0, r.out + r.err


def test_apply_does_not_refuse_a_pair_whose_orders_write_the_same_file(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    """An add_import and an insertion before the first statement after the imports: `insert_before`
    stays next to its own anchor, so either order writes the same bytes: reported, not refused."""
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    write_registry("a", ENTRY.format(name="a", op=ADD_SYS))
    before_x = 'insert_before: {scope: <module>, find: "X = 1", code: "Z = 0"}'
    reg = write_registry("b", ENTRY.format(name="b", op=before_x))
    a, b = _pair(Path(reg), ADD_SYS, before_x)
    assert [o.kind for o in pairs.find([a, b], [Version("1.0")], texts=lambda *_: SRC)] == [Meet.GAP]
    r = radpatch("--registry", str(reg), "apply", "a", "b")
    assert r.code == 0, r.out + r.err
    assert "import sys" in (site.root / "toypkg/core.py").read_text()


@pytest.mark.parametrize(
    ("op_a", "op_b"),
    [
        pytest.param(ADD_SYS, AFTER_OS, id="add_import, then the insertion after the last import"),
        pytest.param(AFTER_OS, ADD_SYS, id="the insertion after the last import, then add_import"),
        pytest.param(NEW_CONST, AFTER_OS, id="set_constant, then the insertion"),
        pytest.param(AFTER_OS, NEW_CONST, id="the insertion, then set_constant"),
        pytest.param(ADD_SYS, 'insert_before: {scope: <module>, find: "X = 1", code: "Z = 0"}', id="same file"),
    ],
)
def test_a_pair_applied_in_two_stages_gets_the_one_stage_verdict(
    site: Site, radpatch: Any, write_registry: Any, op_a: str, op_b: str
) -> None:
    """Stage 1 applies a, stage 2 b: the check reads the file as it was before a (the kept
    original), as it does when neither is applied, not the file a patched (gx23)."""
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    write_registry("a", ENTRY.format(name="a", op=op_a))
    reg = write_registry("b", ENTRY.format(name="b", op=op_b))
    one = radpatch("--registry", str(reg), "apply", "a", "b")
    if one.code == 0:
        assert radpatch("--registry", str(reg), "revert", "a", "b").code == 0
    assert (site.root / "toypkg/core.py").read_text() == SRC
    assert radpatch("--registry", str(reg), "apply", "a").code == 0
    two = radpatch("--registry", str(reg), "apply", "b")
    assert two.code == one.code, two.out + two.err
    if one.code:
        assert ("a and b overlap" in two.err or "b and a overlap" in two.err) and "insert at the same place" in two.err

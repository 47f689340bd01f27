"""Overlaps the registry text shows although the two `find`s differ (issue 23, fix23): two
insertions at one place where one `find` has several statements, and an edit inside a definition
another entry replaces or deletes whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.releases import overlaps
from tests.lib.site import Site
from tests.releases.test_overlaps import HEAD, write

ONE = '  - id: {id}\n    {op}: {{scope: plan, find: "{find}", code: "{code}"}}\n'


def insertion(reg: Path, name: str, op: str, find: str, code: str) -> Any:
    return write(reg, name, ONE.format(id=name, op=op, find=find, code=code))


@pytest.mark.parametrize(
    ("op", "several", "one"),
    [
        ("insert_after", "size = len(spec)\\nif size > 4:\\n    size = 4", "if size > 4:\\n    size = 4"),
        ("insert_before", "size = len(spec)\\nif size > 4:\\n    size = 4", "size = len(spec)"),
    ],
)
def test_a_several_statement_find_inserts_where_its_edge_statement_alone_does(
    tmp_path: Path, op: str, several: str, one: str
) -> None:
    a = insertion(tmp_path, "a", op, several, "n = 3")
    b = insertion(tmp_path, "b", op, one, "n = 4")
    found = overlaps.find([a, b], [Version("1.0")])
    assert [(o.first, o.second, o.what) for o in found] == [("a", "b", "insert at the same anchor in plan")]
    with pytest.raises(RefusedError) as err:
        overlaps.refuse_unordered([a, b], [Version("1.0")])
    assert "a and b overlap" in err.value.message


def test_the_other_edge_of_a_several_statement_find_is_another_place(tmp_path: Path) -> None:
    # after the block's last statement is not after its first, nor before its first
    a = insertion(tmp_path, "a", "insert_after", "size = len(spec)\\nif size > 4:\\n    size = 4", "n = 3")
    b = insertion(tmp_path, "b", "insert_after", "size = len(spec)", "n = 4")
    c = insertion(tmp_path, "c", "insert_before", "if size > 4:\\n    size = 4", "n = 5")
    assert [(o.first, o.second) for o in overlaps.find([a, b, c], [Version("1.0")])] == []


def test_apply_refuses_two_insertions_at_one_place_in_either_order(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    write_registry(
        "a",
        HEAD.format(supported=">=1.0,<2")
        + ONE.format(id="a", op="insert_after", find="size = len(spec)\\nsize = size * 2", code="size = 3"),
    )
    reg = write_registry(
        "b",
        HEAD.format(supported=">=1.0,<2")
        + ONE.format(id="b", op="insert_after", find="size = size * 2", code="size = 4"),
    )
    before = (site.root / "toypkg/core.py").read_bytes()
    r = radpatch("--registry", str(reg), "list")
    assert "overlap: a (a) and b (b) both insert at the same anchor in plan" in r.out, r.out
    for names in (("a", "b"), ("b", "a")):
        r = radpatch("--registry", str(reg), "apply", *names)
        assert r.code == 1, r.out + r.err
        assert f"{names[0]} and {names[1]} overlap" in r.err
        assert (site.root / "toypkg/core.py").read_bytes() == before


CORE = "def plan(spec):\n    size = len(spec)\n    size = size * 2\n    return size\n"

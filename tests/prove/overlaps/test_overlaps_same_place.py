"""Overlaps the registry text shows although the two `find`s differ (issue 23, fix23): two
insertions at one place where one `find` has several statements, and an edit inside a definition
another entry replaces or deletes whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, pairs
from radpatch.prove.overlaps.touching import Meet
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

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
    found = pairs.find([a, b], [Version("1.0")])
    assert [(o.first, o.second, o.what) for o in found] == [("a", "b", "insert at the same anchor in plan")]
    with pytest.raises(RefusedError) as err:
        apply_check.refuse_unordered([a, b], [Version("1.0")])
    assert "a and b overlap" in err.value.message


def test_the_other_edge_of_a_several_statement_find_is_another_place(tmp_path: Path) -> None:
    # before the block's first statement is not after its last: either order writes the same code
    a = insertion(tmp_path, "a", "insert_after", "size = len(spec)\\nif size > 4:\\n    size = 4", "n = 3")
    d = insertion(tmp_path, "d", "insert_before", "size = len(spec)", "n = 4")
    assert [(o.first, o.second) for o in pairs.find([a, d], [Version("1.0")])] == []


def test_an_insertion_between_the_statements_of_a_several_statement_find_overlaps(tmp_path: Path) -> None:
    # after its first statement or before its last is inside the code `a` matches (gx23): run first,
    # it breaks a's match; this test said before that it was "another place"
    a = insertion(tmp_path, "a", "insert_after", "size = len(spec)\\nif size > 4:\\n    size = 4", "n = 3")
    b = insertion(tmp_path, "b", "insert_after", "size = len(spec)", "n = 4")
    c = insertion(tmp_path, "c", "insert_before", "if size > 4:\\n    size = 4", "n = 5")
    found = pairs.find([a, b, c], [Version("1.0")])
    assert [(o.first, o.second, o.what) for o in found] == [
        ("a", "b", "insert inside the code the other's `find` matches in plan"),
        ("a", "c", "insert inside the code the other's `find` matches in plan"),
    ]


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


WHOLE_DEF = """\
  - id: {id}
    {op}:
      scope: <module>
      find: |
        def plan(spec):
            size = len(spec)
            size = size * 2
            return size
{with_}"""
NEW_PLAN = """\
      with: |
        def plan(spec, cap=8):
            size = len(spec)
            return min(size, cap)
"""
INSIDE = '  - id: inside\n    insert_before: {scope: plan, find: "return size", code: "size += 1"}\n'
STACKED = '  - id: stacked\n    replace: {scope: plan, find: "size = len(spec)", with: "size = len(spec) + 1"}\n'
METHOD = """\
  - id: drop
    delete:
      scope: Engine
      find: |
        def stop(self):
            return 0
"""


def test_an_edit_inside_a_definition_another_deletes_whole_overlaps(tmp_path: Path) -> None:
    gone = write(tmp_path, "gone", WHOLE_DEF.format(id="gone", op="delete", with_=""))
    inside = write(tmp_path, "inside", INSIDE)
    wrapped = write(tmp_path, "wrapped", '  - id: w\n    wrap_body: {function: Engine.stop, with: "__body__"}\n')
    drop = write(tmp_path, "drop", METHOD)
    found = pairs.find([gone, inside, drop, wrapped], [Version("1.0")])
    assert [(o.first, o.second, o.what) for o in found] == [
        ("gone", "inside", "change plan (one replaces or deletes the definition whole, the other code of it)"),
        ("drop", "wrapped", "change Engine.stop (one replaces or deletes the definition whole, the other code of it)"),
    ]
    with pytest.raises(RefusedError) as err:
        apply_check.refuse_unordered([gone, inside], [Version("1.0")])
    assert "gone and inside overlap" in err.value.message


def test_an_edit_of_code_a_whole_definition_replace_writes_again_stacks_on_it(tmp_path: Path) -> None:
    stacked = write(tmp_path, "stacked", STACKED)
    new = write(tmp_path, "new", WHOLE_DEF.format(id="new", op="replace", with_=NEW_PLAN))
    found = pairs.find([stacked, new], [Version("1.0")])
    assert [(o.first, o.second, o.kind) for o in found] == [("new", "stacked", Meet.STACKS)]
    apply_check.refuse_unordered([stacked, new], [Version("1.0")])  # a series, the writer first: not refused


def test_apply_names_the_entry_that_deletes_the_definition(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    write_registry("gone", HEAD.format(supported=">=1.0,<2") + WHOLE_DEF.format(id="gone", op="delete", with_=""))
    reg = write_registry("inside", HEAD.format(supported=">=1.0,<2") + INSIDE)
    r = radpatch("--registry", str(reg), "list")
    assert "overlap: gone (gone) and inside (inside) both change plan" in r.out, r.out
    r = radpatch("--registry", str(reg), "apply", "gone", "inside")
    assert r.code == 1, r.out + r.err
    assert "gone and inside overlap" in r.err and "defines no" not in r.err

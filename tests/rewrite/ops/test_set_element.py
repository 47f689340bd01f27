"""add_element / remove_element: one element of a set, list or tuple display bound to a name.

Sources run through plan.plan as apply does (the proof, the structural inverse); the inverse is
byte-identical where the test says so; each refusal names where and what to write instead (an
element there already, an `after:` the display lacks, an element taken from elsewhere than its
inverse would put it back, a name bound to something else, a set left with no element). Also
loaded from YAML, as a registry writes it, and the `after:`+`before:` pair refused at its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RadpatchError
from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops import OPERATIONS
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.registry import entry_head, write_entry
from tests.lib.rewrites import check, refusal

HASHED = """\
class CacheConfig:
    def compute_hash(self) -> str:
        ignored_factors = {
            "num_cpu_blocks",
            # WIP feature toggle not impacting compiled graph shape
            "kv_sharing_fast_prefill",
        }
        return str(ignored_factors)
"""


def test_found_by_the_operations_table() -> None:
    assert OPERATIONS["add_element"] is SetElement and OPERATIONS["remove_element"] is SetElement


def test_added_as_the_last_element_of_a_set_in_a_method() -> None:
    op = SetElement("CacheConfig.compute_hash", "ignored_factors", '"enable_deferred_release"')
    check(
        HASHED,
        op,
        HASHED.replace(
            '"kv_sharing_fast_prefill",\n', '"kv_sharing_fast_prefill",\n            "enable_deferred_release",\n'
        ),
    )


@pytest.mark.parametrize(
    ("before", "op", "after"),
    [
        (
            "__all__ = ['a', 'b']\n",
            SetElement("<module>", "__all__", "'c'", after="'a'"),
            "__all__ = ['a', 'c', 'b']\n",
        ),
        (
            "__all__ = ('a', 'b')\n",
            SetElement("<module>", "__all__", "'c'", before="'a'"),
            "__all__ = ('c', 'a', 'b')\n",
        ),
        ("X: set[str] = {'a'}\n", SetElement("<module>", "X", "'b'"), "X: set[str] = {'a', 'b'}\n"),
        (
            "X = [\n    1,\n    2,\n]\n",
            SetElement("<module>", "X", "2", after="1", remove=True),
            "X = [\n    1,\n]\n",
        ),
        ("X = [1, 2, 3]\n", SetElement("<module>", "X", "2", after="1", remove=True), "X = [1, 3]\n"),
        ("X = [*Y, 1]\n", SetElement("<module>", "X", "2"), "X = [*Y, 1, 2]\n"),
    ],
)
def test_added_and_taken_away_in_the_display_layout(before: str, op: SetElement, after: str) -> None:
    check(before, op, after)


def test_a_tuple_left_with_one_element_keeps_its_comma() -> None:
    check("X = (1, 2)\n", SetElement("<module>", "X", "2", remove=True), "X = (1,)\n")
    check("X = (1,)\n", SetElement("<module>", "X", "2"), "X = (1, 2)\n")
    check("X = (1,)\n", SetElement("<module>", "X", "2", before="1"), "X = (2, 1)\n")


@pytest.mark.parametrize(
    ("before", "op", "said"),
    [
        ("X = [1, 2]\n", SetElement("<module>", "X", "2"), "X (line 1) holds the element 2 already"),
        ("X = [1, 2]\n", SetElement("<module>", "X", "3", after="5"), "X (line 1) has no element 5 (`after:`"),
        ("X = [1, 1]\n", SetElement("<module>", "X", "1", remove=True), "holds the element 1 2 times"),
        ("X = [1, 2]\n", SetElement("<module>", "X", "1", remove=True), "is not the display's last element"),
        ("X = [1, 2]\n", SetElement("<module>", "X", "3", remove=True), "X (line 1) has no element 3"),
        ("X = f(1)\n", SetElement("<module>", "X", "1"), "line 1 binds X but not as `X = {...}`, `[...]` or `(...)`"),
        ("X = [1]\nX = [2]\n", SetElement("<module>", "X", "3"), "the module binds X 2 times"),
        ("X = {1}\n", SetElement("<module>", "X", "1", remove=True), "leaves no element, and `{}` is a dict"),
    ],
)
def test_refused_saying_where_and_what(before: str, op: SetElement, said: str) -> None:
    assert said in refusal(before, op)


def test_loaded_from_yaml(tmp_path: Path) -> None:
    head = entry_head("ignore a field", "toypkg", {"reg": "toypkg.registry"})
    body = "      scope: CacheConfig.compute_hash\n      name: ignored_factors\n      element: '\"x\"'\n"
    entry = write_entry(
        tmp_path, "mine", head + "  - remove_element:\n" + body + "      after: '\"y\"'\n", dedent=False
    )
    assert load_patch(entry).rewrites[0].op == SetElement(
        "CacheConfig.compute_hash", "ignored_factors", '"x"', '"y"', remove=True
    )
    both = write_entry(
        tmp_path, "both", head + "  - add_element:\n" + body + "      after: a\n      before: b\n", dedent=False
    )
    with pytest.raises(RadpatchError) as info:
        load_patch(both)
    assert "give `after:` or `before:`, not both" in str(info.value)

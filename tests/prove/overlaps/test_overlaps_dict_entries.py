"""Issue 20: two `set_item`s adding different keys to one dict literal. Where each new entry goes
(the literal's end, or right after the entry of its `after:` key) decides the dict's key order when
both go to one place: both last, both after one key, or one after the key the other adds. Those
pairs overlap (list and verify report them, apply refuses them without `requires:`); two that go
after different keys already there, or one last and one after a key, write one dict in either order."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, gaps, pairs
from radpatch.prove.overlaps.touching import Meet
from radpatch.registry.model import Patch
from tests.lib.overlaps import write

SOURCE = 'MODELS = {\n    "a": 1,\n    "b": 2,\n}\n'
V = [Version("1.0")]


def _item(tmp_path: Path, name: str, key: str, after: str | None = None, requires: tuple[str, ...] = ()) -> Patch:
    at = "" if after is None else f", after: '\"{after}\"'"
    body = f'  - id: {name}\n    set_item: {{scope: <module>, name: MODELS, key: \'"{key}"\', value: "9"{at}}}\n'
    return write(tmp_path, name, body, requires=requires)


def _orders(one: Patch, two: Patch) -> tuple[str | None, str | None]:
    """The file each order of the two writes from SOURCE (None where that order fails)."""
    a, b = one.rewrites[0].op, two.rewrites[0].op
    return gaps.in_order(a, b, SOURCE), gaps.in_order(b, a, SOURCE)


@pytest.mark.parametrize(
    ("first", "second"),
    [(("x", None), ("y", None)), (("x", "a"), ("y", "a")), (("x", None), ("y", "x"))],
    ids=["both-last", "both-after-one-key", "after-the-others-key"],
)
def test_new_entries_at_one_place_overlap(
    tmp_path: Path, first: tuple[str, str | None], second: tuple[str, str | None]
) -> None:
    one, two = _item(tmp_path, "one", *first), _item(tmp_path, "two", *second)
    forward, backward = _orders(one, two)
    assert forward != backward  # the engine: the order decides the dict (or one order fails)
    (o,) = pairs.find([one, two], V)
    assert (o.kind, o.ordered, o.module) == (Meet.ANCHOR, False, "toypkg.core")
    assert "`MODELS`" in o.what and "key order" in o.what
    with pytest.raises(RefusedError) as err:
        apply_check.refuse_unordered([one, two], V)
    assert "requires: [one]" in err.value.hint
    ordered = _item(tmp_path, "two", *second, requires=("one",))
    assert all(o.ordered for o in pairs.find([one, ordered], V))
    apply_check.refuse_unordered([one, ordered], V)


@pytest.mark.parametrize(
    ("first", "second"),
    [(("x", "a"), ("y", "b")), (("x", None), ("y", "a")), (("x", "b"), ("y", None))],
    ids=["after-two-keys", "last-and-after-a", "after-the-last-key-and-last"],
)
def test_new_entries_at_two_places_do_not(
    tmp_path: Path, first: tuple[str, str | None], second: tuple[str, str | None]
) -> None:
    one, two = _item(tmp_path, "one", *first), _item(tmp_path, "two", *second)
    forward, backward = _orders(one, two)
    assert forward is not None and forward == backward  # the engine: one dict in either order
    assert pairs.find([one, two], V) == []


def test_the_same_new_key_twice_overlaps(tmp_path: Path) -> None:
    one, two = _item(tmp_path, "one", "x"), _item(tmp_path, "two", "x", "a")
    assert [o.kind for o in pairs.find([one, two], V)] == [Meet.NODE]
    with pytest.raises(RefusedError):
        apply_check.refuse_unordered([one, two], V)

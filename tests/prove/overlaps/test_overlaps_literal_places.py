"""Two rewrites adding to one literal at one place: the overlap names the literal as the entry
spells it (`NAME`, `dict(x=...)`, `reg(<argument 1>)`), never its syntax tree, and says what the
order decides: a dict's key order (set_item), the order of a display's elements (add_element).

Generated: the literal's address (a name, a call's keyword, a call's positional argument, a dotted
callee) x the operation (add_element, set_item) x the place (both last, both after one item)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from radpatch.prove.overlaps.touching import Meet
from radpatch.registry.model import Patch
from tests.lib.overlaps import write

V = [Version("1.0")]
ADDRESSES = {
    "name": ("name: MODELS", "`MODELS`"),
    "keyword": ("call: dict, keyword: x", "`dict(x=...)`"),
    "positional": ("call: reg, argument: 1", "`reg(<argument 1>)`"),
    "dotted": ("call: self.registry.add, keyword: x", "`self.registry.add(x=...)`"),
}
OPS = ("add_element", "set_item")
AFTER = (None, "'\"a\"'")


def _entry(tmp_path: Path, name: str, address: str, op: str, item: str, after: str | None) -> Patch:
    at = "" if after is None else f", after: {after}"
    what = f"element: '\"{item}\"'" if op == "add_element" else f"key: '\"{item}\"', value: '9'"
    body = f"  - id: {name}\n    {op}: {{scope: <module>, {ADDRESSES[address][0]}, {what}{at}}}\n"
    return write(tmp_path, name, body)


@pytest.mark.parametrize(("address", "op", "after"), list(itertools.product(ADDRESSES, OPS, AFTER)), ids=str)
def test_two_items_at_one_place_name_the_literal_as_written_and_what_the_order_decides(
    tmp_path: Path, address: str, op: str, after: str | None
) -> None:
    one, two = _entry(tmp_path, "one", address, op, "y", after), _entry(tmp_path, "two", address, op, "w", after)
    (o,) = pairs.find([one, two], V)
    assert o.kind is Meet.ANCHOR
    assert f"same place of {ADDRESSES[address][1]} (" in o.what, o.what
    assert "ctx=" not in o.what and "id=" not in o.what, o.what
    if op == "add_element":
        assert (
            "add an element" in o.what and "the order of its elements" in o.what and "dict" not in o.what.split("(")[-1]
        )
    else:
        assert "add an entry" in o.what and "the dict's key order" in o.what

"""A literal changed by its parts (add_element, remove_element, set_item with `call:`) and another
entry's rewrite that does not take the call whole (ovl44, issue 23 item 4): one that writes a call
the call-form rewrite may pick (`with:`, `code:`: a stack, B on A's written call), and a `replace`
whose `find` is the display itself. `list` and `verify` said nothing; apply installed what the order
gave, or refused late with a match failure.

Generated: the module (the call there, the call only in the code the other writes, the call bound
to a name) x the call-form rewrite (CALL_OPS) x its pick (none, `occurrence: 1`, `occurrence: 2`) x
the other rewrite (tests.lib.overlaps.CALL_WRITTEN_OTHERS) x entry order. Oracle: the rewrite runner
applies each entry on the module text, in both orders; they overlap exactly when the two orders
give different code or one of them fails (a pair neither order applies is judged only when each
entry applies alone). With the module text
the overlap rules must say exactly that; from the registry text alone they may say "may", never
nothing where the orders differ."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from radpatch.registry.model import Patch, Rewrite
from tests.lib.generated import sample
from tests.lib.overlaps import CALL_OPS, CALL_WRITTEN_OTHERS, CALL_WRITTEN_SRCS, orders_differ, write

PICKS = {"one call": "", "occurrence 1": ", occurrence: 1", "occurrence 2": ", occurrence: 2"}


def _cases() -> list[tuple[str, str, str, str, bool]]:
    return list(itertools.product(CALL_WRITTEN_SRCS, CALL_OPS, PICKS, CALL_WRITTEN_OTHERS, (False, True)))


@pytest.mark.parametrize(("src", "op", "pick", "other", "flip"), sample(_cases()), ids=str)
def test_a_call_form_rewrite_overlaps_exactly_when_the_order_matters(
    tmp_path: Path, src: str, op: str, pick: str, other: str, flip: bool
) -> None:
    text = CALL_WRITTEN_SRCS[src]
    a = write(tmp_path, "a", f"  - id: a\n    {CALL_OPS[op][0]}{PICKS[pick]}}}\n")
    b = write(tmp_path, "b", f"  - id: b\n    {CALL_WRITTEN_OTHERS[other]}\n")
    differ = orders_differ(a, b, text)
    if differ is None:
        pytest.skip("neither order applies, nor one of them alone: no pair to judge")
    entries = [b, a] if flip else [a, b]

    def texts(p: Patch, rw: Rewrite, v: Version) -> str:
        return text

    on_file = pairs.find(entries, [Version("1.0")], texts)
    assert bool(on_file) == differ, [o.describe() for o in on_file]
    if differ:  # from the registry text alone: reported (maybe as one that may meet), in either entry order
        assert pairs.find(entries, [Version("1.0")]), (src, op, pick, other)
    for o in on_file:
        assert {o.first, o.second} == {"a", "b"} and not o.ordered


# The same rule for a literal bound to a name (add_element/remove_element/set_item with `name:`): a
# `replace` whose `find` is the display itself may be that literal.
NAMED_SRC = 'CHOICES = ["a", "b"]\nOPTS = {"j": 0}\nOTHER = ["q"]\n'
NAMED_OPS = {
    "add_element": "add_element: {scope: <module>, name: CHOICES, element: '\"c\"'}",
    "remove_element": "remove_element: {scope: <module>, name: CHOICES, element: '\"b\"'}",
    "set_item": "set_item: {scope: <module>, name: OPTS, key: '\"k\"', value: '1'}",
}
NAMED_OTHERS = {
    "replace the list display": 'replace: {scope: <module>, find: \'["a", "b"]\', with: \'["z"]\'}',
    "replace the dict display": "replace: {scope: <module>, find: '{\"j\": 0}', with: '{\"z\": 0}'}",
    "replace another display": "replace: {scope: <module>, find: '[\"q\"]', with: '[\"z\"]'}",
}


@pytest.mark.parametrize(
    ("op", "other", "flip"), sample(list(itertools.product(NAMED_OPS, NAMED_OTHERS, (False, True)))), ids=str
)
def test_a_literal_bound_to_a_name_overlaps_a_replace_of_its_display_exactly_when_the_order_matters(
    tmp_path: Path, op: str, other: str, flip: bool
) -> None:
    a = write(tmp_path, "a", f"  - id: a\n    {NAMED_OPS[op]}\n")
    b = write(tmp_path, "b", f"  - id: b\n    {NAMED_OTHERS[other]}\n")
    differ = orders_differ(a, b, NAMED_SRC)
    assert differ is not None
    entries = [b, a] if flip else [a, b]

    def texts(p: Patch, rw: Rewrite, v: Version) -> str:
        return NAMED_SRC

    on_file = pairs.find(entries, [Version("1.0")], texts)
    assert bool(on_file) == differ, [o.describe() for o in on_file]
    if differ:
        assert pairs.find(entries, [Version("1.0")])

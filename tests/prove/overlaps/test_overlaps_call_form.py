"""A literal passed to a call (add_element, remove_element, set_item with `call:` and `keyword:` or
`argument:`) and another entry's rewrite whose code holds that call (elem43): the call-form touch
keyed the literal by the call's argument as picked, so no rule saw it inside a `replace` or `delete`
of the statement, nor in a `set_keyword` of the same keyword, nor in a second call-form rewrite of
the same argument picked another way; `list` and `verify` said nothing and apply failed on the
file. Now each such pair overlaps, in both entry orders, and apply refuses it with the words `list`
reports (tests/releases/test_overlaps_call_form_reported.py).

Generated: the call-form rewrite (add_element, remove_element, set_item; by keyword or position;
picked by `occurrence:` or not) x the other entry's rewrite (a replace of the statement, of the
call, a picked replace, a delete, a replace_body, a replace of the whole function, a set_keyword of
the keyword, a call-form rewrite of the same argument picked another way; and what must not meet:
another callee, a call passing no such argument, another keyword, picks plainly apart) x entry order."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from radpatch.prove.overlaps.touching import Meet
from tests.lib.generated import sample
from tests.lib.overlaps import CALL_OPS, PICKS, call_form_others, write


def expected(op: str, pick: str, other: str) -> Meet | None:
    """How the two meet (None: they do not). A `find` holding the call meets its literal: surely
    when neither picks, else `may nest` (which call and copy each picks, the file says)."""
    holding = ("replace statement", "replace call", "delete statement")
    if other in holding:
        return Meet.PART if pick == "one call" else Meet.MAY_NEST
    positional = CALL_OPS[op][1].startswith("#")
    return {
        "picked replace": Meet.MAY_NEST,
        "replace_body": Meet.BODY,
        "replace function": Meet.WHOLE,
        "set_keyword": None if positional else Meet.PART,
        # another `within:`: which calls each encloses, the file says; the same element (or entry) of one literal
        "same argument picked otherwise": Meet.NODE,
        # no `occurrence:` needs one call in the file: the other's second is that one or none
        "another occurrence": Meet.NODE if pick == "one call" else None,
    }.get(other)


def _cases() -> list[tuple[str, str, str, bool]]:
    out = []
    for op, pick, flip in itertools.product(CALL_OPS, PICKS, (False, True)):
        out.extend((op, pick, other, flip) for other in call_form_others(op, CALL_OPS[op][1]))
    return out


@pytest.mark.parametrize(("op", "pick", "other", "flip"), sample(_cases()), ids=str)
def test_a_call_form_rewrite_meets_what_holds_its_call(
    tmp_path: Path, op: str, pick: str, other: str, flip: bool
) -> None:
    yaml, argument = CALL_OPS[op]
    a = write(tmp_path, "a", f"  - id: a\n    {yaml}{PICKS[pick]}}}\n")
    b = write(tmp_path, "b", f"  - id: b\n    {call_form_others(op, argument)[other]}\n")
    found = pairs.find([b, a] if flip else [a, b], [Version("1.0")])
    kind = expected(op, pick, other)
    if kind is None:
        assert found == [], [o.describe() for o in found]
        return
    assert [o.kind for o in found] == [kind], [o.describe() for o in found]
    (o,) = found
    assert {o.first, o.second} == {"a", "b"} and "ctx=" not in o.what, o.what


@pytest.mark.parametrize(
    ("pick", "flip"), list(itertools.product(("", ", occurrence: 1", ", within: 'if p:'"), (0, 1)))
)
def test_a_set_keyword_meets_a_picked_find_holding_its_call(tmp_path: Path, pick: str, flip: int) -> None:
    """The `find` is kept for a picked replace too (the same rule for every node a `find` may hold):
    a set_keyword of a keyword its call passes may be inside the copy picked (`may nest`); with no
    pick it is (`part`), as before."""
    kw = write(
        tmp_path,
        "kw",
        "  - id: kw\n    set_keyword: {scope: build, call: p.add, keyword: opts, from: '{\"j\": 0}', to: '1'}\n",
    )
    code = call_form_others("add_element keyword", "choices")["replace call"].rstrip("}") + pick + "}"
    whole = write(tmp_path, "whole", f"  - id: whole\n    {code}\n")
    found = pairs.find([whole, kw] if flip else [kw, whole], [Version("1.0")])
    assert [o.kind for o in found] == [Meet.MAY_NEST if pick else Meet.PART], [o.describe() for o in found]

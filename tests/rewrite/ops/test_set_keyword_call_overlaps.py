"""Two set_keywords on calls to one callee, named by `call_occurrence:` (kw47, issue 20 item 1): the
touch of a set_keyword did not carry the call it picks, so two of them on DIFFERENT calls (`flag=`
added to call 1 and to call 3) met as "the same keyword" and `list`/`verify` reported them, apply's
rules found them. Now the touch names the call: two on different calls are apart, two on the same
call still meet, and one that picks its call otherwise (by its value, `occurrence:`) meets them all.

Generated: pairs of entries (ENTRIES: keywords added to, taken from or changed in calls to `mk`)
x the order they are listed in. Oracle: both entries run whole by the rewrite runner, A then B and
B then A (tests.lib.overlaps.orders_differ). Where both name their call by `call_occurrence:`, the
overlap rules (prove.overlaps.pairs, with the module text as list/verify/apply give it) report the
pair exactly when the orders differ or one fails; from the registry text alone, exactly so for two
of the same keyword. Where one picks its call otherwise, a pair whose orders differ is reported.
apply's check refuses exactly when both orders apply and write different code, and when neither
applies."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, pairs
from radpatch.registry.model import Patch, Rewrite
from tests.lib.generated import sample
from tests.lib.overlaps import orders_differ, run_entry, write

SRC = """\
def build(p):
    a = mk(1)
    b = mk(2, flag=True)
    c = mk(3, other=0)
    d = p.mk(4)
    return a, b, c, d
"""
_KW = "set_keyword: {scope: build, call: mk, "
# an entry's one rewrite, and whether it names its call by `call_occurrence:`, and the keyword
ENTRIES: dict[str, tuple[str, bool, str]] = {
    "flag=1 to call 1": (_KW + "keyword: flag, to: '1', call_occurrence: 1}", True, "flag"),
    "flag=0 to call 1": (_KW + "keyword: flag, to: '0', call_occurrence: 1}", True, "flag"),
    "flag=3 to call 3": (_KW + "keyword: flag, to: '3', call_occurrence: 3}", True, "flag"),
    "flag=3 before other, call 3": (_KW + "keyword: flag, to: '3', before: other, call_occurrence: 3}", True, "flag"),
    "flag taken from call 2": (_KW + "keyword: flag, from: 'True', call_occurrence: 2}", True, "flag"),
    "flag=True to call 1": (_KW + "keyword: flag, to: 'True', call_occurrence: 1}", True, "flag"),
    "extra=1 to call 1": (_KW + "keyword: extra, to: '1', call_occurrence: 1}", True, "extra"),
    "extra=1 to call 2": (_KW + "keyword: extra, to: '1', call_occurrence: 2}", True, "extra"),
    # picked by the value the call passes
    "flag True to False": (_KW + "keyword: flag, from: 'True', to: 'False'}", False, "flag"),
    "flag taken where True": (_KW + "keyword: flag, from: 'True'}", False, "flag"),
    "other 0 to 5": (_KW + "keyword: other, from: '0', to: '5'}", False, "other"),
}
V = [Version("1.0")]


def _texts(p: Patch, rw: Rewrite, v: Version) -> str:
    return SRC


def _refused(entries: list[Patch]) -> bool:
    try:
        apply_check.refuse_unordered(entries, V, (), _texts)
    except RefusedError:
        return True
    return False


CASES = sample([(a, b, flip) for a, b in itertools.combinations(ENTRIES, 2) for flip in (False, True)])


@pytest.mark.parametrize(("one", "other", "flip"), CASES, ids=str)
def test_set_keywords_overlap_exactly_when_they_may_change_one_call(
    tmp_path: Path, one: str, other: str, flip: bool
) -> None:
    (ya, named_a, kw_a), (yb, named_b, kw_b) = ENTRIES[one], ENTRIES[other]
    a, b = write(tmp_path, "a", f"  - id: a\n    {ya}\n"), write(tmp_path, "b", f"  - id: b\n    {yb}\n")
    differ = orders_differ(a, b, SRC)
    if differ is None:
        pytest.skip("neither order applies, nor one of them alone: no pair to judge")
    entries = [b, a] if flip else [a, b]
    on_file = bool(pairs.find(entries, V, _texts))
    from_text = bool(pairs.find(entries, V))
    said = (one, other, differ, on_file, from_text)
    if named_a and named_b:
        assert on_file is differ, said
        if kw_a == kw_b:
            assert from_text is differ, said
    elif differ:
        assert on_file, said
        if kw_a == kw_b:
            assert from_text, said
    both = [run_entry(b, run_entry(a, SRC)), run_entry(a, run_entry(b, SRC))]
    if None in both:  # one order only (reported above), or neither: refused
        if both == [None, None]:
            assert _refused(entries), said
        return
    disagree = ast.dump(ast.parse(both[0] or "")) != ast.dump(ast.parse(both[1] or ""))
    assert _refused(entries) is disagree, said

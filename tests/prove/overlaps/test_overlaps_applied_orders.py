"""A loaded entry against one applied in an earlier stage whose registry this run does not load
(ovl45, issue 23 item 4): the touches of its record met the loaded entry's, and apply refused,
though both orders write the same code. The record keeps the file right before and after the
applied entry: apply now runs both orders from it (prove.overlaps.recorded_orders).

Generated: the entry applied first (its registry r1) x the entry applied in a second stage (r2
only). Oracle: both entries loaded and run whole by the rewrite runner, in both orders, on the
module (tests.lib.overlaps.run_entry). Where both orders apply and write the same code, the second
stage applies; where they write different code, it is refused as an overlap naming both. (A pair
where one order fails is left to the rules: a stack, or a refusal.)"""

from __future__ import annotations

import ast
import itertools
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.overlaps import run_entry, stage, text
from tests.lib.site import Site

CORE = "def plan(spec):\n    total = 0\n    size = len(spec)\n    limit = 0\n    return total + size\n"
FIRST = {
    "total kept a 0": "replace: {scope: plan, find: 'total = 0', with: 'total = 0 + 1'}",
    "total loses its 0": "replace: {scope: plan, find: 'total = 0', with: 'total = 1'}",
    "insert after total": "insert_after: {scope: plan, find: 'total = 0', code: 'total += 1'}",
    "size": "replace: {scope: plan, find: 'size = len(spec)', with: 'size = len(spec) + 1'}",
    "the first 0 kept": "replace: {scope: plan, find: '0', with: '0 + 1', occurrence: 1}",
    "a 0 added before limit": "insert_after: {scope: plan, find: 'size = len(spec)', code: 'extra = 0'}",
    "a 0 added after total": "insert_after: {scope: plan, find: 'total = 0', code: 'extra = 0'}",
}

# Where the record cannot tell (prove.overlaps.recorded_orders) and the touches miss it: still missed.
KNOWN_MISSES = {
    ("the first 0 kept", "the first 0"): "both change one line: the applied entry's diff cannot be put on top",
    ("a 0 added before limit", "the second 0"): "the changes are on adjacent lines: the diff is not known to apply",
}
SECOND = {
    "the second 0": "replace: {scope: plan, find: '0', with: '9', occurrence: 2}",
    "the first 0": "replace: {scope: plan, find: '0', with: '9', occurrence: 1}",
    "limit": "replace: {scope: plan, find: 'limit = 0', with: 'limit = 3'}",
    "insert after total": "insert_after: {scope: plan, find: 'total = 0', code: 'total += 2'}",
    "len inside size": "replace: {scope: plan, find: 'len(spec)', with: 'len(spec) * 2'}",
}


def _entry(name: str, yaml: str) -> str:
    return f"  - id: {name}\n    {yaml}\n"


@pytest.mark.parametrize(("first", "second"), sample(list(itertools.product(FIRST, SECOND))), ids=str)
def test_a_second_stage_applies_exactly_when_both_orders_write_the_same_code(
    site: Site,
    radpatch: Any,
    write_registry: Any,
    tmp_path: Any,
    request: pytest.FixtureRequest,
    first: str,
    second: str,
) -> None:
    if (first, second) in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_MISSES[first, second], strict=True))
    from radpatch.registry.loader import load_patch
    from tests.lib.registry import write_entry

    a = load_patch(write_entry(tmp_path / "oracle", "pa", text(_entry("pa", FIRST[first]))))
    b = load_patch(write_entry(tmp_path / "oracle", "pb", text(_entry("pb", SECOND[second]))))
    both = [run_entry(b, run_entry(a, CORE)), run_entry(a, run_entry(b, CORE))]
    if None in both:
        pytest.skip("one order fails: a stack or a refusal, left to the rules")
    agree = ast.dump(ast.parse(both[0] or "")) == ast.dump(ast.parse(both[1] or ""))
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    one = stage(write_registry, "pa", _entry("pa", FIRST[first]), "r1")
    two = stage(write_registry, "pb", _entry("pb", SECOND[second]), "r2")
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    r = radpatch("--registry", str(two), "apply", "pb")
    if agree:
        assert r.code == 0, (first, second, r.err)
        assert ast.dump(ast.parse((site.root / "toypkg/core.py").read_text())) == ast.dump(ast.parse(both[0] or ""))
    else:
        assert r.code == 1 and "pb and pa overlap" in r.err, (first, second, r.out, r.err)

"""`list`, `verify` and `status --check` see an overlap with an entry applied from a registry this
run does not load (its record says what it changed), as `apply` refuses it: one test
(prove.overlaps.applied.clashes). A record that does not say what it changed is named as unchecked."""

from __future__ import annotations

import json
from typing import Any

from tests.lib.overlaps import AT_TOTAL, CORE, ELSEWHERE, older_record, stage, stages
from tests.lib.site import Site


def test_list_and_verify_report_an_overlap_with_an_entry_only_the_record_has(
    site: Site, radpatch: Any, write_registry: Any, loopback: Any
) -> None:
    loopback("toypkg", {"1.0": {"toypkg/__init__.py": "", "toypkg/core.py": CORE}})  # what verify reads
    one, two = stages(site, write_registry, AT_TOTAL.format(id="pb", n=2))
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    r = radpatch("--registry", str(two), "list")
    assert "overlap: pb and pa overlap: pb (pb) and pa (pa) both insert at the same anchor in plan" in r.out, r.out
    assert "pa is applied here (from a registry this run does not load)" in r.out
    r = radpatch("--registry", str(two), "verify", "pb")
    assert "overlap: pb and pa overlap" in r.out, r.out + r.err
    r = radpatch("--registry", str(two), "verify", "--all", "--json")
    assert [c["applied"] for c in json.loads(r.out)["applied_overlaps"]] == ["pa"], r.out + r.err
    # with both registries loaded there is no record-only entry: the registry test reports it once
    r = radpatch("--registry", str(one), "--registry", str(two), "list")
    assert r.out.count("overlap:") == 1 and "is applied here" not in r.out, r.out


def test_list_says_nothing_of_an_applied_entry_changing_other_code(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    one, two = stages(site, write_registry, ELSEWHERE)
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    assert "overlap" not in radpatch("--registry", str(two), "list").out


def test_status_check_fails_on_two_applied_entries_that_overlap_unordered(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    one, two = stages(site, write_registry, AT_TOTAL.format(id="pb", n=2))
    ordered = stage(write_registry, "pb", AT_TOTAL.format(id="pb", n=2), "r3", requires=("pa",))
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    assert radpatch("--registry", str(one), "--registry", str(ordered), "apply", "pb").code == 0
    assert radpatch("--registry", str(ordered), "status", "--check").code == 0  # pb still requires pa
    r = radpatch("--registry", str(two), "status", "--check")  # the entry lost its `requires:`
    assert r.code != 0, r.out + r.err
    assert "pb and pa overlap" in r.err and "Traceback" not in r.err


def test_list_says_it_cannot_check_against_a_record_that_does_not_say(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    one, two = stages(site, write_registry, ELSEWHERE)
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    older_record(site)
    r = radpatch("--registry", str(two), "list")
    assert "overlap: cannot check pb against pa: pb changes toypkg/core.py" in r.out, r.out

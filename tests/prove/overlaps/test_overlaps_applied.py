"""apply's overlap check against an entry applied earlier from a registry this run does not load
(two build stages, each with its own `--registry`): the record keeps what each entry changed."""

from __future__ import annotations

from typing import Any

from tests.lib.overlaps import AT_TOTAL, ELSEWHERE, older_record, stages
from tests.lib.site import Site


def test_a_later_stage_is_refused_an_entry_overlapping_one_applied_from_another_registry(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    one, two = stages(site, write_registry, AT_TOTAL.format(id="pb", n=2))
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    after_first = (site.root / "toypkg/core.py").read_bytes()
    r = radpatch("--registry", str(two), "apply", "pb")
    assert r.code == 1, r.out + r.err
    assert "pb and pa overlap" in r.err and "insert at the same anchor in plan" in r.err
    assert "requires: [pa]` to pb" in r.err and "pass pa's registry with --registry as well" in r.err
    assert (site.root / "toypkg/core.py").read_bytes() == after_first


def test_a_later_stage_changing_other_code_of_the_file_applies(site: Site, radpatch: Any, write_registry: Any) -> None:
    one, two = stages(site, write_registry, ELSEWHERE)
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    r = radpatch("--registry", str(two), "apply", "pb")
    assert r.code == 0, r.err
    assert "total = 1" in (site.root / "toypkg/core.py").read_text()
    assert "len(spec) + 1" in (site.root / "toypkg/core.py").read_text()


def test_a_record_that_does_not_say_what_it_changed_refuses_stacking_on_its_file(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    one, two = stages(site, write_registry, ELSEWHERE)
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    assert older_record(site)["patches"]["pa"]["touches"][0]["module"] == "toypkg.core"
    assert radpatch("--registry", str(one), "status").code == 0  # still readable
    r = radpatch("--registry", str(two), "apply", "pb")
    assert r.code == 1, r.out + r.err
    assert "pb changes toypkg/core.py, which the applied entry pa changed too" in r.err
    assert "pass pa's registry with --registry" in r.err
    assert radpatch("--registry", str(one), "--registry", str(two), "apply", "pb").code == 0

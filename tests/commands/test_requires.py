"""`requires:` orders a series: apply brings requirements first, revert keeps an entry an applied
entry requires, and a cycle or an unknown name is a registry error at the entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.lib.toy import UPPER


def _states(radpatch: Any, reg: Path, *names: str) -> dict[str, str]:
    out = json.loads(radpatch("--registry", str(reg), "status", "--json", *names).out)
    return {s["patch"]: s["state"] for s in out}


def test_apply_brings_what_an_entry_requires_first(toy: Path, write_registry: Any, radpatch: Any) -> None:
    write_registry("upper", UPPER)
    r = radpatch("--registry", str(toy), "apply", "upper")
    assert r.code == 0, r.err
    lines = [ln for ln in r.out.splitlines() if "applied to" in ln]
    assert [ln.split(":")[0] for ln in lines] == ["toy", "upper"]
    assert _states(radpatch, toy, "toy", "upper") == {"toy": "applied", "upper": "applied"}


def test_revert_of_a_requirement_is_refused_while_its_dependent_is_applied(
    site: Any, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    write_registry("upper", UPPER)
    pristine = (site.root / "toypkg" / "core.py").read_bytes()
    assert radpatch("--registry", str(toy), "apply", "upper").code == 0
    before = (site.root / "toypkg" / "core.py").read_bytes()
    r = radpatch("--registry", str(toy), "revert", "toy")
    assert r.code == 1
    assert "toy: upper is applied and requires it (`requires:`)" in r.err
    assert "radpatch revert upper toy" in r.err
    assert (site.root / "toypkg" / "core.py").read_bytes() == before  # nothing written
    r = radpatch("--registry", str(toy), "revert", "toy", "upper")  # either order: dependents come off first
    assert r.code == 0, r.err
    assert _states(radpatch, toy, "toy", "upper") == {"toy": "not-applied", "upper": "not-applied"}
    assert (site.root / "toypkg" / "core.py").read_bytes() == pristine


def test_a_cycle_is_a_registry_error_naming_it(toy: Path, write_registry: Any, radpatch: Any) -> None:
    write_registry("upper", UPPER.replace("requires: [toy]", "requires: [toy, lower]"))
    write_registry("lower", UPPER.replace("requires: [toy]", "requires: [upper]"))
    r = radpatch("--registry", str(toy), "apply", "upper")
    assert r.code == 2, r.err
    assert "requires: a cycle (upper -> lower -> upper)" in r.err and "upper.yaml" in r.err


def test_an_unknown_requirement_is_a_registry_error_at_the_entry(toy: Path, write_registry: Any, radpatch: Any) -> None:
    write_registry("upper", UPPER.replace("requires: [toy]", "requires: [toy, nothere]"))
    r = radpatch("--registry", str(toy), "apply", "upper")
    assert r.code == 2, r.err
    assert "upper.yaml: requires: 'nothere': unknown patch 'nothere'" in r.err


def test_show_says_what_an_entry_requires_and_what_requires_it(toy: Path, write_registry: Any, radpatch: Any) -> None:
    write_registry("upper", UPPER)
    lower = radpatch("--registry", str(toy), "show", "toy").out
    upper = radpatch("--registry", str(toy), "show", "upper").out
    assert "  required by:   upper\n" in lower and "requires:" not in lower
    assert "  requires:      toy (applied first)\n" in upper and "required by:" not in upper


def test_status_json_says_what_an_entry_requires_and_what_requires_it(
    toy: Path, write_registry: Any, radpatch: Any
) -> None:
    """att20d F3: status said nothing of the series; `show` alone did. Transitive, nearest first."""
    write_registry("upper", UPPER)
    write_registry("top", UPPER.replace("requires: [toy]", "requires: [upper]"))
    out = {s["patch"]: s for s in json.loads(radpatch("--registry", str(toy), "status", "--json").out)}
    assert (out["toy"]["requires"], out["toy"]["required_by"]) == ([], ["upper", "top"])
    assert (out["upper"]["requires"], out["upper"]["required_by"]) == (["toy"], ["top"])
    assert (out["top"]["requires"], out["top"]["required_by"]) == (["upper"], [])


def test_status_table_says_what_an_entry_requires(toy: Path, write_registry: Any, radpatch: Any) -> None:
    """att20 F5: the table's DETAIL says `requires: ...` as show and --json do, applied or not."""
    write_registry("upper", UPPER)
    write_registry("top", UPPER.replace("requires: [toy]", "requires: [upper, toy]"))
    for when in ("before", "after"):
        lines = {ln.split()[0]: ln for ln in radpatch("--registry", str(toy), "status").out.splitlines()[1:] if ln}
        assert lines["upper"].endswith("requires: toy"), (when, lines)
        assert lines["top"].endswith("requires: upper, toy"), (when, lines)
        assert "requires" not in lines["toy"], (when, lines)
        assert radpatch("--registry", str(toy), "apply", "upper").code == 0  # toy first, then upper

"""The SBOM of two entries stacked on one file that was then edited by hand: both are flagged and
treated alike (no diff for either, as `radpatch diff` refuses each), the note gives the real reason
(the file is not what radpatch wrote; the kept originals are all there), and stderr names both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lib.sbom import bom_of, props
from tests.lib.site import Site
from tests.lib.toy import TOY_SECOND as SECOND


def test_a_drifted_stacked_pair_gets_no_diff_for_either_with_the_real_reason(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    write_registry("second", SECOND)
    assert radpatch("--registry", str(toy), "apply", "toy", "second").code == 0
    core = site.root / "toypkg" / "core.py"
    core.write_text(core.read_text() + "\nHAND = 1\n")
    kept = list((site.root / ".radpatch" / "originals").iterdir())
    assert len(kept) >= 2  # the originals are there: that is not why a diff is missing
    for name in ("toy", "second"):
        r = radpatch("--registry", str(toy), "diff", name)
        assert r.code != 0 and "drifted" in r.err, r.out + r.err
    for registry in (("--registry", str(toy)), ()):
        r = radpatch(*registry, "status", "--format", "cyclonedx")
        assert r.code == 3, (registry, r.err)
        (component,) = bom_of(r.out)["components"]
        listed = dict(zip(props(component, "radpatch:patch"), component["pedigree"]["patches"], strict=True))
        assert sorted(listed) == ["second", "toy"]
        assert ["diff" in patch for patch in listed.values()] == [False, False], registry
        notes = component["pedigree"]["notes"]
        for name in ("toy", "second"):
            assert f"{name}: " in notes and f"`radpatch diff {name}` refuses it too" in notes
        assert notes.count("(no diff: toypkg/core.py is not the bytes radpatch wrote there") == 2, notes
        assert "kept original" not in notes
        assert len(r.err.strip().splitlines()) == 1 and "toy: " in r.err and "second: " in r.err, r.err

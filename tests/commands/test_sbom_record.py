"""`status --format cyclonedx` lists what the environment's record says radpatch changed.

A BOM made without the entries' registry (a later build stage, a scanner) lists them from the
record, diff included; the digest named is the revision applied, not the registry's current one;
a recorded entry whose file was changed by hand is listed, flagged, and the command exits 3.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from tests.lib.registry import write_entry
from tests.lib.sbom import bom_of, props
from tests.lib.site import Site
from tests.lib.toy import TOY_PATCH
from tests.lib.toy import TOY_SECOND as SECOND


def changes(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_without_the_registry_the_record_lists_every_applied_entry_with_its_diff(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    write_registry("second", SECOND)
    assert radpatch("--registry", str(toy), "apply", "toy", "second").code == 0
    full = bom_of(radpatch("--registry", str(toy), "status", "--format", "cyclonedx").out)
    diffs = {name: radpatch("--registry", str(toy), "diff", name).out for name in ("toy", "second")}
    r = radpatch("status", "--format", "cyclonedx")  # no registry holds them
    assert r.code == 0, r.err
    (component,) = bom_of(r.out)["components"]
    assert (component["name"], component["version"]) == ("toypkg", "1.0")
    assert sorted(props(component, "radpatch:patch")) == ["second", "toy"]
    listed = dict(zip(props(component, "radpatch:patch"), component["pedigree"]["patches"], strict=True))
    assert listed["second"]["diff"]["text"]["content"] == diffs["second"]  # the top of the stack: the same diff
    for name, diff in diffs.items():  # under another entry: the same changes, with the context of its time
        assert changes(listed[name]["diff"]["text"]["content"]) == changes(diff) != []
    (with_registry,) = full["components"]
    assert sorted(props(component, "radpatch:registry_digest")) == sorted(
        props(with_registry, "radpatch:registry_digest")
    )
    files = props(component, "radpatch:file")
    assert any(f.startswith("toy: toypkg/util.py sha256:") for f in files)
    assert all(v.endswith(": applied") for v in props(component, "radpatch:state"))


def test_the_digest_is_the_applied_revision_and_a_later_edit_of_the_entry_is_named_beside_it(
    site: Site, toy: Path, radpatch: Any
) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    (status,) = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)
    write_entry(toy, "toy", TOY_PATCH.replace("summary: Toy two-file patch", "summary: Toy two-file patch, edited"))
    (after,) = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)
    assert after["registry_digest"] != status["applied_registry_digest"]  # the registry has moved on
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx")
    (component,) = bom_of(r.out)["components"]
    assert props(component, "radpatch:registry_digest") == [status["applied_registry_digest"]]
    assert props(component, "radpatch:current_registry_digest") == [f"toy: {after['registry_digest']}"]
    assert "has changed since it was applied" in component["pedigree"]["notes"]


def test_a_recorded_entry_edited_by_hand_is_flagged_and_exits_3_with_or_without_its_registry(
    site: Site, toy: Path, radpatch: Any
) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    util = site.root / "toypkg" / "util.py"
    util.write_text(util.read_text() + "\nEXTRA = 1\n")
    for registry in (("--registry", str(toy)), ()):
        r = radpatch(*registry, "status", "--format", "cyclonedx")
        assert r.code == 3, (registry, r.err)
        (component,) = bom_of(r.out)["components"]
        assert props(component, "radpatch:patch") == ["toy"]
        (state,) = props(component, "radpatch:state")
        assert (
            state.startswith("toy: ") and "applied" != state[5:] and "NOT AS APPLIED" in component["pedigree"]["notes"]
        )
        assert "toy" in r.err and len(r.err.strip().splitlines()) == 1
        # its diff cannot be made: the note says which bytes are missing (the edited file's), not the original
        assert "(no diff: toypkg/util.py is not the bytes radpatch wrote there" in component["pedigree"]["notes"]
        assert "kept original" not in component["pedigree"]["notes"]


def test_a_recorded_entry_whose_kept_original_is_gone_says_so_in_its_note(site: Site, toy: Path, radpatch: Any) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    kept = [p for p in (site.root / ".radpatch").rglob("*") if p.is_file() and p.parent.name == "originals"]
    assert kept, "apply keeps the originals it replaced"
    for p in kept:
        p.unlink()
    r = radpatch("status", "--format", "cyclonedx")  # from the record alone
    (component,) = bom_of(r.out)["components"]
    (patch,) = component["pedigree"]["patches"]
    assert "diff" not in patch
    assert "(no diff: the kept original of toypkg/" in component["pedigree"]["notes"]


def test_each_file_property_is_the_hash_the_image_holds_under_stacked_entries(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    """`radpatch:file` is there to check the image by: for an entry with another stacked above it
    on the same file, it is the file as installed (what the upper entry left), not the bytes the
    lower entry wrote before the upper one changed them."""
    import hashlib

    write_registry("second", SECOND)
    assert radpatch("--registry", str(toy), "apply", "toy", "second").code == 0
    installed = {
        rel: hashlib.sha256((site.root / rel).read_bytes()).hexdigest() for rel in ("toypkg/core.py", "toypkg/util.py")
    }
    for registry in (("--registry", str(toy)), ()):
        (component,) = bom_of(radpatch(*registry, "status", "--format", "cyclonedx").out)["components"]
        files = props(component, "radpatch:file")
        shared = sorted(v for v in files if " toypkg/core.py " in v)
        assert shared == sorted(f"{n}: toypkg/core.py sha256:{installed['toypkg/core.py']}" for n in ("second", "toy"))
        assert f"toy: toypkg/util.py sha256:{installed['toypkg/util.py']}" in files


def test_a_comment_edit_is_not_drift_in_the_sbom_made_without_the_registry(
    site: Site, toy: Path, radpatch: Any
) -> None:
    """The BOM made from the record alone decides as status and the engine-start check do: a
    comment added to a patched file leaves it applied (its code hash is radpatch's)."""
    from radpatch import plugin

    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    util = site.root / "toypkg" / "util.py"
    util.write_text(util.read_text() + "\n# a note added in the image\n")
    assert radpatch("status", "--check", "toy").code == 0
    assert {c.name: c.state for c in plugin.check(site.root, package="toypkg")} == {"toy": plugin.Seen.APPLIED}
    r = radpatch("status", "--format", "cyclonedx")
    assert r.code == 0, r.err
    (component,) = bom_of(r.out)["components"]
    assert props(component, "radpatch:state") == ["toy: applied"]


def test_an_entry_whose_code_is_there_but_never_applied_is_not_listed_as_applied(
    site: Site, toy: Path, radpatch: Any
) -> None:
    """A second entry with the same rewrites as an applied one: the code in the file is the applied
    entry's (its recorded chain, exactly), so the twin is not applied (applying it adds its own copy,
    att23d F2) and the BOM must not count the change twice as two applied patches."""
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    write_entry(toy, "twin", textwrap.dedent(TOY_PATCH) + "upstream: [https://github.com/o/r/pull/1]\n")
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx")
    assert r.code == 0, r.out + r.err
    (component,) = bom_of(r.out)["components"]
    states = dict(s.split(": ", 1) for s in props(component, "radpatch:state"))
    assert states == {"toy": "applied"}, states
    assert [p["type"] for p in component["pedigree"]["patches"]] == ["unofficial"]
    r = radpatch("--registry", str(toy), "status", "twin")
    assert "not-applied" in r.out, r.out + r.err

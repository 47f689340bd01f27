"""An applied entry's `requires:` is kept in radpatch's record: a revert of the requirement is
refused even when the dependent's registry is not given, and `status --check` fails for an
applied entry whose requirement is not applied (for each way of losing the requirement)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.sbom import bom_of, props
from tests.lib.site import Site
from tests.lib.toy import TOY_FILES, TOY_PATCH

ON_TOP = """\
    summary: On top of toy
    description: Calls plan with the parameter toy adds (another module than toy's).
    distribution: toypkg
    supported: ">=1.0,<2"
    requires: [toy]
    modules:
      extra: toypkg.extra
    rewrites:
      - replace: {scope: use, find: "plan([1])", with: "plan([1], cfg=None)"}
    """
FILES = {**TOY_FILES, "toypkg/extra.py": "from toypkg.core import plan\n\n\ndef use():\n    return plan([1])\n"}


@pytest.fixture
def two(site: Site, write_registry: Callable[..., Path]) -> tuple[Path, Path]:
    site.install("toypkg", "1.0", FILES)
    return write_registry("toy", TOY_PATCH, dirname="reg_a"), write_registry("on_top", ON_TOP, dirname="reg_b")


def test_the_record_keeps_requires(site: Site, two: tuple[Path, Path], radpatch: Any) -> None:
    a, b = two
    assert radpatch("--registry", str(a), "--registry", str(b), "apply", "on_top").code == 0
    rec = json.loads((site.root / ".radpatch" / "record.json").read_text())["patches"]
    assert (rec["on_top"]["requires"], rec["toy"]["requires"]) == (["toy"], [])


def test_revert_of_a_requirement_is_refused_without_the_dependents_registry(
    site: Site, two: tuple[Path, Path], radpatch: Any
) -> None:
    a, b = two
    assert radpatch("--registry", str(a), "--registry", str(b), "apply", "on_top").code == 0
    core = (site.root / "toypkg" / "core.py").read_bytes()
    out = radpatch("--registry", str(a), "revert", "toy")
    assert out.code == 1, out
    assert "on_top is recorded as applied and requires it" in out.err and "--registry" in out.err, out.err
    assert (site.root / "toypkg" / "core.py").read_bytes() == core
    assert radpatch("--registry", str(a), "--registry", str(b), "revert", "on_top", "toy").code == 0


@pytest.mark.parametrize("loaded", ["both", "dependent only"])
def test_check_fails_for_an_applied_entry_whose_requirement_is_not_applied(
    site: Site, two: tuple[Path, Path], radpatch: Any, loaded: str
) -> None:
    """A record written before `requires:` was kept lets the requirement be reverted from under
    its dependent (its registry not given); `status --check` then fails, whichever registries it reads."""
    a, b = two
    assert radpatch("--registry", str(a), "--registry", str(b), "apply", "on_top").code == 0
    path = site.root / ".radpatch" / "record.json"
    rec = json.loads(path.read_text())
    for entry in rec["patches"].values():
        del entry["requires"]
    path.write_text(json.dumps(rec))
    assert radpatch("--registry", str(a), "revert", "toy").code == 0
    regs = ["--registry", str(a), "--registry", str(b)] if loaded == "both" else ["--registry", str(b)]
    out = radpatch(*regs, "status", "--check")
    assert out.code == 3 and "on_top" in out.err and "it requires toy, which is not applied" in out.err, out


SAME_FILE = """\
    summary: On top of toy, in toy's own file
    description: Rewrites the call toy's pass-cfg rewrite leaves (it matches only after toy).
    distribution: toypkg
    supported: ">=1.0,<2"
    requires: [toy]
    modules:
      core: toypkg.core
    rewrites:
      - replace: {scope: groups, find: "plan(spec, None)", with: "plan(spec, {})"}
    """


@pytest.mark.parametrize("edit", ["none", "comment on top", "comment in the function", "blank lines"])
def test_a_dependent_on_its_requirements_file_reads_not_applied_and_the_series_applies(
    site: Site, write_registry: Callable[..., Path], radpatch: Any, edit: str
) -> None:
    """Nothing applied, the file's code the wheel's (a comment or layout edit at most): the dependent
    reads not applied (never drifted), and applying it applies toy first, then it, then reverts."""
    site.install("toypkg", "1.0", FILES)
    a = write_registry("toy", TOY_PATCH, dirname="reg_a")
    b = write_registry("on_top", SAME_FILE, dirname="reg_b")
    core = site.root / "toypkg" / "core.py"
    text = core.read_text()
    edited = {
        "none": text,
        "comment on top": "# ops note\n" + text,
        "comment in the function": text.replace("    size = len(spec)\n", "    # why\n    size = len(spec)\n"),
        "blank lines": text.replace("\n\n\ndef groups", "\n\n\n\ndef groups"),
    }[edit]
    core.write_text(edited)
    regs = ("--registry", str(a), "--registry", str(b))
    st = radpatch(*regs, "status", "--json", "toy", "on_top")
    states = {p["patch"]: p["state"] for p in json.loads(st.out)}
    assert states == {"toy": "not-applied", "on_top": "not-applied"}, st.out
    assert radpatch(*regs, "apply", "on_top").code == 0
    assert "plan(spec, {})" in core.read_text() and "cfg=None" in core.read_text()
    assert radpatch(*regs, "status", "--check", "toy", "on_top").code == 0
    assert radpatch(*regs, "revert", "on_top", "toy").code == 0
    assert core.read_text() == edited


def test_a_dependent_on_a_file_someone_changed_is_still_refused_before_anything_is_written(
    site: Site, write_registry: Callable[..., Path], radpatch: Any
) -> None:
    """Reading not applied is not a licence: apply proves the requirement first, and a file whose
    code another hand changed is refused with nothing written."""
    site.install("toypkg", "1.0", FILES)
    a = write_registry("toy", TOY_PATCH, dirname="reg_a")
    b = write_registry("on_top", SAME_FILE, dirname="reg_b")
    core = site.root / "toypkg" / "core.py"
    changed = core.read_text().replace("return plan(spec)", "return plan(list(spec))")
    core.write_text(changed)
    out = radpatch("--registry", str(a), "--registry", str(b), "apply", "on_top")
    assert out.code != 0 and "Traceback" not in out.err, out
    assert core.read_text() == changed


OBSOLETE_BASE = """\
    summary: Upstream has it from 1.0
    description: A fix toypkg 1.0 already ships.
    distribution: toypkg
    supported: ">=0.5,<2"
    obsolete: ">=1.0"
    modules:
      core: toypkg.core
    rewrites:
      - id: four
        file: core
        replace: {scope: plan, find: "size = 4", with: "size = 5"}
    """
NEEDS_BASE = """\
    summary: Needs the fix
    description: Requires the entry that is obsolete on 1.0.
    distribution: toypkg
    supported: ">=0.5,<2"
    requires: [base]
    modules:
      util: toypkg.util
    rewrites:
      - id: triple
        file: util
        replace: {scope: scale, find: x * 2, with: x * 3}
    """


def test_a_requirement_obsolete_on_the_install_is_not_recorded_and_the_engine_start_check_agrees(
    site: Site, write_registry: Callable[..., Path], radpatch: Any
) -> None:
    """`base` is obsolete on toypkg 1.0 (the release ships it): `apply needs` applies `needs` alone,
    `status --check needs` passes, and the engine-start check, which reads no registry, must say
    the same: the record does not name a requirement radpatch never applied."""
    from radpatch import plugin

    site.install("toypkg", "1.0", TOY_FILES)
    reg = write_registry("base", OBSOLETE_BASE)
    write_registry("needs", NEEDS_BASE)
    assert radpatch("--registry", str(reg), "apply", "needs").code == 0
    assert radpatch("--registry", str(reg), "status", "--check", "needs").code == 0
    rec = json.loads((site.root / ".radpatch" / "record.json").read_text())["patches"]["needs"]
    assert rec.get("requires", []) == []
    (check,) = plugin.check(site.root, ("needs",), package="toypkg")
    assert check.state is plugin.Seen.APPLIED and check.satisfied, check


def test_the_sbom_and_diff_read_an_entry_whose_requirement_is_not_applied_as_status_does(
    site: Site, two: tuple[Path, Path], radpatch: Any
) -> None:
    """status, the CycloneDX SBOM and `diff` share one reading of the states (state.decide.states):
    the SBOM's `radpatch:state` of a dependent whose requirement was reverted from under it is
    status's drifted, not applied, and `diff` refuses it as it refuses any drifted entry."""
    a, b = two
    assert radpatch("--registry", str(a), "--registry", str(b), "apply", "on_top").code == 0
    path = site.root / ".radpatch" / "record.json"
    rec = json.loads(path.read_text())
    for entry in rec["patches"].values():
        del entry["requires"]  # a record from before `requires:` was kept: nothing stops the revert
    path.write_text(json.dumps(rec))
    assert radpatch("--registry", str(a), "revert", "toy").code == 0
    regs = ("--registry", str(a), "--registry", str(b))
    st = {p["patch"]: p for p in json.loads(radpatch(*regs, "status", "--json", "on_top").out)}
    assert st["on_top"]["state"] == "drifted", st
    r = radpatch(*regs, "status", "--format", "cyclonedx")
    (component,) = bom_of(r.out)["components"]
    states = dict(s.split(": ", 1) for s in props(component, "radpatch:state"))
    assert states["on_top"].startswith("drifted") and "it requires toy, which is not applied" in states["on_top"]
    d = radpatch(*regs, "diff", "on_top")
    assert d.code == 1 and "on_top: no diff: drifted" in d.err and "requires toy" in d.err, d

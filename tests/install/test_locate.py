"""Finding the target by what it provides (issue 11.1) and refusing what is ambiguous (issue 10.5)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.lib.site import Site
from tests.lib.toy import TOY_FILES, TOY_PATCH


def _state(radpatch: Any, toy: Path) -> dict[str, Any]:
    r = radpatch("--registry", str(toy), "status", "--json", "toy")
    assert r.code == 0, r.err
    (entry,) = json.loads(r.out)
    assert entry["schema_version"] == 2
    return entry  # type: ignore[no-any-return]


def test_another_distribution_installing_the_package_is_recognised(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    site.install("toypkg-fork", "1.0", TOY_FILES)
    toy = write_registry("toy", TOY_PATCH)
    entry = _state(radpatch, toy)
    assert (entry["state"], entry["distribution"], entry["provides"], entry["installed_version"]) == (
        "not-applied",
        "toypkg-fork",
        "toypkg",
        "1.0",
    )
    r = radpatch("--registry", str(toy), "status", "toy")
    assert "toypkg-fork 1.0 (provides toypkg)" in r.out
    applied = radpatch("--registry", str(toy), "apply", "toy")
    assert applied.code == 0, applied.err
    assert _state(radpatch, toy)["state"] == "applied"
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    assert _state(radpatch, toy)["state"] == "not-applied"


def test_version_of_the_providing_distribution_is_checked(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg-fork", "2.5", TOY_FILES)  # the toy entry supports >=1.0,<2
    toy = write_registry("toy", TOY_PATCH)
    entry = _state(radpatch, toy)
    assert entry["state"] == "incompatible" and "toypkg-fork 2.5 is installed" in entry["reason"]


def test_providers_named_restricts_to_the_listed_distributions(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg-fork", "1.0", TOY_FILES)
    toy = write_registry("toy", TOY_PATCH + "providers: named\n")
    entry = _state(radpatch, toy)
    assert entry["state"] == "not-installed"
    assert "toypkg-fork provides toypkg" in entry["reason"] and "accepts only toypkg" in entry["reason"]
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 1 and "not-installed" in r.err


def test_a_list_of_distributions_widens_a_named_entry(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg-fork", "1.0", TOY_FILES)
    text = TOY_PATCH.replace("distribution: toypkg", "distribution: [toypkg, toypkg-fork]") + "providers: named\n"
    toy = write_registry("toy", text)
    entry = _state(radpatch, toy)
    assert (entry["state"], entry["distribution"], entry["provides"]) == ("not-applied", "toypkg-fork", None)


def test_an_unrelated_distribution_is_not_taken(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("other", "1.0", {"other/__init__.py": "", "other/core.py": "x = 1\n"})
    toy = write_registry("toy", TOY_PATCH)
    entry = _state(radpatch, toy)
    assert entry["state"] == "not-installed" and entry["reason"].startswith("toypkg is not installed")


def test_two_providers_are_refused_naming_both(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg", "1.0", TOY_FILES)
    site.install("toypkg-fork", "1.0", TOY_FILES)
    toy = write_registry("toy", TOY_PATCH)
    before = site.snapshot()
    entry = _state(radpatch, toy)
    assert entry["state"] == "incompatible"
    assert (
        "toypkg 1.0 (toypkg-1.0.dist-info)" in entry["reason"]
        and "toypkg-fork 1.0 (toypkg-fork-1.0.dist-info)" in entry["reason"]
    )
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 1 and "toypkg-1.0.dist-info" in r.err and "toypkg-fork-1.0.dist-info" in r.err and "hint:" in r.err
    assert site.snapshot() == before


def test_a_stale_second_dist_info_is_refused_naming_both(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg", "1.0", TOY_FILES)
    stale = site.root / "toypkg-0.9.dist-info"
    stale.mkdir()
    (stale / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toypkg\nVersion: 0.9\n\n"
    )  # no RECORD: a half-removed install
    toy = write_registry("toy", TOY_PATCH)
    before = site.snapshot()
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 1, r.err
    assert "toypkg 0.9 (toypkg-0.9.dist-info)" in r.err and "toypkg 1.0 (toypkg-1.0.dist-info)" in r.err
    assert site.snapshot() == before
    shutil.rmtree(stale)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0


def test_a_shadowed_copy_later_on_the_path_is_ignored(
    site: Site, write_registry: Any, radpatch: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    later = Site(tmp_path / "later")
    later.root.mkdir()
    later.install("toypkg", "1.5", TOY_FILES)
    site.install("toypkg", "1.0", TOY_FILES)
    monkeypatch.syspath_prepend(str(later.root))
    monkeypatch.syspath_prepend(str(site.root))
    toy = write_registry("toy", TOY_PATCH)
    assert _state(radpatch, toy)["installed_version"] == "1.0"


def test_an_unpacked_wheel_in_the_current_directory_is_never_the_target(tmp_path: Path, write_registry: Any) -> None:
    """`python -m radpatch` starts sys.path with the current directory (and `--python` probes with `-c`)."""
    here = Site(tmp_path / "unpacked")
    here.root.mkdir()
    here.install("toypkg", "1.0", TOY_FILES)
    toy = write_registry("toy", TOY_PATCH)
    before = here.snapshot()
    for argv in (["apply", "toy"], ["--python", sys.executable, "apply", "toy"]):
        done = subprocess.run(
            [sys.executable, "-m", "radpatch", "--registry", str(toy), *argv],
            capture_output=True,
            text=True,
            cwd=here.root,
            timeout=120,
            env={"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": "/usr/bin:/bin"},
        )
        assert "toypkg is not installed" in done.stdout + done.stderr, done.stdout + done.stderr
    assert here.snapshot() == before


def test_a_restricted_entry_never_falls_back_to_a_shadowed_copy(
    site: Site, write_registry: Any, radpatch: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    later = Site(tmp_path / "later")
    later.root.mkdir()
    later.install("toypkg", "1.0", TOY_FILES)  # shadowed: `import toypkg` finds the fork first
    site.install("toypkg-fork", "1.0", TOY_FILES)
    monkeypatch.syspath_prepend(str(later.root))
    monkeypatch.syspath_prepend(str(site.root))
    toy = write_registry("toy", TOY_PATCH + "providers: named\n")
    before = later.snapshot()
    entry = _state(radpatch, toy)
    assert entry["state"] == "not-installed" and "toypkg-fork provides toypkg" in entry["reason"]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 1
    assert later.snapshot() == before


def test_a_restricted_entry_still_refuses_two_providers(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg", "1.0", TOY_FILES)
    site.install("toypkg-fork", "1.0", TOY_FILES)
    toy = write_registry("toy", TOY_PATCH + "providers: named\n")
    entry = _state(radpatch, toy)
    assert entry["state"] == "incompatible" and "toypkg-fork 1.0" in entry["reason"]

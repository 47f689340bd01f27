"""A release inside the entry's range that no `modules:` choice's `versions:` covers (a gap at the start,
in the middle or at the end of the table; one release or several) is decided as apply decides it (rel40,
issue 23 #1): apply picks, by the modules' code, the one choice whose file defines the scopes
(install.module_choice.pick); verify called the release "uncovered" (`module` failed) although apply changes it.
verify now names the choice apply picks (`chosen`), the matrix cell passes and says so, and port extends
that choice's `versions:` so that the table covers the release; where no choice defines the scopes, the
`module` check fails with apply's own words and says no choice covers the release.
Generated: gap shapes x releases; the reference is apply itself, run on the release installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy_releases import DIST, GOOD, PKG, REWRITES

OTHER = "def unrelated():\n    return 1\n"
RELEASES = {
    "1.0": {f"{PKG}/core.py": GOOD},
    "1.1": {f"{PKG}/core.py": GOOD},
    "1.2": {f"{PKG}/core.py": OTHER, f"{PKG}/planning.py": GOOD},  # size() moved to planning.py
    "1.3": {f"{PKG}/core.py": OTHER, f"{PKG}/planning.py": GOOD},
    "1.4": {f"{PKG}/core.py": OTHER, f"{PKG}/planning.py": OTHER, f"{PKG}/sizing.py": GOOD},  # in neither
}
SHAPES = {
    "gap at the start": [("rptoy.core", "==1.1"), ("rptoy.planning", ">=1.2")],
    "one in the middle": [("rptoy.core", "<1.1"), ("rptoy.planning", ">=1.2")],
    "several in the middle": [("rptoy.core", "<1.1"), ("rptoy.planning", ">=1.3")],
    "gap at the end": [("rptoy.core", "<1.2"), ("rptoy.planning", "==1.2")],
    "gaps everywhere": [("rptoy.core", "==1.1"), ("rptoy.planning", "==1.2")],
    "listed the other way": [("rptoy.planning", ">=1.3"), ("rptoy.core", "<1.1")],
}
CASES = sample([(shape, v) for shape in SHAPES for v in RELEASES])


def _entry(choices: list[tuple[str, str]], supported: str) -> str:
    listed = "".join(f"    - module: {m}\n" + f'      versions: "{r}"\n' for m, r in choices)
    return (
        f'summary: Cap the toy\'s size\ndescription: test\ndistribution: {DIST}\nsupported: "{supported}"\n'
        f"modules:\n  planner:\n{listed}{REWRITES}"
    )


def _covered(shape: str, version: str) -> bool:
    return any(SpecifierSet(r).contains(version) for _, r in SHAPES[shape])


@pytest.mark.parametrize(("shape", "version"), CASES, ids=[f"{s}-{v}" for s, v in CASES])
def test_a_gap_is_decided_as_apply_decides(
    shape: str, version: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site, no_shipped: None
) -> None:
    loopback(DIST, RELEASES)
    reg = str(write_registry("toy", _entry(SHAPES[shape], ">=1.0")))

    site.install(DIST, version, RELEASES[version])  # the reference: apply on the release installed
    before = site.snapshot()
    applied = radpatch("--registry", reg, "apply", "toy")
    changed = {rel for rel, data in site.snapshot().items() if rel in RELEASES[version] and before[rel] != data}

    verified = radpatch("--registry", reg, "verify", "toy", "--versions", f"=={version}", "--json")
    (result,) = [r for r in json.loads(verified.out)["results"] if r["version"] == version]
    matrix = json.loads(radpatch("--registry", reg, "verify", "--all", "--versions", f"=={version}", "--json").out)
    (cell,) = matrix["matrix"][0]["cells"]
    gap = not _covered(shape, version)
    if applied.code == 0:
        (rel,) = changed
        module = rel.removesuffix(".py").replace("/", ".")
        assert result["ok"], result
        assert result["modules"] == [module]
        if gap:  # the table does not decide: verify names apply's choice, and why
            (said,) = result["chosen"]
            assert said.startswith(f"planner: {module}, chosen by its code") and f"covers {version}" in said
            assert cell["detail"] == f"no `modules:` choice of 'planner' covers it: apply picks {module} by its code"
        else:
            assert result["chosen"] == []
        assert cell["cell"] == "pass", cell
    else:
        assert not changed
        assert not result["ok"] and cell["cell"] != "pass", (result, cell)
        if gap:  # apply's own words, and what is missing
            assert result["checks"]["module"] is False, result
            refused = applied.err.split("radpatch: error: ")[-1].split("\n")[0]
            words = refused.rsplit("toy: ", 1)[-1].split(";")[0]
            assert words in result["error"], (applied.err, result["error"])
            assert f"no `modules:` choice of 'planner' covers {version}" in result["error"]


PORTED = sample(list(SHAPES))


@pytest.mark.parametrize("shape", PORTED)
def test_port_extends_the_choice_apply_picks_in_a_gap(
    shape: str, loopback: Any, write_registry: Any, radpatch: Any, no_shipped: None
) -> None:
    loopback(DIST, RELEASES)
    reg = str(write_registry("toy", _entry(SHAPES[shape], "<1.4")))
    path = Path(reg) / "toy.yaml"
    wanted = [v for v in RELEASES if v != "1.4"]

    table = radpatch("--registry", reg, "verify", "--all", "--versions", "<1.4")
    assert table.code == 0, table.out + table.err
    for v in wanted:
        if not _covered(shape, v):  # the cell passes and says which module apply picks
            assert f"toy {v}: pass: no `modules:` choice of 'planner' covers it: apply picks rptoy." in table.out

    ported = radpatch("--registry", reg, "port", "toy", "--to", "<1.4")
    assert ported.code == 0, ported.out + ported.err
    doc = yaml.safe_load(path.read_text())
    choices = doc["modules"]["planner"]
    report = json.loads(radpatch("--registry", reg, "verify", "toy", "--json").out)
    for r in (r for r in report["results"] if r["in_range"]):
        covering = [c["module"] for c in choices if SpecifierSet(c["versions"]).contains(r["version"])]
        assert covering == r["modules"], (r["version"], choices, r)  # the table now decides, as apply picks
        assert r["ok"] and r["chosen"] == [], r

"""verify decides a `modules:` name whose choices' `versions:` overlap on a release as apply does
(issue 23, rel39 #7): apply picks, by the modules' code, the one choice whose file defines the
scopes (install.module_choice.pick); verify used to fail the release's `module` check ("declares no single
module"). Generated: overlap shapes (a span both ranges cover, one choice for any version, equal
ranges, a third choice not covering, the choices listed the other way round) x releases (only the
first module defines the scope, only the second, both, and the base before the move); the
reference is apply itself, run on the release installed: the file it changes, or its refusal.
verify names the choice it used."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy_releases import DIST, GOOD, PKG, REWRITES

OTHER = "def unrelated():\n    return 1\n"
RELEASES = {
    "1.0": {f"{PKG}/core.py": GOOD},  # before the move: only core.py
    "1.1": {f"{PKG}/core.py": OTHER, f"{PKG}/planning.py": GOOD},  # size() moved to planning.py
    "1.2": {f"{PKG}/core.py": GOOD, f"{PKG}/planning.py": OTHER},  # back in core.py, planning.py kept
    "1.3": {f"{PKG}/core.py": GOOD, f"{PKG}/planning.py": GOOD},  # both define it: apply refuses
}
SHAPES = {
    "a span both cover": [("rptoy.core", "<1.4"), ("rptoy.planning", ">=1.1")],
    "one taking every release": [("rptoy.core", ">=0"), ("rptoy.planning", ">=1.1")],
    "equal ranges": [("rptoy.core", ">=1.0"), ("rptoy.planning", ">=1.0")],
    "a third not covering": [("rptoy.core", "<1.4"), ("rptoy.planning", ">=1.1"), ("rptoy.gone", ">=2.0")],
    "listed the other way": [("rptoy.planning", ">=1.1"), ("rptoy.core", "<1.4")],
}
CASES = sample([(shape, v) for shape in SHAPES for v in RELEASES])


def _entry(choices: list[tuple[str, str]]) -> str:
    listed = "".join(f"    - module: {m}\n" + f'      versions: "{r}"\n' for m, r in choices)
    return (
        f'summary: Cap the toy\'s size\ndescription: test\ndistribution: {DIST}\nsupported: ">=1.0"\n'
        f"modules:\n  planner:\n{listed}{REWRITES}"
    )


@pytest.mark.parametrize(("shape", "version"), CASES, ids=[f"{s}-{v}" for s, v in CASES])
def test_overlapping_choices_are_decided_as_apply_decides(
    shape: str, version: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback(DIST, RELEASES)
    reg = str(write_registry("toy", _entry(SHAPES[shape])))

    site.install(DIST, version, RELEASES[version])  # the reference: apply on the release installed
    before = site.snapshot()
    applied = radpatch("--registry", reg, "apply", "toy")
    changed = {rel for rel, data in site.snapshot().items() if rel in RELEASES[version] and before[rel] != data}

    report = json.loads(radpatch("--registry", reg, "verify", "toy", "--versions", f"=={version}", "--json").out)
    (result,) = [r for r in report["results"] if r["version"] == version]
    if applied.code == 0:
        (rel,) = changed
        module = rel.removesuffix(".py").replace("/", ".")
        assert result["ok"], result
        assert result["modules"] == [module]
        covering = [m for m, r in SHAPES[shape] if version in _covered(r)]
        if len(covering) > 1:  # the table does not decide: verify names apply's choice
            assert (
                result["chosen"] == [result["chosen"][0]]
                and f"planner: {module}, chosen by its code" in (result["chosen"][0])
            )
    else:
        assert not changed
        assert result["checks"]["module"] is False, result
        refused = applied.err.split("radpatch: error: ")[-1].split("\n")[0]
        words = refused.rsplit("toy: ", 1)[-1].split(";")[0]
        assert words in result["error"], (applied.err, result["error"])


def _covered(spec: str) -> set[str]:
    from packaging.specifiers import SpecifierSet

    return {v for v in RELEASES if SpecifierSet(spec).contains(v)}

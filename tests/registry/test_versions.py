"""The pre-release policy (issue 11.2), modules located by their code (11.3), and the dependency floors (11.4).

These run under every packaging release tools/test.sh installs (the newest, and the floor from
tools/constraints-floor.txt), so the same expectations hold under packaging 24.2 and 26."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.registry import versions
from tests.lib import REPO
from tests.lib.toy import TOY_FILES, TOY_PATCH

SHIPPED = ">=0.22.0,<0.34"

# (installed version, admitted by the shipped range under `prereleases: accept`)
POLICY = [
    ("0.32.0", True),
    ("0.32.0+cu128", True),  # local labels are ignored by a range without one
    ("0.32.0+cpu", True),
    ("0.32.0.post1", True),
    ("0.33.1.dev42+g1234abc", True),  # a nightly inside the range
    ("0.32.0rc2.dev5+gabc", True),
    ("0.33.0rc1", True),
    ("0.22.0rc1", False),  # a pre-release comes before its release: outside >=0.22.0
    ("0.34.0rc1", False),  # <0.34 excludes 0.34's own pre-releases
    ("0.34.0.dev1", False),
    ("0.21.9", False),
    ("0.34.0", False),
]


@pytest.mark.parametrize("text,admitted", POLICY)
def test_policy_is_the_same_under_every_packaging(text: str, admitted: bool) -> None:
    v = Version(text)
    assert versions.allows(SpecifierSet(SHIPPED), v) is admitted
    why = versions.refusal(SpecifierSet(SHIPPED), SHIPPED, v, "accept", f"vllm {v} is installed; kv_group_size")
    assert (why is None) is admitted
    refused = versions.refusal(SpecifierSet(SHIPPED), SHIPPED, v, "refuse", "x")
    assert (refused is None) is (admitted and not v.is_prerelease)


def test_a_refused_prerelease_says_which_rule() -> None:
    spec = SpecifierSet(SHIPPED)
    below = versions.refusal(spec, SHIPPED, Version("0.22.0rc1"), "accept", "p")
    assert below is not None and "orders before 0.22.0 itself, so `>=0.22.0` excludes it" in below.message
    above = versions.refusal(spec, SHIPPED, Version("0.34.0rc1"), "accept", "p")
    assert above is not None and "`<0.34` exclude 0.34's own pre-releases" in above.message
    policy = versions.refusal(spec, SHIPPED, Version("0.33.1.dev42+g1234abc"), "refuse", "p")
    assert (
        policy is not None
        and "accepts only final releases (prereleases: refuse)" in policy.message
        and "development build of 0.33.1" in policy.message
    )
    plain = versions.refusal(spec, SHIPPED, Version("0.35.0"), "accept", "p")
    assert plain is not None and plain.message == f"p supports {SHIPPED}" and plain.hint == ""


def test_the_rc_between_two_module_ranges_is_in_neither() -> None:
    """What makes 11.3 necessary: by PEP 440, 0.33.0rc1 is in neither `<0.33` nor `>=0.33`."""
    rc = Version("0.33.0rc1")
    assert not versions.allows(SpecifierSet("<0.33"), rc) and not versions.allows(SpecifierSet(">=0.33"), rc)


def _status(radpatch: Any, reg: Path) -> dict[str, Any]:
    r = radpatch("--registry", str(reg), "status", "--json", "toy")
    assert r.code == 0, r.err
    (entry,) = json.loads(r.out)
    assert entry["schema_version"] == 2
    return entry  # type: ignore[no-any-return]


def test_prereleases_refuse_in_the_registry(site: Any, write_registry: Any, radpatch: Any) -> None:
    site.install("toypkg", "1.1.dev3+gabc", TOY_FILES)
    accept = write_registry("toy", TOY_PATCH, dirname="accept")
    assert _status(radpatch, accept)["state"] == "not-applied"
    refuse = write_registry("toy", TOY_PATCH + "prereleases: refuse\n", dirname="refuse")
    entry = _status(radpatch, refuse)
    assert entry["state"] == "incompatible" and "development build of 1.1" in entry["reason"]
    r = radpatch("--registry", str(refuse), "apply", "toy")
    assert r.code == 1 and "prereleases: refuse" in r.err


def test_an_invalid_prereleases_value_names_the_key(write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("toy", TOY_PATCH + "prereleases: maybe\n    providers: all\n")
    r = radpatch("--registry", str(reg), "show", "toy")
    assert r.code == 2
    assert re.search(r"toy\.yaml:\d+:\d+: at prereleases: 'maybe' is not one of: accept, refuse", r.err), r.err
    assert re.search(r"toy\.yaml:\d+:\d+: at providers: 'all' is not one of: any, named", r.err), r.err


MOVED = TOY_PATCH.replace(
    "      core: toypkg.core\n",
    """\
      core:
        - versions: "<1.5"
          module: toypkg.core
        - versions: ">=1.5"
          module: toypkg.planning
""",
).replace('">=1.0,<2"', '">=1.0,<3"')


def _moved_site(site: Any, version: str, files: dict[str, str]) -> None:
    site.install("toypkg", version, files)


def test_an_rc_between_module_ranges_resolves_by_code(site: Any, write_registry: Any, radpatch: Any) -> None:
    files = {**TOY_FILES, "toypkg/planning.py": "def other():\n    return 1\n"}
    _moved_site(site, "1.5rc1", files)  # in neither `<1.5` nor `>=1.5`; only core.py defines plan/groups
    reg = write_registry("toy", MOVED)
    entry = _status(radpatch, reg)
    assert entry["state"] == "not-applied", entry["reason"]
    assert {f["module"] for f in entry["files"]} == {"toypkg.core", "toypkg.util"}
    assert radpatch("--registry", str(reg), "apply", "toy").code == 0
    assert radpatch("--registry", str(reg), "revert", "toy").code == 0


def test_a_nightly_where_the_code_moved_resolves_by_code(site: Any, write_registry: Any, radpatch: Any) -> None:
    core = TOY_FILES["toypkg/core.py"]
    files = {
        "toypkg/__init__.py": "",
        "toypkg/util.py": TOY_FILES["toypkg/util.py"],
        "toypkg/planning.py": core,
        "toypkg/core.py": "X = 1\n",
    }
    _moved_site(site, "1.4.1.dev7+gdeadbee", files)  # the table says core (<1.5); the code moved already
    entry = _status(radpatch, write_registry("toy", MOVED))
    assert entry["state"] == "not-applied", entry["reason"]
    assert "toypkg.planning" in {f["module"] for f in entry["files"]}


def test_both_or_neither_defining_is_refused(site: Any, write_registry: Any, radpatch: Any, tmp_path: Path) -> None:
    core = TOY_FILES["toypkg/core.py"]
    _moved_site(site, "1.5rc1", {**TOY_FILES, "toypkg/planning.py": core})
    reg = write_registry("toy", MOVED)
    entry = _status(radpatch, reg)
    assert entry["state"] == "incompatible"
    assert (
        "toy: several modules declared for 'core' define plan and groups in toypkg 1.5rc1 (toypkg.core, "
        "toypkg.planning); give them `versions:` ranges that do not overlap" in entry["reason"]
    )
    (site.root / "toypkg" / "core.py").write_text("X = 1\n")
    (site.root / "toypkg" / "planning.py").write_text("Y = 2\n")
    entry = _status(radpatch, reg)
    assert entry["state"] == "incompatible"
    assert (
        "toy: none of the modules declared for 'core' (toypkg.core, toypkg.planning) defines plan and groups "
        "in toypkg 1.5rc1" in entry["reason"]
    )


def test_a_release_the_only_module_choice_does_not_cover_is_refused(
    site: Any, write_registry: Any, radpatch: Any
) -> None:
    _moved_site(site, "1.6", TOY_FILES)
    only = MOVED.replace('        - versions: ">=1.5"\n          module: toypkg.planning\n', "")
    reg = write_registry("toy", only)
    entry = _status(radpatch, reg)
    assert entry["state"] == "incompatible"
    assert "toy: declares no module 'core' for toypkg 1.6 (its range is <1.5)" in entry["reason"], entry["reason"]
    r = radpatch("--registry", str(reg), "apply", "toy")
    assert r.code == 1 and "declares no module 'core' for toypkg 1.6" in r.err and "Traceback" not in r.err, r.err


def test_a_final_release_follows_the_table(site: Any, write_registry: Any, radpatch: Any) -> None:
    core = TOY_FILES["toypkg/core.py"]
    _moved_site(site, "1.4", {**TOY_FILES, "toypkg/planning.py": core})  # both define it; the table says core
    entry = _status(radpatch, write_registry("toy", MOVED))
    assert entry["state"] == "not-applied" and "toypkg.core" in {f["module"] for f in entry["files"]}


def _floors() -> dict[str, str]:
    out = {}
    for line in (REPO / "tools" / "constraints-floor.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[name.lower()] = version
    return out


def test_the_floor_constraints_are_the_floors_pyproject_declares() -> None:
    text = (REPO / "pyproject.toml").read_text()
    block = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    declared = dict(re.findall(r'"([A-Za-z0-9_.-]+)>=([^",]+)"', block))
    assert {k.lower(): v for k, v in declared.items()} == _floors()


def test_this_interpreter_is_a_supported_one() -> None:
    assert (3, 10) <= sys.version_info[:2] <= (3, 13)


@pytest.mark.parametrize(
    "value,problem",
    [
        ('[toypkg, "bad name!"]', r"at distribution\[1\]: 'bad name!' is not a distribution name"),
        ("[]", r"at distribution: an empty list"),
    ],
)
def test_an_invalid_distribution_list_names_the_item(
    write_registry: Any, radpatch: Any, value: str, problem: str
) -> None:
    reg = write_registry("toy", TOY_PATCH.replace("distribution: toypkg", f"distribution: {value}"))
    r = radpatch("--registry", str(reg), "show", "toy")
    assert r.code == 2 and re.search(r"toy\.yaml:\d+:\d+: " + problem, r.err), r.err

"""Adversarial cases for `status --format cyclonedx` (issue 23): two distributions, a local version
such as CPU vLLM's `+cpu`, and an entry whose file was changed after apply.

Each BOM is validated against the CycloneDX 1.6 schema (cyclonedx-python-lib, test-only) and its
purls compared with packageurl-python's, the reference implementation of the purl spec.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from packageurl import PackageURL

from radpatch.commands.sbom import purl
from tests.lib.site import Site

OTHER = """\
summary: A patch of a second distribution
description: Caps a number.
distribution: other_pkg
supported: ">=2.0"
modules:
  m: other_pkg.m
rewrites:
  - id: cap
    replace: {scope: top, find: "return 10", with: "return 5"}
"""


def validate(text: str) -> dict[str, Any]:
    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    assert error is None, error
    return json.loads(text)  # type: ignore[no-any-return]


def test_two_distributions_one_with_a_local_version_are_two_valid_components(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    site.install("other_pkg", "2.0+cpu", {"other_pkg/__init__.py": "", "other_pkg/m.py": "def top():\n    return 10\n"})
    write_registry("other", OTHER)
    r = radpatch("--registry", str(toy), "apply", "toy", "other")
    assert r.code == 0, r.err
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx")
    assert r.code == 0, r.err
    bom = validate(r.out)
    by_name = {c["name"]: c for c in bom["components"]}
    assert set(by_name) == {"toypkg", "other_pkg"}
    other = by_name["other_pkg"]
    assert other["purl"] == PackageURL(type="pypi", name="other_pkg", version="2.0+cpu").to_string()
    assert other["pedigree"]["ancestors"][0]["purl"] == other["purl"]
    (patch,) = other["pedigree"]["patches"]
    assert patch["diff"]["text"]["content"] == radpatch("--registry", str(toy), "diff", "other").out
    refs = [c["bom-ref"] for c in bom["components"]] + [
        a["bom-ref"] for c in bom["components"] for a in c["pedigree"]["ancestors"]
    ]
    assert len(refs) == len(set(refs))


def test_an_entry_changed_after_apply_gives_a_valid_bom_and_no_internal_error(
    site: Site, toy: Path, radpatch: Any
) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    core = site.root / "toypkg" / "core.py"
    core.write_text(core.read_text().replace("size = 4", "size = 3"))  # a hand edit of the patched module
    state = radpatch("--registry", str(toy), "status", "toy").out
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx")
    bom = validate(r.out)
    listed = [p["value"] for c in bom["components"] for p in c["properties"] if p["name"] == "radpatch:patch"]
    assert listed == ["toy"]  # recorded as applied: in the image, whatever its files are now
    assert (r.code == 0) == (" applied " in state), (state, r.err)  # flagged, exit 3, unless status says applied


def test_the_purl_of_a_local_version_is_percent_encoded() -> None:
    # vLLM's CPU wheels are `0.33.0+cpu`: a raw `+` in a purl's version is not a valid purl

    for name, version in [("vllm", "0.33.0+cpu"), ("Radpatch_Toy", "1.0"), ("torch", "2.5.1+cpu.cxx11.abi")]:
        assert purl(name, version) == PackageURL(type="pypi", name=name, version=version).to_string()

"""`radpatch status --format cyclonedx`: the BOM of an environment with patches applied.

Validated against the CycloneDX 1.6 JSON schema that cyclonedx-python-lib ships (a test-only
dependency: the `test` extra); the diffs are compared with what `radpatch diff` prints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.lib.site import Site
from tests.lib.toy import TOY_SECOND as SECOND

UNAPPLIED = SECOND.replace("floor", "never").replace("max(size, 1)", "max(size, 2)")


def validate(text: str) -> None:
    # imported here: the validator's import builds jsonschema's format grammars (seconds), which every
    # test worker would otherwise pay at collection, whichever tests it runs
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    assert error is None, error


def test_two_applied_patches_are_the_pedigree_of_one_component(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    write_registry("second", SECOND)
    write_registry("unapplied", UNAPPLIED)
    assert radpatch("--registry", str(toy), "apply", "toy", "second").code == 0
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx")
    assert r.code == 0, r.err
    validate(r.out)
    bom = json.loads(r.out)
    assert bom["bomFormat"] == "CycloneDX" and bom["specVersion"] == "1.6"
    (component,) = bom["components"]
    assert (component["name"], component["version"], component["purl"]) == ("toypkg", "1.0", "pkg:pypi/toypkg@1.0")
    patches = component["pedigree"]["patches"]
    assert [p["type"] for p in patches] == ["unofficial", "unofficial"]  # no `upstream:` links
    assert [p["diff"]["text"]["content"] for p in patches] == [
        radpatch("--registry", str(toy), "diff", "second").out,
        radpatch("--registry", str(toy), "diff", "toy").out,
    ]
    assert "+    size = max(size, 1)" in patches[0]["diff"]["text"]["content"]
    assert [p["value"] for p in component["properties"] if p["name"] == "radpatch:patch"] == ["second", "toy"]
    assert "unapplied" not in r.out  # not applied: not in the image


def test_upstream_links_make_a_backport_that_resolves_them(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    links = ("https://github.com/vllm-project/vllm/pull/12345", "https://example.org/bug/7")
    write_registry("backport", f"upstream: [{', '.join(links)}]\n" + SECOND.replace("floor", "backported"))
    assert radpatch("--registry", str(toy), "apply", "backport").code == 0
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx", "backport")
    assert r.code == 0, r.err
    validate(r.out)
    (p,) = json.loads(r.out)["components"][0]["pedigree"]["patches"]
    assert p["type"] == "backport"
    assert [(x["id"], x["references"]) for x in p["resolves"]] == [
        ("vllm-project/vllm#12345", [links[0]]),
        (links[1], [links[1]]),
    ]
    # made without the registry (a later build stage, a scanner): the record keeps the links
    r = radpatch("status", "--format", "cyclonedx")
    assert r.code == 0, r.err
    validate(r.out)
    (alone,) = json.loads(r.out)["components"][0]["pedigree"]["patches"]
    assert alone["type"] == "backport" and alone["resolves"] == p["resolves"]


def test_nothing_applied_is_an_empty_but_valid_bom(site: Site, toy: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx")
    assert r.code == 0
    validate(r.out)
    assert json.loads(r.out)["components"] == []


def test_cyclonedx_does_not_combine_with_json_or_check(site: Site, toy: Path, radpatch: Any) -> None:
    """A usage error: said on stderr, exit 2; no BOM. stdout holds only the JSON error object every
    command asked for JSON (a BOM is JSON too) prints when it stops early (docs/cli.md, JSON on errors)."""
    for flag in ("--json", "--check"):
        r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx", flag)
        assert r.code == 2 and "does not combine" in r.err, r.err
        error = json.loads(r.out)
        assert error["exit_code"] == 2 and "does not combine" in error["error"] and "bomFormat" not in error

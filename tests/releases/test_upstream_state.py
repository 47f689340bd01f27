"""`radpatch list`: each entry's upstream state below the table (links, and obsolete-from once
verify has seen the releases that contain the change)."""

from __future__ import annotations

import json
from typing import Any

from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from tests.lib import REPO
from tests.lib.site import Site
from tests.lib.upstream_toy import GOOD, LINK, PATCHED, PKG, entry

ENTRY = entry("A toy patch upstream took in 3.0.", ">=1.0,<4")


def test_list_names_the_links_then_obsolete_from_once_verify_saw_it(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback("radpatch-toy", {"1.0": {f"{PKG}/core.py": GOOD}, "3.0": {f"{PKG}/core.py": PATCHED}})
    reg = write_registry("cap", ENTRY)
    before = radpatch("--registry", str(reg), "list")
    assert "upstream: cap: vllm-project/vllm#31337\n" in before.out
    v = radpatch("--registry", str(reg), "verify", "cap")
    assert v.code == 1  # a release of the declared range already has the change: retire or declare it
    assert f"radpatch-toy 3.0 already contains the change (declare it in `obsolete:`; upstream: {LINK})" in v.out
    after = radpatch("--registry", str(reg), "list")
    three = obsolete_words((Version("3.0"), Version("3.0")))
    assert f"upstream: cap: vllm-project/vllm#31337, {three} (verify read no later release)\n" in after.out


def test_status_json_carries_obsolete_upstream_as_the_table_says_it(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", {"1.0": {f"{PKG}/core.py": GOOD}, "3.0": {f"{PKG}/core.py": PATCHED}})
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "3.0", {f"{PKG}/core.py": PATCHED})
    before = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    assert before[0]["obsolete_upstream"] is None  # verify has not seen a release contain it yet
    radpatch("--registry", str(reg), "verify", "cap")
    table = radpatch("--registry", str(reg), "status", "cap").out
    (entry,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    assert f"{obsolete_words((Version('3.0'), Version('3.0')))} ({LINK})" in table
    assert entry["obsolete_upstream"] == {"from": "3.0", "upstream": [LINK]}
    section = (REPO / "docs" / "cli.md").read_text().split("### status --json")[1].split("\n### ")[0]
    assert [k for k in entry if f"| `{k}` |" not in section and f"`{k}`" not in section] == []


def test_status_json_says_nothing_of_upstream_below_the_first_release_that_contains_it(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", {"1.0": {f"{PKG}/core.py": GOOD}, "3.0": {f"{PKG}/core.py": PATCHED}})
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "1.0", {f"{PKG}/core.py": GOOD})
    radpatch("--registry", str(reg), "verify", "cap")
    (entry,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    assert entry["installed_version"] == "1.0" and entry["obsolete_upstream"] is None
    assert "obsolete upstream" not in radpatch("--registry", str(reg), "status", "cap").out

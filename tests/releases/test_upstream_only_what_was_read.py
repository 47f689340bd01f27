"""`status` and `list` say obsolete upstream only of the releases verify read (issue 23, att23d F4).

Upstream took the change in 3.0 and reverted it in 4.0. verify read 1.0 and 3.0 only: 4.0, installed,
was never read, so status must not call it obsolete upstream (its installed file decides: not
applied), and list names the releases read, not "from 3.0" onwards.
"""

from __future__ import annotations

import json
from typing import Any

from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from tests.lib.site import Site
from tests.lib.upstream_toy import GOOD, LINK, PATCHED, PKG, entry

ENTRY = entry("A toy patch upstream took in 3.0 and reverted in 4.0.", ">=1.0")
RELEASES = {
    "1.0": {f"{PKG}/core.py": GOOD},
    "3.0": {f"{PKG}/core.py": PATCHED},
    "4.0": {f"{PKG}/core.py": GOOD},  # upstream reverted the change
}


def test_status_does_not_call_an_unread_release_obsolete(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "4.0", {f"{PKG}/core.py": GOOD})
    v = radpatch("--registry", str(reg), "verify", "cap", "--versions", "<4")
    assert "radpatch-toy 3.0 already contains the change" in v.out  # verify read 3.0 as obsolete
    table = radpatch("--registry", str(reg), "status", "cap").out
    (entry,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    assert "obsolete upstream" not in table
    assert entry["obsolete_upstream"] is None
    assert entry["state"] == "not-applied"  # the installed file decides


def test_status_still_says_it_of_an_installed_release_verify_read(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "3.0", {f"{PKG}/core.py": PATCHED})
    radpatch("--registry", str(reg), "verify", "cap", "--versions", "<4")
    (entry,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    assert entry["obsolete_upstream"] == {"from": "3.0", "upstream": [LINK]}


def test_list_names_only_the_releases_verify_read(loopback: Any, write_registry: Any, radpatch: Any) -> None:
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", ENTRY)
    radpatch("--registry", str(reg), "verify", "cap", "--versions", "<4")
    out = radpatch("--registry", str(reg), "list").out
    assert "obsolete from 3.0" not in out
    three = obsolete_words((Version("3.0"), Version("3.0")))
    assert f"upstream: cap: vllm-project/vllm#31337, {three} (verify read no later release)\n" in out
    radpatch("--registry", str(reg), "verify", "cap")  # now 4.0 is read: not obsolete there
    assert "obsolete upstream" not in radpatch("--registry", str(reg), "list").out

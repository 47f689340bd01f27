"""The phrase "obsolete upstream in X..Y" covers only releases verify read (att23f F3): upstream took
the change in 1.1, reverted it in 1.2 and took it again in 1.3. verify skipped 1.2 (`!=1.2`), so
list, status and `status --json` must not run the span across it: "in 1.1, 1.3..1.4 (1.2 not
verified)". Running 1.2's code would give the unpatched result: calling it obsolete retires a fix.
"""

from __future__ import annotations

import json
from typing import Any

from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from tests.lib.site import Site
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, entry

ENTRY = entry("A toy patch upstream took in 1.1, reverted in 1.2 and took again in 1.3.", ">=1.0")
RELEASES = {
    "1.0": {f"{PKG}/core.py": GOOD},
    "1.1": {f"{PKG}/core.py": PATCHED},
    "1.2": {f"{PKG}/core.py": GOOD},  # upstream reverted the change
    "1.3": {f"{PKG}/core.py": PATCHED},
    "1.4": {f"{PKG}/core.py": PATCHED},
}
PHRASE = "obsolete upstream in 1.1, 1.3..1.4 (1.2 not verified)"


def test_a_skipped_release_breaks_the_span_in_list_status_and_json(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "1.3", {f"{PKG}/core.py": PATCHED})
    v = radpatch("--registry", str(reg), "verify", "cap", "--versions", "!=1.2")
    assert "radpatch-toy 1.3 already contains the change" in v.out
    listed = radpatch("--registry", str(reg), "list").out
    assert f"{PHRASE} (verify read no later release)" in listed
    assert "1.1..1.4" not in listed
    table = radpatch("--registry", str(reg), "status", "cap").out
    assert PHRASE in table and "1.1..1.4" not in table
    (st,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    assert st["obsolete_upstream"]["from"] == "1.1"  # the first release of the phrase


def test_once_the_reverted_release_is_read_it_is_named_as_without_the_change(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", ENTRY)
    radpatch("--registry", str(reg), "verify", "cap", "--versions", "!=1.2")
    radpatch("--registry", str(reg), "verify", "cap")  # now 1.2 is read: it does not contain the change
    listed = radpatch("--registry", str(reg), "list").out
    assert "obsolete upstream in 1.1, 1.3..1.4 (not in 1.2) (verify read no later release)" in listed
    assert "not verified" not in listed and obsolete_words((Version("1.1"), Version("1.4"))) not in listed

"""`status` and `list` say the same phrase of the releases verify found to contain an entry's change
(releases.summaries.obsolete_words): status of the run the installed release is in, list of the
last run verify read."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from tests.lib.site import Site

PKG = "rptoy"
GOOD = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
PATCHED = GOOD.replace("    return n", "    n = min(n, len(buckets))\n    return n")

ENTRY = f"""\
summary: Cap the toy's size by its buckets
description: A toy patch upstream took in 3.0.
distribution: radpatch-toy
supported: ">=1.0,<4"
modules:
  planner: {PKG}.core
rewrites:
  - id: cap
    insert_after:
      scope: size
      find: n = len(items)
      code: n = min(n, len(buckets))
"""


def test_status_and_list_say_one_phrase_of_the_releases_that_contain_the_change(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site, no_shipped: None
) -> None:
    core = f"{PKG}/core.py"
    loopback("radpatch-toy", {"1.0": {core: GOOD}, "3.0": {core: PATCHED}, "3.1": {core: PATCHED}})
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "3.0", {core: PATCHED})
    radpatch("--registry", str(reg), "verify", "cap")
    phrase = obsolete_words((Version("3.0"), Version("3.1")))
    st = radpatch("--registry", str(reg), "status", "cap")
    status = st.out + st.err
    listed = radpatch("--registry", str(reg), "list").out
    assert phrase in status, status
    assert f"upstream: cap: {phrase} (verify read no later release)\n" in listed, listed

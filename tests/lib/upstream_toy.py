"""The toy entry the upstream-state tests (tests/releases/test_upstream_*.py) write: `cap` inserts
a line into rptoy's `size`, which upstream took in 3.0 (`PATCHED`); `entry` gives its YAML with the
description and supported range each test tells its story by."""

from __future__ import annotations

from tests.lib.toy_releases import REWRITES

PKG = "rptoy"
GOOD = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
PATCHED = GOOD.replace("    return n", "    n = min(n, len(buckets))\n    return n")
LINK = "https://github.com/vllm-project/vllm/pull/31337"


def entry(description: str, supported: str) -> str:
    """The entry `cap`, upstream at LINK, for radpatch-toy `supported`."""
    return f"""\
upstream: [{LINK}]
summary: Cap the toy's size by its buckets
description: {description}
distribution: radpatch-toy
supported: "{supported}"
modules:
  planner: {PKG}.core
{REWRITES}"""

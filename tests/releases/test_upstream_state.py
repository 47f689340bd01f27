"""`radpatch list`: each entry's upstream state below the table (links, and obsolete-from once
verify has seen the releases that contain the change)."""

from __future__ import annotations

from typing import Any

PKG = "rptoy"
GOOD = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
PATCHED = GOOD.replace("    return n", "    n = min(n, len(buckets))\n    return n")

LINK = "https://github.com/vllm-project/vllm/pull/31337"
ENTRY = f"""\
upstream: [{LINK}]
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
    assert "upstream: cap: vllm-project/vllm#31337, obsolete from 3.0\n" in after.out

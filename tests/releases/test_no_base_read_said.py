"""A release where a rewrite does not match is "no match"; it is obsolete only when a base (a release
of the declared range where the rewrites apply) shows the change and the release carries it. verify
reads a bounded number of bases (radpatch.releases.base_search.search_order: the newest BASES of the
range, its first, the releases asked, then releases spread over it, MOST in all; port37 added the
spread, so a mid-range base is read). When the rewrites apply on none of those, the verdict is "no
match" conservatively: the release may hold the change in upstream's layout (lead of att23: a
mid-range base missed when only newer releases are asked). verify's reason, its JSON `error` and
the matrix's cell then say that it was not told and how to tell it; where a base was read they do
not (the release is obsolete, or does not carry the change).

Generated: ranges of 12 releases (read whole) and 30 (more than MOST: one base in the middle is
not read); the rewrites applying only on one release of the middle, on the first, or on the newest
below the asked; the releases after it upstream's spelling of the change or code that is neither;
the newest release or the newest two asked."""

from __future__ import annotations

import json
from typing import Any

import pytest
from packaging.version import Version

from radpatch.releases.base_search import search_order
from radpatch.releases.proof import NO_BASE
from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, UPSTREAM, entry

OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # neither the base nor the change
BASE_AT = {"middle": lambda count: count // 2 - 1, "first": lambda count: 0, "below asked": lambda count: count - 3}
ASKED = {"newest": 1, "newest two": 2}


@pytest.mark.parametrize(
    ("count", "base", "after", "asked"),
    sample([(c, b, a, q) for c in (12, 30) for b in BASE_AT for a in ("upstream", "other") for q in ASKED]),
)
def test_a_no_match_says_when_no_base_was_read(
    loopback: Any, write_registry: Any, radpatch: Any, count: int, base: str, after: str, asked: str
) -> None:
    at = BASE_AT[base](count)
    later = UPSTREAM if after == "upstream" else OTHER
    loopback(
        "radpatch-toy",
        {f"1.{i}": {f"{PKG}/core.py": GOOD if i == at else OTHER if i < at else later} for i in range(count)},
    )
    reg = write_registry("cap", entry("A toy patch over an open range.", ">=1.0"))
    spec = f">=1.{count - ASKED[asked]}"
    newest = [Version(f"1.{i}") for i in range(count)][::-1]
    asked_versions = newest[: ASKED[asked]]
    read = {v.minor for v in (*search_order(newest, asked_versions)[-1], *asked_versions)}  # by the rule
    found = at in read
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", spec)
    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", spec, "--json").out)
    grid = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--versions", spec, "--json").out)
    cells = {c["version"]: c for c in grid["matrix"][0]["cells"]}
    for r in report["results"]:
        cell = cells[r["version"]]
        if found and after == "upstream":
            assert cell["cell"] == "obsolete", (cell, text.out)
            continue
        assert cell["cell"] == "no match", (cell, text.out)
        said = [NO_BASE in r["error"], NO_BASE in cell["detail"], NO_BASE in text.out]
        assert said == [not found] * 3, (said, r["error"], cell, text.out)

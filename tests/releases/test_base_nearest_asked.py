"""The bases verify reads first are the releases of the declared range nearest those asked (port36,
issue 23): a release `supported:` excludes (`>=1.0,!=1.5`, it failed once) and that is asked about
later (`verify --versions ==1.5`) had only the newest BASES and the range's first read as bases, so
a base beside it (the releases the entry was written for around it) was missed and the release said
"no match: not told" though it holds upstream's change. Now the BASES nearest it are read first;
for releases newer than the range they are its newest, as before (tests/releases/
test_base_search_bounded.py holds the bound).

Generated: twelve releases; the excluded release 1.K (K of 3, 5, 6) holds upstream's spelling of
the change; the rewrites apply only on one release 1 or 2 releases below or above it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from radpatch.releases.base_search import BASES
from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, UPSTREAM, entry

COUNT = 12
OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # neither the base nor the change


@pytest.mark.parametrize(("gap", "offset"), sample([(k, d) for k in (3, 5, 6) for d in (-2, -1, 1, 2)]))
def test_an_excluded_release_asked_about_reads_the_bases_beside_it(
    loopback: Any, write_registry: Any, radpatch: Any, gap: int, offset: int
) -> None:
    base = gap + offset
    files = {i: UPSTREAM if i == gap else GOOD if i == base else OTHER for i in range(COUNT)}
    loopback("radpatch-toy", {f"1.{i}": {f"{PKG}/core.py": code} for i, code in files.items()})
    reg = write_registry("cap", entry("A toy patch; 1.K failed once.", f">=1.0,!=1.{gap}"))
    r = radpatch("--registry", str(reg), "verify", "cap", "--versions", f"==1.{gap}", "--json")
    report = json.loads(r.out)
    assert report["obsolete"] == [f"1.{gap}"], r.out
    read = report["bases_read"]
    assert f"1.{base}" in read and len(read) <= BASES + 1, read
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", f"==1.{gap}").out
    said = re.search(r"^read \d+ releases? outside those verified .*nearest those verified.*$", text, re.M)
    assert said and f"1.{base}" in said.group(0), text

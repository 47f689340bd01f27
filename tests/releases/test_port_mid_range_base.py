"""`port` to a newer release finds the entry's change on a base in the middle of its range
(port37, issue 23): verify read only the newest BASES releases of the range and its first, so an
entry whose rewrites apply only on mid-range releases got "no match" on a release that holds
upstream's spelling of the change. Now bases spread over the range are read (base_search.MOST at
most), the release is obsolete there, port says so and edits nothing, and verify says how many
releases it read.

Generated: ranges of 16 and 20 releases; the rewrites applying on two releases a quarter, half or
three quarters into the range, neither the base nor the change elsewhere; the release after the
range upstream's spelling."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from radpatch.releases.base_search import MOST
from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, UPSTREAM, entry

OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # neither the base nor the change


@pytest.mark.parametrize(("count", "where"), sample([(c, w) for c in (16, 20) for w in (1, 2, 3)]))
def test_port_to_a_newer_release_reads_a_base_in_the_middle(
    loopback: Any, write_registry: Any, radpatch: Any, count: int, where: int
) -> None:
    at = count * where // 4
    code = {i: GOOD if i in (at, at + 1) else OTHER for i in range(count)}
    code[count] = UPSTREAM
    loopback("radpatch-toy", {f"1.{i}": {f"{PKG}/core.py": c} for i, c in code.items()})
    reg = write_registry("cap", entry("A toy patch; upstream took it after.", f">=1.0,<1.{count}"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", f"1.{count}")
    assert f"1.{count} already contains the change" in r.out + r.err, (r.out, r.err)
    assert "no match" not in r.out + r.err, (r.out, r.err)
    assert (reg / "cap.yaml").read_bytes() == before
    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", f"==1.{count}", "--json").out)
    assert report["obsolete"] == [f"1.{count}"], report
    read = report["bases_read"]
    assert len(read) <= MOST and f"1.{at}" in read or f"1.{at + 1}" in read, read
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", f"==1.{count}").out
    said = re.search(r"^read (\d+) releases outside those verified .*$", text, re.M)
    assert said and int(said.group(1)) == len(read), text

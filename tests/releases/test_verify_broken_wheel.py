"""One release whose wheel cannot be read (rel38b, issue 23): verify fails that release's `wheel`
check, naming the file, and reads and proves the others; the matrix fills that entry's row as usual.
It was exit 4 ("not a readable zip file") for the whole run, and a matrix row of "not verified".

Generated: ways a served wheel is broken (truncated, its tail cut, not a zip at all, a member's
compressed bytes damaged, a member unlike its RECORD) x the index answering range requests or not.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from radpatch.errors import EXIT_REFUSED
from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, entry
from tests.lib.wheels import unlike_record

ENTRY = entry("A toy patch every release needs.", ">=1.0")
RELEASES = {v: {f"{PKG}/core.py": GOOD} for v in ("1.0", "1.1", "1.2", "1.3")}
BROKEN = "1.2"


def _member_bytes_damaged(data: bytes) -> bytes:
    """The module's deflated bytes overwritten in place (the zip's directory still reads)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(f"{PKG}/core.py")
    start = info.header_offset + 30 + len(info.orig_filename.encode()) + len(info.extra)
    return data[:start] + b"\xff" * info.compress_size + data[start + info.compress_size :]


BREAKS: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda data: data[: len(data) // 2],
    "tail-cut": lambda data: data[:-10],
    "not-a-zip": lambda data: b"<html><body>503 Service Unavailable</body></html>\n",
    "member-damaged": _member_bytes_damaged,
    "unlike-record": lambda data: unlike_record(data, f"{PKG}/core.py"),
}


def _break(server: Any, how: str) -> str:
    (wheel,) = [p for p in Path(server.root).iterdir() if f"-{BROKEN}-" in p.name]
    wheel.write_bytes(BREAKS[how](wheel.read_bytes()))
    return wheel.name


@pytest.mark.parametrize(("how", "ranges"), sample([(h, r) for h in BREAKS for r in (True, False)]))
def test_one_broken_wheel_fails_its_release_only(
    how: str, ranges: bool, loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    server = loopback("radpatch-toy", RELEASES)
    server.ranges = ranges
    name = _break(server, how)
    reg = write_registry("cap", ENTRY)
    (reg / "cap2.yaml").write_text(ENTRY)  # the matrix: two entries of the distribution
    r = radpatch("--registry", str(reg), "verify", "cap", "--json")
    assert r.code == EXIT_REFUSED and "Traceback" not in r.err, (r.code, r.out, r.err)
    got = {x["version"]: x for x in json.loads(r.out)["results"]}
    assert [v for v, x in got.items() if not x["ok"]] == [BROKEN], got
    assert got[BROKEN]["checks"]["wheel"] is False
    assert got[BROKEN]["error"].startswith("wheel: ") and name in got[BROKEN]["error"], got[BROKEN]
    table = radpatch("--registry", str(reg), "verify", "cap", "cap2")
    assert table.code == EXIT_REFUSED and "not verified" not in table.out, table.out + table.err
    m = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap2", "--json").out)
    assert [row["patch"] for row in m["matrix"]] == ["cap", "cap2"]
    for row in m["matrix"]:
        cells = {c["version"]: c for c in row["cells"]}
        assert {v: c["cell"] for v, c in cells.items() if v != BROKEN} == {v: "pass" for v in RELEASES if v != BROKEN}
        assert cells[BROKEN]["cell"] == "fail" and name in cells[BROKEN]["detail"], cells[BROKEN]

"""Obsolete upstream is read off any release of the declared range the rewrites apply to, not
only the newest few (radpatch.releases.verifier): an open `supported:` whose upstream took the
change long ago says `obsolete` on those releases, as the entry declared for its first release
alone does, not `no match`.

Generated: seven releases, upstream's own spelling of the change landing at release `land`; the
same entry with several ranges, from `==1.0` to open. Every range that holds a release where the
rewrites apply must give the same obsolete releases as the narrowest one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, UPSTREAM, entry

COUNT = 7


def _releases(land: int) -> dict[str, dict[str, str | bytes]]:
    return {f"1.{i}": {f"{PKG}/core.py": GOOD if i < land else UPSTREAM} for i in range(COUNT)}


def _ranges(land: int) -> dict[str, str]:
    """Entry name -> supported: the first release only, ranges ending at each later release, open."""
    out = {"narrow": "==1.0", "open": ">=1.0"}
    out.update({f"to{end}": f">=1.0,<1.{end}" for end in range(land + 1, COUNT)})
    return out


@pytest.mark.parametrize("land", sample(range(1, COUNT - 1)))
def test_every_range_finds_upstream_where_the_narrow_one_does(
    land: int, loopback: Any, tmp_path: Any, radpatch: Any, no_shipped: None
) -> None:
    loopback("radpatch-toy", _releases(land))
    reg = tmp_path / "registry"
    reg.mkdir()
    ranges = _ranges(land)
    for name, supported in ranges.items():
        (reg / f"{name}.yaml").write_text(entry("A toy patch upstream took in its own spelling.", supported))
    got = radpatch("--registry", str(reg), "verify", "--all", "--json", "--versions", ">=1.0")
    report = json.loads(got.out)
    obsolete = {e["patch"]: e["obsolete"] for e in report["entries"]}
    taken = [f"1.{i}" for i in range(land, COUNT)]
    assert obsolete["narrow"] == taken, got.err
    assert {name: obsolete[name] for name in ranges} == dict.fromkeys(ranges, taken)
    failed = {
        e["patch"]: [r["version"] for r in e["results"] if r["checks"]["match"] is False] for e in report["entries"]
    }
    assert failed == dict.fromkeys(ranges, []), got.out  # no `no match` left on a release upstream took
    widest = f"to{COUNT - 1}"  # its range ends before the newest release: port asks about that one
    if widest in ranges:
        ported = radpatch("--registry", str(reg), "port", widest, "--to", f"1.{COUNT - 1}", "--dry-run")
        assert ported.code == 0 and "already contains the change" in ported.out and "retire" in ported.out, ported.out

"""The bases verify reads reach into the whole declared range, within a bound (port37, issue 23):
only the BASES nearest the releases asked and the range's first were read, so for a port to a newer
release (the nearest are the newest) a base in the middle of the range was never read and a release
holding upstream's change was "no match". Now search_order adds releases spread over the range,
bisect-like, up to MOST in all: no run of unread releases is longer than about 2 x range / (MOST -
BASES), and a range of at most MOST releases is read whole.

Generated: ranges of 1 to 79 releases; one release asked newer than the range, older, inside it,
or two inside it."""

from __future__ import annotations

import pytest
from packaging.version import Version

from radpatch.releases.base_search import BASES, MOST, search_order
from tests.lib.generated import sample

ASKED = {
    "newer": lambda n: [n + 1],
    "older": lambda n: [-1],
    "inside": lambda n: [n // 3],
    "two inside": lambda n: [n // 4, n - 2],
}


def _v(i: int) -> Version:
    return Version(f"1.{i}") if i >= 0 else Version("0.9")


@pytest.mark.parametrize(("n", "asked"), sample([(n, a) for n in range(1, 80) for a in ASKED]))
def test_the_bases_read_spread_over_the_range_within_the_bound(n: int, asked: str) -> None:
    claimed = [_v(i) for i in range(n)][::-1]
    wanted = [_v(i) for i in ASKED[asked](n)]
    tiers = search_order(claimed, wanted)
    for before, after in zip(tiers, tiers[1:]):
        assert set(before) <= set(after), (before, after)  # each tier reads what the one before did
    read = set(tiers[-1]) | set(wanted)
    assert read <= set(claimed) | set(wanted)
    outside = read - set(wanted)
    assert len(outside) <= MOST, sorted(outside)
    if n - len(set(wanted) & set(claimed)) <= MOST:
        assert set(claimed) <= read, sorted(set(claimed) - read)  # a short range is read whole
    unread = [v not in read for v in claimed]
    longest = max((len(run) for run in "".join("x" if u else " " for u in unread).split()), default=0)
    assert longest <= 2 * n / (MOST - BASES), (longest, [str(v) for v in sorted(read)])

"""Which releases of an entry's declared range verify reads as bases (the releases the entry is
written for, to read its change off in upstream's layout: radpatch.releases.carried), tier by
tier, within a bound whatever the range's length: the BASES nearest the releases asked, then
those, the range's first and the asked ones."""

from __future__ import annotations

from packaging.version import Version

BASES = 4  # releases of the declared range read first for the entry's change (radpatch.releases.carried)


def search_order(claimed: list[Version], asked: list[Version]) -> tuple[list[Version], ...]:
    """The bases tried, tier by tier, for `claimed` (the declared range's final releases, newest
    first): the BASES of it nearest the releases asked (`nearest`: its newest for a port to newer
    releases), then those, its first release (the low end of `supported:`) and the releases of it
    asked for (read anyway), newest first."""
    first = nearest(claimed, asked)
    more = {*first, *claimed[-1:], *(v for v in asked if v in claimed)}
    return (first, sorted(more, reverse=True))


def nearest(claimed: list[Version], asked: list[Version]) -> list[Version]:
    """The BASES releases of `claimed` (newest first) nearest a release of `asked`, counted in
    releases between them, nearest first (of two as near, the newer): the newest when every release
    asked is newer than the range or in it, the ones beside a release `supported:` excludes
    (`!=1.5`) when it is asked, the oldest for a backport."""
    if not asked:
        return claimed[:BASES]
    line = sorted({*claimed, *asked})
    at = {v: i for i, v in enumerate(line)}
    return sorted(claimed, key=lambda c: (min(abs(at[c] - at[a]) for a in asked), -at[c]))[:BASES]

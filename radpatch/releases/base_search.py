"""Which releases of an entry's declared range verify reads as bases (the releases the entry is
written for, to read its change off in upstream's layout: radpatch.releases.carried), tier by
tier, within a bound whatever the range's length: the BASES nearest the releases asked; then
those, the range's first and the asked ones; then releases spread over the rest of the range, the
middle of its largest unread stretch first (as bisect would), twice as many each tier, until MOST
are read. A base anywhere in the range is found when the releases the rewrites apply on span more
than the range's length / MOST (issue 23, port37: one in the middle was never read)."""

from __future__ import annotations

from packaging.version import Version

BASES = 4  # releases of the declared range read first for the entry's change (radpatch.releases.carried)
MOST = 12  # releases of the declared range read as bases at most, besides the ones asked


def search_order(claimed: list[Version], asked: list[Version]) -> tuple[list[Version], ...]:
    """The bases tried, tier by tier, for `claimed` (the declared range's final releases, newest
    first): the BASES of it nearest the releases asked (`nearest`: its newest for a port to newer
    releases), then those, its first release (the low end of `supported:`) and the releases of it
    asked for (read anyway), then `spread`'s releases added, 2, 4, 8... a tier, while fewer than
    MOST besides the asked ones are read; each tier newest first."""
    first = nearest(claimed, asked)
    chosen = {*first, *claimed[-1:], *(v for v in asked if v in claimed)}
    tiers = [first, sorted(chosen, reverse=True)]
    extra = 2
    while True:
        room = MOST - len(chosen - set(asked))
        more = spread(claimed, chosen, min(extra, room))
        if not more:
            return tuple(tiers)
        chosen.update(more)
        tiers.append(sorted(chosen, reverse=True))
        extra *= 2


def spread(claimed: list[Version], chosen: set[Version], n: int) -> list[Version]:
    """`n` releases of `claimed` (newest first) not in `chosen`, each the middle of the longest run
    of releases not chosen (of two as long, the newer), as bisect takes them."""
    taken = {i for i, v in enumerate(claimed) if v in chosen}
    out: list[Version] = []
    for _ in range(max(n, 0)):
        marks = [-1, *sorted(taken), len(claimed)]
        runs = [(b - a - 1, -a, a, b) for a, b in zip(marks, marks[1:]) if b - a > 1]
        if not runs:
            break
        _, _, a, b = max(runs)
        mid = (a + b) // 2
        taken.add(mid)
        out.append(claimed[mid])
    return out


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


def references(claimed: list[Version], v: Version, most: int) -> list[Version]:
    """The releases the entry claims (`claimed`: newest first) whose matches `v`'s rewrites must match the
    same code as, nearest first: those below `v` (none for the range's first release: the entry is written
    there), else, below the range, its first releases."""
    below = [c for c in claimed if c < v][:most]
    return below or ([] if not claimed or v >= claimed[-1] else claimed[::-1][:most])

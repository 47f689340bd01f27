"""The rewrites a release outside an entry's range would silently lose: a rewrite with its own
`versions:` that runs on the entry's claimed release nearest the new one, but not on the new one,
while its sibling rewrites do (`supported: >=1.0,<1.1` with `fix-f` for `>=1.0,<1.1`: on 1.1 only
the others would run). Widening `supported:` over such a release would claim a patch that does not
patch what it was written to; verify counts it as not proving there, and port widens the rewrite's
`versions:` too (when it proves there) or names it. A rewrite the entry has written for the new
release in the same scope (`fix-f2` for `>=1.1`) takes the dropped one's place: nothing is lost."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.registry import versions as policy
from radpatch.registry.model import Patch, Rewrite


def nearest_claimed(patch: Patch, v: Version, listing: Iterable[Version]) -> Version | None:
    """The final release the entry claims nearest `v` on its side (the newest below it, else the oldest)."""
    claimed = [x for x in sorted(listing) if not x.is_prerelease and policy.allows(patch.supported, x)]
    below = [x for x in claimed if x < v]
    return below[-1] if below else claimed[0] if claimed else None


def dropped(patch: Patch, v: Version, listing: Iterable[Version]) -> tuple[Rewrite, ...]:
    """The rewrites that run on the claimed release nearest `v` and not on `v`, with no rewrite of their
    scope written for `v` in their place; () for a release the entry claims (its ranges say what runs)."""
    if policy.allows(patch.supported, v):
        return ()
    near = nearest_claimed(patch, v, listing)
    if near is None:
        return ()
    there = patch.rewrites_for(v)
    if not there:
        return ()  # nothing runs there: resolve says so
    placed = {(r.file, r.op.scope_name()) for r in there if not r.applies_to(near)}
    return tuple(
        r for r in patch.rewrites_for(near) if not r.applies_to(v) and (r.file, r.op.scope_name()) not in placed
    )


def lost(patch: Patch, asked: Iterable[Version], listing: Iterable[Version]) -> dict[str, list[Version]]:
    """Rewrite id -> the releases of `asked` it would not run on while its siblings do (`dropped`)."""
    listed = tuple(listing)
    out: dict[str, list[Version]] = {}
    for v in asked:
        for r in dropped(patch, v, listed):
            out.setdefault(r.id, []).append(v)
    return out


def carried(patch: Patch, lost: dict[str, list[Version]], listing: Iterable[Version]) -> Patch:
    """The entry with each lost rewrite's `versions:` widened to the releases it was lost on, as port
    widens `supported:` (radpatch.releases.port_edits.widen): what port proves, and writes when it proves."""
    from radpatch.releases.port_edits import widen

    if not lost:
        return patch
    listed = tuple(listing)
    rewrites = tuple(
        dataclasses.replace(r, versions=SpecifierSet(widen(str(r.versions), lost[r.id], listed)))
        if r.id in lost and r.versions is not None
        else r
        for r in patch.rewrites
    )
    return dataclasses.replace(patch, rewrites=rewrites)


def describe(rewrites: Iterable[Rewrite], v: Version) -> str:
    """The dropped rewrites in words (verify's `module` check, port's refusal)."""
    named = ", ".join(f"{r.id!r} (versions: {r.versions}, {r.location})" for r in rewrites)
    return f"rewrite {named} does not run on {v} while the entry's other rewrites do"

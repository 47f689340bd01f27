"""The state of one patched file from hashes alone: the one decision `status`, `apply`, `revert`
and the engine-start self-check all make first (stdlib only: the self-check imports no libcst).

A file carries a patch when its sha256 is the hash radpatch wrote for that patch, or a later link
of the file's hash chain (patches radpatch stacked on top, in the order they were applied). It is
pristine when its hash is the one the patch started from, or RECORD's (a reinstall). Anything
else the hashes cannot decide: `status` then asks the rewrites (state.decide), and the
self-check, which never parses code, reports it as changed.
"""

from __future__ import annotations

from enum import Enum

from radpatch.state.record import FileRecord, Store


class ByHash(str, Enum):
    APPLIED = "applied"
    NOT_APPLIED = "not-applied"
    UNDECIDED = "undecided"


def applied_hashes(store: Store, rec: FileRecord) -> set[str]:
    """The hashes at which the file still carries the patch of `rec`: its own patched hash and
    every later link of the file's hash chain (patches radpatch applied on top)."""
    links = {f.original_sha256: f.patched_sha256 for _, f in store.chain(rec.path)}
    out, at = {rec.patched_sha256}, rec.patched_sha256
    while at in links and links[at] not in out:
        at = links[at]
        out.add(at)
    return out


def by_hash(digest: str, rec: FileRecord | None, store: Store, wheel_sha: str | None) -> ByHash:
    """What the hashes say of a file whose sha256 is `digest`, for the patch that recorded `rec`."""
    if rec is not None and digest in applied_hashes(store, rec):
        return ByHash.APPLIED
    if (rec is not None and digest == rec.original_sha256) or (wheel_sha is not None and digest == wheel_sha):
        return ByHash.NOT_APPLIED
    return ByHash.UNDECIDED

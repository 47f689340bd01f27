"""Who owns a module an entry creates (`create_module`): radpatch, when it wrote the bytes, or
whoever put them there before radpatch recorded them (docs/state.md, "Who owns a created module").

- A link from no file (ABSENT) marked `written` is radpatch's own: it wrote the file (apply), or
  adopted a file its own records show it wrote (a module pip left in place after `pip install -U`,
  whose bytes are exactly the end of radpatch's links from no file). `revert` deletes it.
- A **found** link (its before is its after, both the bytes that were there, kept as an original):
  apply adopted a file someone else wrote. `revert` leaves those bytes in place.
- A link from no file not marked `written` was recorded by a radpatch before format 6 (apply, or
  capture's adoption of a hand-written module): it cannot show radpatch wrote the file, so `revert`
  leaves it in place, saying so, unless the file is still exactly the bytes recorded and the entry's
  content file (the registry holds them: deleting it loses nothing; prove.undo).
Stdlib only (state.hashes): the engine-start check may read it."""

from __future__ import annotations

from typing import Protocol

from radpatch.state.hashes import live
from radpatch.state.record import FileRecord, Store, sha256


def found(rec: FileRecord) -> bool:
    """A module apply adopted where an entry creates it, which radpatch did not write."""
    return rec.original_sha256 == rec.patched_sha256


def unproven(rec: FileRecord) -> bool:
    """A link from no file whose record cannot show radpatch wrote the file (written before format 6)."""
    return rec.created and not rec.written


def kept_by_revert(rec: FileRecord) -> bool:
    """revert leaves the file of this link in place: radpatch did not write it, or cannot show it did."""
    return found(rec) or unproven(rec)


class _Planned(Protocol):
    @property
    def before(self) -> bytes: ...
    @property
    def after(self) -> bytes: ...


def stays(rec: FileRecord | None, f: _Planned) -> bool:
    """revert leaves the file of `rec` as it is (planned unchanged: `f`), radpatch not having written it."""
    return rec is not None and kept_by_revert(rec) and f.before == f.after


def product(store: Store, relpath: str, data: bytes | None) -> list[str]:
    """The entries whose recorded links (any record: one left from another install too) make the file
    from no file, oldest first, when its bytes are exactly the end of that chain and each link from no
    file is one radpatch wrote: the file is radpatch's own product. [] when it is anything else."""
    if data is None:
        return []
    walked = live(store, relpath, sha256(data))
    if walked is None or not walked[1]:  # by sha256 only: a comment edited since is someone's
        return []
    first = walked[0][0].file
    if not (first.created and first.written):
        return []
    return [ln.patch for ln in walked[0]]


def left_in_place(module: str, rec: FileRecord) -> str:
    """What revert says of a created module's file it leaves in place (kept_by_revert)."""
    if found(rec):
        return f"{module} left in place (it was there when radpatch recorded it: radpatch did not write it)"
    return (
        f"{module} left in place (radpatch's record of it, from before radpatch recorded who wrote a module an "
        "entry creates, cannot show radpatch wrote it: delete it if it is left over)"
    )

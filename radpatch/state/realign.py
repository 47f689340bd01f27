"""radpatch's record brought in line with a file someone took some of its stacked links off by hand
(state.composed: the file is exactly the other links put on the chain's original). `apply` and
`revert` call it first, under the lock and after an interrupted run is finished (write.exclusive),
so they plan on a record that says what the file is: each link the file still carries is written
anew, from the chain's original through each kept link's result in turn (their bytes kept first,
as apply keeps them), and a link taken off stays as it was, void (its state before is the stack's
original, or its stack's own, so the walk reads it not applied, as after a reinstall). No file is written; the record
is replaced whole. `status` and the engine-start check read the same state from the hashes before
(state.hashes.by_hash), and the same after."""

from __future__ import annotations

import uuid
from dataclasses import replace

from radpatch.files import read_regular
from radpatch.state.code_hashes import code_hash
from radpatch.state.composed import composed
from radpatch.state.record import FileRecord, PatchRecord, Store, sha256


def realign(store: Store) -> list[str]:
    """Write the record of `store` anew where a file reads as some of its links taken off by hand;
    what was done, one note per file ([]: nothing, the record already says what every file is)."""
    if not store.record_path.is_file() or store.journal.exists():
        return []
    records = store.records()
    notes = []
    for relpath in sorted({f.path for r in records.values() for f in r.files}):
        try:
            data = read_regular(store.root / relpath)
        except OSError:
            continue
        got = composed(store, relpath, sha256(data))
        if got is None:
            continue
        first = got.start  # where the stack started, the links taken off included
        base, base_code = first.base_sha256 or first.original_sha256, first.base_code or first.original_code
        before = got.original
        for (name, link), after in zip(got.kept, got.states):
            store.keep_original(before)
            store.keep_original(after)
            anew = _link(link, before, after, base, base_code)
            records[name] = _with_link(records[name], link, anew)
            before = after
        carried, off = (", ".join(name for name, _ in links) for links in (got.kept, got.off))
        notes.append(
            f"{relpath}: {off} taken off it by hand (it carries only {carried}, byte for byte): "
            "radpatch's record now says so"
        )
    if notes:
        store.save(records, uuid.uuid4().hex)
    return notes


def _link(link: FileRecord, before: bytes, after: bytes, base: str, base_code: str) -> FileRecord:
    return replace(
        link,
        original_sha256=sha256(before),
        patched_sha256=sha256(after),
        original_code=code_hash(before),
        patched_code=code_hash(after),
        base_sha256=base,
        base_code=base_code,
        target_code=(),  # the target's own code hashes are not known here (another Python)
    )


def _with_link(rec: PatchRecord, old: FileRecord, new: FileRecord) -> PatchRecord:
    return replace(rec, files=tuple(new if f == old else f for f in rec.files))

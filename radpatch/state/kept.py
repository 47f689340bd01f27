"""A link's result as radpatch wrote it (the applied revision's bytes): what an undo after comment
or layout edits carries those edits off of (prove.undo), whatever the entry says now.

apply keeps each link's result beside its original in .radpatch/originals/ (since att21c F8).
A record written before that names the result's sha256 but kept only the original: there the
result is rebuilt from the original and the file as it is now. Of the file's line edits since the
original, those that change the code are the patch's and the rest are someone's comment or layout
edits; the patch's edits put on the original must give the recorded result byte for byte (its
sha256), or nothing is rebuilt (None: the caller falls back to the entry's structural inverse,
proven against the recorded original, or refuses).
"""

from __future__ import annotations

import difflib

from radpatch.state.code_hashes import code_hash
from radpatch.state.record import FileRecord, Store, sha256

Edit = tuple[int, int, list[bytes]]  # lines [start, end) of the base replaced by these lines


def result(rec: FileRecord, current: bytes, store: Store) -> bytes | None:
    """The bytes `rec`'s link left in the file: kept, or rebuilt (see the module) from the kept
    original and `current` (the file now: the result with someone's comment or layout edits)."""
    kept = store.original(rec.patched_sha256)
    if kept is not None:
        return kept
    original = store.original(rec.original_sha256)
    if original is None:
        return None
    base = original.splitlines(keepends=True)
    code = code_hash(original)
    if not code:
        return None
    ours = [e for e in edits(base, current.splitlines(keepends=True)) if code_hash(merged(base, [e])) != code]
    rebuilt = merged(base, ours)
    return rebuilt if sha256(rebuilt) == rec.patched_sha256 else None


def edits(base: list[bytes], other: list[bytes]) -> list[Edit]:
    """The line edits that make `other` from `base`, in order."""
    ops = difflib.SequenceMatcher(None, base, other, autojunk=False).get_opcodes()
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def merged(base: list[bytes], each: list[Edit]) -> bytes:
    """`base` with non-overlapping edits (in order) put on it."""
    out: list[bytes] = []
    at = 0
    for start, end, lines in each:
        out += base[at:start] + lines
        at = end
    return b"".join(out + base[at:])

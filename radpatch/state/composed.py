"""A recorded file that is exactly some of its chain's links put on the chain's original, the
others taken off by hand (issue 21, att63 F8): entries a and b stacked on a file, a's line put back
by hand, leave the bytes `radpatch apply b` writes on the installed file. The walk (state.hashes)
finds no link whose result the file is; this reads it as that composition instead: the links kept
read applied, the ones taken off not applied.

From radpatch's kept bytes alone (stdlib, no entry's code: the engine-start check reads it too):
each link left out is taken off the top link's kept result as undo takes one off (state.stack,
state.kept: the line edits from its kept result back to its kept original, put on the file with
every other edit kept), newest first. Only a subset (in the chain's order) whose result is the
file's sha256 byte for byte counts, and only when exactly one does: the links are those radpatch's
last write left on the file (its newest link, and down the links it was stacked on: a void link
takes no part). A stack with more than `MAX_TRIED` subsets (7 links) is not tried (stacks are
small): the file reads as it did before (the hashes cannot decide). `apply` and `revert` then write
radpatch's record to match the file (state.realign).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from radpatch.state.kept import Edit, edits, merged
from radpatch.state.record import FileRecord, Store, sha256

MAX_TRIED = 64  # subsets of a stack tried at most (6 links: 62; 7 links would be 126): beyond, no reading


@dataclass(frozen=True)
class Composed:
    """The file read as the chain's links `kept` (oldest first) put on the chain's original."""

    kept: tuple[tuple[str, FileRecord], ...]  # the links the file carries, oldest first
    off: tuple[tuple[str, FileRecord], ...]  # the links taken off by hand, oldest first
    start: FileRecord  # the stack's first link (its `before` is `original`)
    original: bytes  # where the chain starts (its first link's kept original)
    states: tuple[bytes, ...]  # the file after each kept link in turn (the last is the file)


def composed(store: Store, relpath: str, digest: str) -> Composed | None:
    """The file `relpath` (sha256 `digest`) read as a composition of its chain's links (see the
    module), or None: it is a link's own result or original (the walk reads it), or no one subset."""
    return _composed(store, relpath, digest, tuple(store.chain(relpath)))


@functools.lru_cache(maxsize=32)
def _composed(store: Store, relpath: str, digest: str, chain: tuple[tuple[str, FileRecord], ...]) -> Composed | None:
    chain = _stack(chain)
    files = [f for _, f in chain]
    if len(files) < 2 or 2 ** len(files) - 2 > MAX_TRIED or any(f.created for f in files):
        return None  # one link (the walk reads it), or more subsets than are tried: as before
    if digest in {f.patched_sha256 for f in files} | {f.original_sha256 for f in files}:
        return None  # a link's own result or original: the walk reads it
    kept: dict[str, bytes | None] = {}

    def get(sha: str) -> bytes | None:
        if sha not in kept:
            kept[sha] = store.original(sha)
        return kept[sha]

    top, original = get(files[-1].patched_sha256), get(files[0].original_sha256)
    if top is None or original is None:
        return None
    found: list[tuple[int, ...]] = []
    subsets = (s for size in range(len(files) - 1, 0, -1) for s in itertools.combinations(range(len(files)), size))
    for keep in subsets:
        got = _without(top, [f for i, f in enumerate(files) if i not in keep], get)
        if got is not None and sha256(got) == digest:
            found.append(keep)
    if len(found) != 1:  # none, or two subsets give the same bytes: which patches it carries is not known
        return None
    (keep,) = found
    states = []
    for j in range(1, len(keep) + 1):
        state = _without(top, [f for i, f in enumerate(files) if i not in keep[:j]], get)
        if state is None:
            return None
        states.append(state)
    off = tuple(link for i, link in enumerate(chain) if i not in keep)
    return Composed(tuple(chain[i] for i in keep), off, files[0], original, tuple(states))


def _stack(chain: tuple[tuple[str, FileRecord], ...]) -> tuple[tuple[str, FileRecord], ...]:
    """The links radpatch's last write of the file left on it: the newest link, and going down, each
    link whose `after` is the `before` of the one above (by sha256); a link off it is void (a
    reinstall, or taken off by hand before: state.realign leaves it so) and takes no part."""
    if not chain:
        return ()
    on = [len(chain) - 1]
    while (
        below := next((i for i in reversed(range(on[-1])) if _joins(chain[i][1], chain[on[-1]][1])), None)
    ) is not None:
        on.append(below)
    return tuple(chain[i] for i in reversed(on))


def _joins(below: FileRecord, above: FileRecord) -> bool:
    return below.patched_sha256 == above.original_sha256


def _without(top: bytes, off: list[FileRecord], get: Callable[[str], bytes | None]) -> bytes | None:
    """The top link's result with the links `off` (oldest first) taken off, newest first, each as
    undo takes one off; None when a kept copy is missing or the edits of two meet."""
    current = top
    for f in reversed(off):
        after, before = get(f.patched_sha256), get(f.original_sha256)
        if after is None or before is None:
            return None
        base = after.splitlines(keepends=True)
        every = sorted(
            [*edits(base, current.splitlines(keepends=True)), *_undo(after, before)], key=lambda e: (e[0], e[1])
        )
        if any(b[0] < a[1] or a[0] == a[1] == b[0] == b[1] for a, b in zip(every, every[1:])):
            return None
        current = merged(base, every)
    return current


@functools.lru_cache(maxsize=64)
def _undo(after: bytes, before: bytes) -> tuple[Edit, ...]:
    """The line edits that take a link off its own result (the same for every subset tried)."""
    return tuple(edits(after.splitlines(keepends=True), before.splitlines(keepends=True)))


def without(store: Store, rec: FileRecord, current: bytes) -> bytes | None:
    """The file `current`, read as a composition with `rec`'s link among those it carries, with that
    link taken off too (the others kept): what revert writes there; None when it is no such file.
    apply and revert plan on the record state.realign wrote first, so only a dry run, which writes
    no record, needs it."""
    got = composed(store, rec.path, sha256(current))
    if got is None or not any(f == rec for _, f in got.kept):
        return None
    stack = [f for _, f in _stack(tuple(store.chain(rec.path)))]
    carried = [f for _, f in got.kept if f != rec]
    top = store.original(stack[-1].patched_sha256)
    return None if top is None else _without(top, [f for f in stack if f not in carried], store.original)

"""A recorded file that is exactly some of its chain's links put on the chain's original, the
others taken off by hand (issue 21, att63 F8): entries a and b stacked on a file, a's line put back
by hand, leave the bytes `radpatch apply b` writes on the installed file. The walk (state.hashes)
finds no link whose result the file is; this reads it as that composition instead: the links kept
read applied, the ones taken off not applied.

From radpatch's kept bytes alone (stdlib, no entry's code: the engine-start check reads it too):
each link left out is taken off the top link's kept result as undo takes one off (state.stack,
state.kept: the line edits from its kept result back to its kept original, put on the file with
every other edit kept), newest first. Only a subset (in the chain's order) whose result is the
file's sha256 byte for byte counts, and only when exactly one does; at most `MAX_TRIED` subsets
are tried (stacks are small), beyond that the file reads as it did before (the hashes cannot
decide). `apply` and `revert` then write radpatch's record to match the file (state.realign).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from radpatch.state.kept import Edit, edits, merged
from radpatch.state.record import FileRecord, Store, sha256

MAX_TRIED = 64  # subsets of a chain tried at most (a chain of 7 links has 126): beyond, no reading


@dataclass(frozen=True)
class Composed:
    """The file read as the chain's links `kept` (oldest first) put on the chain's original."""

    kept: tuple[tuple[str, FileRecord], ...]  # the links the file carries, oldest first
    off: tuple[str, ...]  # the patches whose links were taken off by hand, oldest first
    original: bytes  # where the chain starts (its first link's kept original)
    states: tuple[bytes, ...]  # the file after each kept link in turn (the last is the file)


def composed(store: Store, relpath: str, digest: str) -> Composed | None:
    """The file `relpath` (sha256 `digest`) read as a composition of its chain's links (see the
    module), or None: it is a link's own result or original (the walk reads it), or no one subset."""
    return _composed(store, relpath, digest, tuple(store.chain(relpath)))


@functools.lru_cache(maxsize=32)
def _composed(store: Store, relpath: str, digest: str, chain: tuple[tuple[str, FileRecord], ...]) -> Composed | None:
    files = [f for _, f in chain]
    if len(files) < 2 or any(f.created for f in files):
        return None
    if any(b.original_sha256 != a.patched_sha256 for a, b in zip(files, files[1:])):
        return None  # not one chain (a void link under others): the walk reads it, or nothing does
    if digest in {f.patched_sha256 for f in files} | {f.original_sha256 for f in files}:
        return None
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
    for keep in itertools.islice(subsets, MAX_TRIED):
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
    off = tuple(name for i, (name, _) in enumerate(chain) if i not in keep)
    return Composed(tuple(chain[i] for i in keep), off, original, tuple(states))


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

"""The state of one patched file from hashes alone: the one decision `status`, `apply`, `revert`
and the engine-start self-check all make first (stdlib only: the self-check imports no libcst).

The model (docs/state.md): per file, radpatch's record holds a chain of links, one per patch it
wrote there, in the order written; each link has the file's sha256 and code hash before and after
that patch. The links the file carries *now* are found from its bytes: the newest link whose
`after` is the file's sha256 (or, when someone edited only comments or layout since, whose
`after` code hash is the file's code hash), then, going down, each link whose `after` is the
`before` of the one above. A link not on that walk is void: a reinstall replaced the bytes it
wrote, so what it says is no longer true of the file.

A file carries a patch when the patch's link is on the walk. It does not when the walk is found,
the link is not on it and the walk starts where the link started or at RECORD's bytes (a
reinstall, then other patches stacked), or when the file is the one the patch started from (its
bytes or its code) or RECORD's. Anything else the hashes cannot decide: `status` then asks the
rewrites (state.decide), and the self-check, which never parses with libcst, reports it as
changed.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from radpatch.state.record import FileRecord, Store

CODE_SCHEME = f"ast{sys.version_info[0]}.{sys.version_info[1]}"  # ast.dump's text differs between Pythons


class ByHash(str, Enum):
    APPLIED = "applied"
    NOT_APPLIED = "not-applied"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Link:
    """One patch's change of one file, as recorded."""

    patch: str
    file: FileRecord


def code_hash(data: bytes) -> str:
    """A hash of the file's code and nothing else: its syntax tree without positions, so comments,
    blank lines and formatting do not change it. Tagged with this Python's version (another
    Python's tree prints differently); "" for a file that does not parse."""
    try:
        tree = ast.parse(data)
        text = ast.dump(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    return f"{CODE_SCHEME}:{hashlib.sha256(text.encode()).hexdigest()}"


class _Code:
    """The file's code hash, computed at most once and only when asked (parsing is the cost)."""

    def __init__(self, data: bytes | None) -> None:
        self._data, self._hash = data, None if data is not None else ""

    def __call__(self) -> str:
        if self._hash is None:
            assert self._data is not None
            self._hash = code_hash(self._data)
        return self._hash


def links(store: Store, relpath: str) -> list[Link]:
    """Every recorded link of the file `relpath`, oldest first."""
    return [Link(name, f) for name, f in store.chain(relpath)]


def live(store: Store, relpath: str, digest: str, data: bytes | None = None) -> tuple[tuple[Link, ...], bool] | None:
    """The links the file whose sha256 is `digest` carries now, oldest first, and whether its bytes
    are exactly the top link's (False: found by code hash, comments or layout were edited since);
    None when neither its bytes nor (given `data`) its code are any link's `after`."""
    return _walk(links(store, relpath), digest, _Code(data))


def _walk(chain: list[Link], digest: str, code: _Code) -> tuple[tuple[Link, ...], bool] | None:
    top = next((i for i in reversed(range(len(chain))) if chain[i].file.patched_sha256 == digest), None)
    exact = top is not None
    if top is None and any(ln.file.patched_code.startswith(CODE_SCHEME + ":") for ln in chain):
        mine = code()
        top = next((i for i in reversed(range(len(chain))) if mine and chain[i].file.patched_code == mine), None)
    if top is None:
        return None
    out = [top]
    while True:
        want = chain[out[-1]].file.original_sha256
        below = next((i for i in reversed(range(out[-1])) if chain[i].file.patched_sha256 == want), None)
        if below is None:
            break
        out.append(below)
    return tuple(chain[i] for i in reversed(out)), exact


def by_hash(
    digest: str,
    rec: FileRecord | None,
    store: Store,
    wheel_sha: str | None | Callable[[], str | None],
    data: bytes | None = None,
) -> ByHash:
    """What the hashes say of a file whose sha256 is `digest` (its bytes `data`, when the code
    hash may be asked), for the patch that recorded `rec` (None: no trusted record of it).
    `wheel_sha` is RECORD's sha256 of the file, or a function reading it only when needed."""
    wheel = _Lazy(wheel_sha)
    if rec is None:
        return ByHash.NOT_APPLIED if digest == wheel() else ByHash.UNDECIDED
    code = _Code(data)
    walked = _walk(links(store, rec.path), digest, code)
    if walked is not None:
        if any(ln.file == rec for ln in walked[0]):
            return ByHash.APPLIED
        # the link is void when the file went back to where it started (or to RECORD's bytes: a
        # reinstall) and other patches were stacked since; on unknown bytes it is not decided
        if walked[0][0].file.original_sha256 in (rec.original_sha256, wheel()):
            return ByHash.NOT_APPLIED
        return ByHash.UNDECIDED
    if digest in (rec.original_sha256, wheel()):
        return ByHash.NOT_APPLIED
    if rec.original_code.startswith(CODE_SCHEME + ":") and code() == rec.original_code:
        return ByHash.NOT_APPLIED  # the file the patch started from, with comment or layout edits
    return ByHash.UNDECIDED


class _Lazy:
    def __init__(self, value: str | None | Callable[[], str | None]) -> None:
        self._value, self._done = value, not callable(value)

    def __call__(self) -> str | None:
        if not self._done:
            assert callable(self._value)
            self._value, self._done = self._value(), True
        assert not callable(self._value)
        return self._value


def above(store: Store, rec: FileRecord, digest: str, data: bytes | None = None) -> list[str]:
    """The patches stacked on top of `rec` in the file as it is now (sha256 `digest`), oldest first."""
    walked = live(store, rec.path, digest, data)
    if walked is None:
        return []
    names = [ln.patch for ln in walked[0]]
    mine = next((i for i, ln in enumerate(walked[0]) if ln.file == rec), None)
    return [] if mine is None else names[mine + 1 :]

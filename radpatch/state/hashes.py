"""The state of one patched file from hashes alone: the one decision `status`, `apply`, `revert`
and the engine-start self-check all make first (stdlib only: the self-check imports no libcst).

The model (docs/state.md): per file, radpatch's record holds a chain of links, one per patch it
wrote there, in the order written; each link has the file's sha256 and code hash before and after
that patch. The links the file carries *now* are found from its bytes (the walk): the newest link
whose `after` is the file's sha256 (or, when someone edited only comments or layout since, whose
`after` code hash is the file's code hash), then, going down, each link whose `after` is the
`before` of the one above (by sha256, or by code hash when comments were edited between the two).

A file carries a patch when the patch's link is on the walk. It does not when the file, or the
first `before` of the walk (a reinstall, then other patches stacked since), is a state from before
the patch (where it or a patch under it started, by sha256 or code hash) or RECORD's bytes: the
link is void. Anything else the hashes cannot decide: `status` then asks the rewrites
(state.decide, through prove.form), and the self-check, which never parses with libcst, reports
it as changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from radpatch.state.code_hashes import CODE_SCHEME, code_hash
from radpatch.state.composed import composed
from radpatch.state.record import ABSENT, FileRecord, Store, state_sha


class ByHash(str, Enum):
    APPLIED = "applied"
    NOT_APPLIED = "not-applied"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Link:
    """One patch's change of one file, as recorded."""

    patch: str
    file: FileRecord


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


def _patched(f: FileRecord) -> str:
    """The file's code hash after the link, as this Python computes it ("" if none is known)."""
    if _ours(f.patched_code):
        return f.patched_code
    return f.target_code[1] if len(f.target_code) == 2 and _ours(f.target_code[1]) else ""


def _original(f: FileRecord) -> str:
    """The file's code hash before the link, as this Python computes it ("" if none is known)."""
    if _ours(f.original_code):
        return f.original_code
    return f.target_code[0] if len(f.target_code) == 2 and _ours(f.target_code[0]) else ""


def _walk(chain: list[Link], digest: str, code: _Code) -> tuple[tuple[Link, ...], bool] | None:
    top = next((i for i in reversed(range(len(chain))) if chain[i].file.patched_sha256 == digest), None)
    exact = top is not None
    if top is None and any(_patched(ln.file) for ln in chain):
        mine = code()
        top = next((i for i in reversed(range(len(chain))) if mine and _patched(chain[i].file) == mine), None)
    if top is None:
        return None
    out = [top]
    while (below := _below(chain, out[-1])) is not None:
        out.append(below)
    return tuple(chain[i] for i in reversed(out)), exact


def _below(chain: list[Link], at: int) -> int | None:
    """The link the one at `at` was stacked on: the newest earlier one whose `after` is its
    `before`, by sha256, or by code hash (comments edited between the two)."""
    f = chain[at].file
    below = next((i for i in reversed(range(at)) if chain[i].file.patched_sha256 == f.original_sha256), None)
    if below is None and _original(f):
        below = next((i for i in reversed(range(at)) if _patched(chain[i].file) == _original(f)), None)
    return below


def _ours(code: str) -> bool:
    """A code hash this Python computed (another Python's is never compared)."""
    return code.startswith(CODE_SCHEME + ":")


def by_hash(
    digest: str,
    rec: FileRecord | None,
    store: Store,
    wheel_sha: str | None | Callable[[], str | None],
    data: bytes | None = None,
) -> ByHash:
    """What the hashes say of a file whose sha256 is `digest` (its bytes `data`, when the code
    hash may be asked; ABSENT and None for no file), for the patch that recorded `rec` (None: no
    trusted record of it). No file is the state before a link that created the file.
    `wheel_sha` is RECORD's sha256 of the file, or a function reading it only when needed."""
    wheel = _Lazy(wheel_sha)
    if rec is None:
        return ByHash.NOT_APPLIED if digest == wheel() else ByHash.UNDECIDED
    code = _Code(data)
    chain = links(store, rec.path)
    walked = _walk(chain, digest, code)
    if walked is not None and any(ln.file == rec for ln in walked[0]):
        return ByHash.APPLIED
    shas, codes = _before(chain, rec)
    shas |= {rec.base_sha256} - {""}
    codes |= {rec.base_code} if _ours(rec.base_code) else set()
    if walked is not None:  # its link is off the walk: void if the walk starts before the patch
        start, start_code = walked[0][0].file.original_sha256, _original(walked[0][0].file)
    else:
        start, start_code = digest, code() if codes else ""
    if start in shas or start == wheel() or (start_code and start_code in codes):
        return ByHash.NOT_APPLIED
    got = composed(store, rec.path, digest) if walked is None else None
    if got is not None:  # some stacked links taken off by hand (state.composed): the others read applied
        if any(f == rec for _, f in got.kept):
            return ByHash.APPLIED
        if any(f == rec for _, f in got.off) or got.start.original_sha256 in shas:  # or void, under the stack
            return ByHash.NOT_APPLIED
    return ByHash.UNDECIDED


def base(chain: list[Link], before: bytes | None) -> tuple[str, str]:
    """Where the chain of a link written now on the bytes `before` starts (sha256, code hash):
    the base of the link it is stacked on, or `before` itself (None: no file, ABSENT)."""
    if before is None:
        return ABSENT, ""
    digest = hashlib.sha256(before).hexdigest()
    under = next((ln.file for ln in reversed(chain) if ln.file.patched_sha256 == digest), None)
    if under is None:
        mine = code_hash(before) if any(_ours(ln.file.patched_code) for ln in chain) else ""
        under = next((ln.file for ln in reversed(chain) if mine and ln.file.patched_code == mine), None)
    if under is None:
        return digest, code_hash(before)
    if under.base_sha256:
        return under.base_sha256, under.base_code
    return under.original_sha256, under.original_code


def _before(chain: list[Link], rec: FileRecord) -> tuple[set[str], set[str]]:
    """The sha256s and code hashes of the states of the file before `rec`'s patch: its own
    `before`, and going down, the `before` of each link it was stacked on."""
    shas, codes = {rec.original_sha256}, {_original(rec)} - {""}
    if rec.original_sha256 == rec.patched_sha256:  # a module apply found where it creates one (state.owner)
        shas.add(ABSENT)  # gone: as before the entry made it
    at = next((i for i, ln in enumerate(chain) if ln.file == rec), None)
    while at is not None:
        f = chain[at].file
        shas.add(f.original_sha256)
        if _original(f):
            codes.add(_original(f))
        at = _below(chain, at)
    return shas, codes


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


def carried(store: Store, relpath: str, digest: str, wheel: str | None, data: bytes | None = None) -> list[str]:
    """The patches whose recorded links make the file (sha256 `digest`) from the wheel's bytes, oldest
    first: the file is only radpatch's work on the installed one; [] when it is anything else."""
    walked = live(store, relpath, digest, data)
    if walked is None or wheel is None:
        return []
    first = walked[0][0].file
    return [ln.patch for ln in walked[0]] if wheel in (first.original_sha256, first.base_sha256) else []


@dataclass(frozen=True)
class FileRead:
    """One recorded file as read for the hash decision, before anyone words it: `status` for an
    entry no registry has (state.unloaded) and the engine-start self-check (plugin.py) both read
    their files with `read_file`, and each says what it found in its own words."""

    data: bytes | None = None  # its bytes; None: no file (or unreadable)
    seen: ByHash = ByHash.UNDECIDED  # what the hashes say (by_hash), once it was read
    error: OSError | None = None  # it could not be read: nothing else is known
    lost: bool = False  # no file, though RECORD lists it and no patch created it: the install is broken
    # when it reads not applied: whether its bytes are RECORD's, and else the patches it carries now
    # (their links on the walk, oldest first): a reinstall, then another patch stacked again (att21c F13)
    pristine: bool = False
    carries: tuple[str, ...] = ()
    by_hand: bool = False  # its link was taken off by hand from under or over the others' (state.composed)


def read_file(
    rec: FileRecord,
    load: Callable[[], bytes],
    store: Store,
    wheel_sha: str | None | Callable[[], str | None],
    trusted: bool,
) -> FileRead:
    """Read the recorded file (`load`: its bytes; FileNotFoundError for no file) and ask the hashes
    what it is (by_hash; `trusted`: the record speaks for this install, so its link is walked).
    `wheel_sha`: RECORD's sha256 of it, or a function read only when needed (and once)."""
    try:
        data: bytes | None = load()
    except FileNotFoundError:  # no file: the state before a link that created it (state.record.ABSENT)
        data = None
    except OSError as exc:
        return FileRead(error=exc)
    wheel = _Lazy(wheel_sha)
    if data is None and wheel() is not None and not any(link.created for _, link in store.chain(rec.path)):
        return FileRead(lost=True)
    digest = state_sha(data)
    seen = by_hash(digest, rec if trusted else None, store, wheel, data)
    if seen is not ByHash.NOT_APPLIED or data is None:
        return FileRead(data, seen)
    if digest == wheel():
        return FileRead(data, seen, pristine=True)
    walked = live(store, rec.path, digest, data) if trusted else None
    hand = taken_by_hand(store, rec, digest, data) if trusted and walked is None else None
    if hand is not None:
        return FileRead(data, seen, carries=hand, by_hand=True)
    return FileRead(data, seen, carries=tuple(ln.patch for ln in walked[0]) if walked else ())


def taken_by_hand(store: Store, rec: FileRecord, digest: str, data: bytes | None) -> tuple[str, ...] | None:
    """The patches the file (sha256 `digest`) carries when `rec`'s link was taken off it by hand from
    under or over them (state.composed: no link's result, but exactly the others' put on the chain's
    original), oldest first; None when the file is anything else."""
    if live(store, rec.path, digest, data) is not None:
        return None
    got = composed(store, rec.path, digest)
    if got is None or not any(f == rec for _, f in got.off):
        return None
    return tuple(name for name, _ in got.kept)

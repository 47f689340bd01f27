"""A file's stack of radpatch's recorded links, read to judge one entry among others: which entries'
links make the file from the wheel's bytes (`own_chain`), which records speak for this install
(`trusted_names`), and the file with the other entries' links taken off as undo takes them off
(`taken_off`, `own_base`), or where someone's edit meets a link's so that cannot be done (`Meets`).
For the state decision (state.decide) and apply's check that the install holds a result already
(prove.form). Split out of state.decide (issue 22: modules small), behaviour unchanged."""

from __future__ import annotations

from dataclasses import dataclass

from radpatch.install.dist_infos import DistInfo
from radpatch.install.environment import Installed
from radpatch.install.wheel_record import InstallId
from radpatch.state.hashes import carried
from radpatch.state.kept import Edit
from radpatch.state.kept import edits as kept_edits
from radpatch.state.kept import merged as kept_merged
from radpatch.state.kept import result as kept_result
from radpatch.state.record import Store, state_sha
from radpatch.state.verdict import trusted as record_trusted


def own_chain(store: Store, relpath: str, data: bytes | None, wheel: str | None) -> list[str]:
    """The entries whose recorded links make the file (`data`) from the wheel's bytes, oldest first,
    when its bytes are exactly the end of that chain; [] when they are anything else."""
    # by sha256 only (no code hash: comments edited since are someone's change to judge as today)
    return [] if data is None else carried(store, relpath, state_sha(data), wheel)


def trusted_names(store: Store, dist: Installed, dist_record: InstallId) -> frozenset[str]:
    """The entries whose records speak for this install (state.verdict.trusted): written for this
    distribution, version and install (`dist_record`, its identity from RECORD)."""
    info = DistInfo(dist.name, str(dist.version), dist.dist_info.name)
    return frozenset(n for n, r in store.records().items() if record_trusted(r, info, dist_record))


def own_base(store: Store, relpath: str, data: bytes, wheel: str | None, besides: str, trust: frozenset[str]) -> bytes:
    """The file without the code radpatch's recorded entries other than `besides` put there: the
    wheel's bytes (the kept original) when `data` is exactly a chain of other entries' links on them,
    else each trusted record of another entry taken off as it was applied, newest first, keeping
    everyone else's edits (`taken_off`), else `data` itself. What is judged for "the install already
    carries the patch `besides`": radpatch's own entries' code does not count."""
    chain = own_chain(store, relpath, data, wheel)
    if chain and besides not in chain:
        kept = store.original(wheel) if wheel else None
        if kept is not None:
            return kept
    return taken_off(store, relpath, data, besides, trust) or data


def taken_off(store: Store, relpath: str, data: bytes, besides: str, trust: frozenset[str]) -> bytes | None:
    """`data` with the recorded links of entries other than `besides` taken off, newest first, as undo
    takes one off as applied (prove.undo): each link's kept result and kept original give its line
    edits, put on the file with the edits made beside them (a local comment, a hand edit elsewhere, the
    judged entry's own code: kept). `besides`' own link is never taken off, recorded or not.
    None (judge the file as it is) when no other entry's link is recorded for the file, the links are
    not one chain, a record of another entry is not trusted (`trust`: written for another install), a
    kept copy is missing, or a link's edits meet someone else's (`Meets`, which `meets` names)."""
    got = take_off(store, relpath, data, besides, trust)
    return got if isinstance(got, bytes) else None


@dataclass(frozen=True)
class Meets:
    """Taking another entry's link off the file fails: someone's edit meets its line edits (a comment
    on the line it inserted, or an insertion where it inserted), so which code is whose is not known."""

    entry: str  # the other entry
    line: int  # the edited line, 1-based, in the file as it is (its first, for several)
    text: str  # that line as it reads now, stripped


def meets(store: Store, relpath: str, data: bytes, besides: str, trust: frozenset[str]) -> Meets | None:
    """Where taking the other entries' links off `data` (taken_off) fails on someone's edit; None: it
    does not (it succeeds, or fails for another reason)."""
    got = take_off(store, relpath, data, besides, trust)
    return got if isinstance(got, Meets) else None


def take_off(store: Store, relpath: str, data: bytes, besides: str, trust: frozenset[str]) -> bytes | Meets | None:
    """`taken_off`'s bytes, or the `Meets` that stops it, or None: both answers of one walk."""
    chain = store.chain(relpath)
    files = [f for _, f in chain]
    if any(b.original_sha256 != a.patched_sha256 for a, b in zip(files, files[1:])):
        return None
    theirs = [(name, f) for name, f in chain if name != besides]
    if not theirs or any(name not in trust for name, _ in theirs):
        return None
    current = data
    for name, f in reversed(theirs):
        if f.created:
            return None
        patched, original = kept_result(f, current, store), store.original(f.original_sha256)
        if patched is None or original is None:
            return None
        base, mine, before = (b.splitlines(keepends=True) for b in (patched, current, original))
        someone = kept_edits(base, mine)
        edits = sorted([*someone, *kept_edits(base, before)], key=lambda e: (e[0], e[1]))
        clash = [(a, b) for a, b in zip(edits, edits[1:]) if b[0] < a[1] or a[0] == a[1] == b[0] == b[1]]
        if clash:  # two insertions at one place, or edits that overlap: someone's edit meets the link's
            return _meets(name, someone, clash[0], mine)
        current = kept_merged(base, edits)
    return current


def _meets(entry: str, edits: list[Edit], pair: tuple[Edit, Edit], mine: list[bytes]) -> Meets:
    """The Meets naming the line of `mine` (the file now) that someone's edit of the clashing `pair`
    made (`edits`: the base-to-now edits, someone's; the other of the pair undoes the link)."""
    edit = next((e for e in pair if e in edits), pair[0])
    shift = sum(len(lines) - (end - start) for start, end, lines in edits if (start, end) < (edit[0], edit[1]))
    at = min(edit[0] + shift, max(len(mine) - 1, 0))
    text = mine[at].decode("utf-8", "replace").strip() if mine else ""
    return Meets(entry, at + 1, text)

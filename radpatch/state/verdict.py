"""The one decision of a patch's overall state from what the hashes say: `status` (state.decide,
for `apply` and `revert` too) and the engine-start self-check (radpatch/plugin.py) both call
`verdict`, so they cannot disagree on what a stale second dist-info, a record written for another
install, a missing file or a mix of file states means (docs/state.md).

Standard library and radpatch's record only (no libcst, no registry, no packaging): the
self-check imports it in every engine process. What only the registry or the rewrites can say
(an entry that no longer covers the version, another revision of it, a file whose hashes cannot
decide) is the caller's `files` function's to say.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from radpatch.install.dist_infos import DistInfo, canonical_name
from radpatch.install.wheel_record import InstallId
from radpatch.state.hashes import ByHash, FileRead
from radpatch.state.record import DamagedJournal, PatchRecord, Store


class State(str, Enum):
    APPLIED = "applied"
    NOT_APPLIED = "not-applied"
    DRIFTED = "drifted"
    INCOMPATIBLE = "incompatible"
    NOT_INSTALLED = "not-installed"
    OBSOLETE = "obsolete"


SATISFIED = (State.APPLIED, State.OBSOLETE)  # what `status --check` (and RADPATCH_REQUIRE) accepts


@dataclass(frozen=True)
class FileVerdict:
    """One file's state, as the hashes (or, where they cannot decide, the caller) read it."""

    relpath: str
    state: State  # APPLIED, NOT_APPLIED, DRIFTED; INCOMPATIBLE: the install cannot be patched there
    detail: str = ""  # the whole sentence, naming the file ("" when there is nothing to say)
    exists: bool = True


@dataclass(frozen=True)
class PatchVerdict:
    state: State
    reason: str
    record: PatchRecord | None  # the record, when it speaks for this very install
    stale: PatchRecord | None = None  # a record written for another install: not trusted
    files: tuple[FileVerdict, ...] = ()
    unrecorded: bool = False  # applied by its code, but no trusted record says radpatch wrote it
    pending: bool = False  # an interrupted run awaits the next apply or revert

    @property
    def satisfied(self) -> bool:
        """What `status --check` passes and RADPATCH_REQUIRE lets an engine start with."""
        return self.state in SATISFIED and not self.unrecorded and not self.pending


def trusted(record: PatchRecord | None, dist: DistInfo, dist_record: InstallId) -> bool:
    """A record speaks for this install only if it was written for it: same distribution and
    version, and (format 2 on) the same install (`dist_record`: its identity from RECORD, which
    the same files installed again from a rebuilt wheel keep)."""
    if record is None:
        return False
    same = canonical_name(record.distribution) == canonical_name(dist.name) and record.version == dist.version
    return same and (not record.dist_record_sha256 or dist_record.holds(record.dist_record_sha256))


def file_verdict(
    relpath: str, read: FileRead, trusted: bool, *, lost: str, imported_from: str = "", quiet: bool = False
) -> FileVerdict:
    """One recorded file's state from what was read of it (state.hashes.read_file), with its words:
    the one mapping status (state.decide, state.unloaded) and the engine-start check make.

    `trusted`: the record speaks for this install; `lost`: the sentence for a module of the install
    that is gone (no patch created it); `imported_from`: " (imported from ...)" when not the installed
    path; `quiet`: say nothing of a file that reads applied or not applied (status's table).
    Where the hashes cannot decide (UNDECIDED, a file is there) this says drifted: status asks the
    rewrites instead (decide passes its `judge`), which the engine-start check never loads."""
    if read.error is not None:  # status reads the install first and stops there (exit 4): install.targets
        return FileVerdict(relpath, State.DRIFTED, f"{relpath} unreadable ({read.error.strerror or read.error})")
    if read.lost:  # a broken install: nothing else is said of the patch
        return FileVerdict(relpath, State.INCOMPATIBLE, lost, False)
    data, seen = read.data, read.seen
    if data is None and not trusted:  # no file, and no record of radpatch's that says it made one
        return FileVerdict(relpath, State.NOT_APPLIED, "" if quiet else f"{relpath} is gone{imported_from}", False)
    if seen is ByHash.APPLIED:
        return FileVerdict(relpath, State.APPLIED, "" if quiet else imported_from.strip(), data is not None)
    if seen is ByHash.NOT_APPLIED:
        what = "is gone (as before the patch created it)" if data is None else _before(read)
        return FileVerdict(
            relpath,
            State.NOT_APPLIED,
            "" if quiet and not read.by_hand else f"{relpath} {what}{imported_from}",
            data is not None,
        )
    if data is None:
        return FileVerdict(relpath, State.DRIFTED, f"{relpath}: radpatch's module is gone{imported_from}", False)
    if not trusted:
        why = f"{relpath} is not the installed file, and no record of radpatch's for this install says what it is"
        return FileVerdict(relpath, State.DRIFTED, f"{why}{imported_from}")
    return FileVerdict(relpath, State.DRIFTED, f"{relpath} changed since radpatch wrote it{imported_from}")


def _before(read: FileRead) -> str:
    """What a file that reads not applied is, truly: RECORD's bytes, radpatch's other patches on
    them (a reinstall voided this one's link, then they were applied again), or a state from before
    the patch that is not RECORD's bytes (comment edits, or someone's edit the patch was written on)."""
    if read.pristine:
        return "is the pristine file"
    if read.by_hand:
        return taken_off_by_hand(read.carries)
    if read.carries:
        return f"carries {', '.join(read.carries)} only"
    return "is as it was before the patch"


def taken_off_by_hand(carries: Sequence[str]) -> str:
    """What a file is whose link of the patch was taken off by hand from a stack (state.composed)."""
    return (
        f"had the patch's change taken off by hand: it carries only {', '.join(carries)}, byte for byte "
        "(radpatch's record follows the file at the next apply or revert)"
    )


def pending_note(store: Store) -> str:
    """The note of an interrupted run whose journal in `store` awaits the next apply or revert ("": none)."""
    if not store.journal.is_dir():
        return ""
    try:
        store.journal_plan()
        return "a radpatch run was interrupted: the next apply or revert completes it"
    except DamagedJournal as exc:
        return f"{exc.message}: {exc.hint}"


def stale_note(patch: str, stale: PatchRecord, dist: DistInfo) -> str:
    return (
        f"radpatch's record of {patch} is from {stale.distribution} {stale.version}, not this install of "
        f"{dist.name} {dist.version}: it is not trusted (the files decide)"
    )


UNRECORDED_MAYBE = "a hand edit; other edits may be present"


def unrecorded_note(name: str, what: str = UNRECORDED_MAYBE, how: str = "") -> str:
    """The reason of a patch applied by its code with no record of radpatch's; `what`: what else the
    file carries, when the caller has read it (prove.unrecorded); `how`: the apply that adopts it."""
    return (
        f"carries the patch's code but radpatch has no record of it ({what}): "
        f"`{how or f'radpatch apply {name}'}` adopts it after checking it against the installed wheel"
    )


def verdict(
    patch: str,
    raw: PatchRecord | None,
    dists: Sequence[DistInfo],
    dist_record: InstallId,
    files: Callable[[PatchRecord | None], Sequence[FileVerdict] | PatchVerdict],
    *,
    ambiguity: str = "",
    missing: str = "",
    pending: str = "",
) -> PatchVerdict:
    """The state of `patch` in one install directory.

    `raw`: radpatch's record of it there (trusted or not); `dists`: the dist-infos found providing
    its package there (two or more: `ambiguity` says why, and the patch is incompatible; none:
    `missing` says why, and it is not installed); `dist_record`: the one's install identity (from RECORD);
    `files(record)`: each file's state, given the record when it is trusted (None: the files alone
    decide), or a whole verdict when something above the files decides (the registry: an entry
    that no longer covers the version); `pending`: the note of an interrupted run ("": none)."""
    if len(dists) > 1:
        return PatchVerdict(State.INCOMPATIBLE, ambiguity, None)
    if not dists:
        return PatchVerdict(State.NOT_INSTALLED, missing, None)
    (dist,) = dists
    record = raw if trusted(raw, dist, dist_record) else None
    stale = raw if record is None else None
    got = files(record)
    out = got if isinstance(got, PatchVerdict) else combine(patch, record, got)
    notes = [out.reason] if out.reason else []
    if stale is not None:
        notes.append(stale_note(patch, stale, dist))
    if pending:
        notes.append(pending)
    return PatchVerdict(
        out.state, "; ".join(notes), out.record, stale, out.files, out.unrecorded, out.pending or bool(pending)
    )


def combine(patch: str, record: PatchRecord | None, each: Sequence[FileVerdict]) -> PatchVerdict:
    """The patch's state from its files' (`record`: the record that judged them, None when the
    files alone did: a patch applied by its code then has no record of radpatch's)."""
    files = tuple(each)
    broken = [f for f in files if f.state is State.INCOMPATIBLE]
    if broken:  # the install cannot be read or patched there: nothing else is said of it
        return PatchVerdict(State.INCOMPATIBLE, broken[0].detail, record)
    states = {f.state for f in files}
    overall = states.pop() if len(states) == 1 else State.DRIFTED
    reason = "; ".join(f.detail for f in files if f.detail)
    if not files:
        overall, reason = State.DRIFTED, "the record lists no file"
    if overall is State.DRIFTED and not reason:
        reason = "some files are patched and some are not"
    if overall is State.APPLIED and record is None and any(f.exists for f in files):
        reason = "; ".join(d for d in (reason, unrecorded_note(patch)) if d)
        return PatchVerdict(overall, reason, record, files=files, unrecorded=True)
    return PatchVerdict(overall, reason, record, files=files)


def unmet_requirements(
    applied: Sequence[tuple[str, Sequence[str]]], met: Callable[[str], bool], drifted: Callable[[str], bool | str]
) -> dict[str, str]:
    """The one requirement pass (status, the SBOM, `diff`, the engine-start check): for each applied
    entry, given as (its name, its requirements: as its registry writes them and as radpatch's
    record kept them), the note naming those not met. Such an entry reads drifted: it is not what
    runs as tested, and so is every applied entry that requires it, through any chain (att47 #2: c3
    requires c2 requires c1; c1 taken off by hand leaves c2 and c3 drifted, not c3 applied).
    `met(name)`: whether the caller reads that requirement applied (status: its state, obsolete
    counting, or radpatch's record for an entry no registry loaded has; the engine-start check: the
    record's patches the hashes read applied, the conservative reading). `drifted(name)`: whether
    that requirement, not met, reads drifted itself: the note says so, as of one drifted down a chain (a
    text: what it reads instead, for one applied without radpatch's record, which the check does not count)."""
    out: dict[str, str] = {}
    changed = True
    while changed:  # to a fixed point: each round can only add entries, at most one round per entry
        changed = False
        for name, requires in applied:
            if name in out:
                continue
            reqs = list(dict.fromkeys(requires))
            missing = [req for req in reqs if not met(req) and not drifted(req)]
            itself = [req for req in reqs if not met(req) and drifted(req)]
            chained = [req for req in reqs if req in out and met(req)]
            if missing or itself or chained:
                out[name] = "; ".join(
                    [
                        *([requirement_note(missing)] if missing else []),
                        *(_drifted_note(r, reading=drifted(r)) for r in itself),
                        *(_drifted_note(r, chained=True) for r in chained),
                    ]
                )
                changed = True
    return out


def _drifted_note(requirement: str, chained: bool = False, reading: bool | str = True) -> str:
    why = " (a requirement of its own is not applied)" if chained else ""
    return f"it requires {requirement}, which {reading if isinstance(reading, str) else 'reads drifted'}{why}"


def with_note(reason: str, note: str) -> str:
    return "; ".join(r for r in (reason, note) if r)


def requirement_note(missing: Sequence[str]) -> str:
    return f"it requires {', '.join(missing)}, which is not applied"

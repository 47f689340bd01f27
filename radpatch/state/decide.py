"""Decide what state a patch is in, from what install.targets read of the install (`InstalledTargets`) and
from radpatch's record of what it wrote: read through the file chains of state.hashes first, and
from the files' code only when hashes cannot decide, by the judgement the caller passes in
(`Judge`: prove.form.judge runs the rewrites; nothing here loads libcst or calls install/ back).
The model is written down in docs/state.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.files import read_regular
from radpatch.install.dist_infos import DistInfo
from radpatch.install.environment import Installed, PythonEnv
from radpatch.install.targets import Declined, InstalledTargets, ReadFile
from radpatch.install.wheel_record import InstallId
from radpatch.registry.model import Patch, Rewrite
from radpatch.state.hashes import ByHash, FileRead, by_hash, carried
from radpatch.state.record import FileRecord, PatchRecord, Store, state_sha
from radpatch.state.stack import Meets, own_chain, take_off, trusted_names
from radpatch.state.verdict import FileVerdict, PatchVerdict, combine, file_verdict, pending_note, verdict
from radpatch.state.verdict import State as State

if TYPE_CHECKING:
    from radpatch.registry.catalog import Registry
    from radpatch.state.imported import Shadow


@dataclass(frozen=True)
class FileState:
    module: str
    path: Path
    relpath: str
    rewrites: tuple[Rewrite, ...]
    data: bytes
    state: State
    detail: str
    wheel_record_sha256: str | None  # what the distribution's RECORD says, when it lists the file
    exists: bool = True  # False: no such file (a module an entry creates); `data` is then b""
    # a never-applied entry that does not apply on a file only radpatch's other entries changed: those
    # entries, oldest first (the file is theirs, not someone else's: not applied, never drifted)
    left_by: tuple[str, ...] = ()
    hint: str = ""  # what to do, when the state has its own way out (another entry's line edited: `ambiguous`)

    @property
    def sha256(self) -> str:
        return state_sha(self.data if self.exists else None)

    @property
    def wheel_record_match(self) -> bool | None:
        return None if self.wheel_record_sha256 is None else self.wheel_record_sha256 == self.sha256


@dataclass(frozen=True)
class PatchState:
    patch: Patch
    state: State
    reason: str
    dist: Installed | None
    files: tuple[FileState, ...]
    record: PatchRecord | None  # radpatch's record of this patch, only if it belongs to this very install
    pending: bool = False  # an interrupted run's journal awaits the next apply/revert
    # applied by its code alone: no record of radpatch's says it wrote it (a hand edit, perhaps
    # with other edits only the wheel's bytes would show): `status --check` does not count it
    unrecorded: bool = False
    stale: PatchRecord | None = None  # a record left from another install (upgrade, reinstall of another build)
    orphan: Path | None = None  # the distribution is gone; its state directory still records this patch
    # applied, but the entry no longer patches this version (only revert applies), and why (`obsolete`: the
    # version contains the change; else the entry does not cover it)
    declined: Declined | None = None
    # the files the entry's current revision rewrites, as read (install.targets), or the refusal saying
    # why it cannot name them
    read_files: tuple[ReadFile, ...] | RefusedError = ()
    dist_record: InstallId = InstallId()  # the install's identity (from its RECORD), as read
    hint: str = ""  # what to do, when the reason has its own (a compiled extension shadows the module)

    @property
    def root(self) -> Path | None:
        return self.dist.root if self.dist else self.orphan


# how a file's code reads when its hashes cannot decide: (patch, its rewrites of the file, the
# file's bytes, where (for messages), radpatch's record of the file if any, the store of kept
# originals) -> its state and why; prove.form.judge, passed in by whoever asks (apply, revert, status,
# diff, the SBOM): state/ never imports prove/
Judge = Callable[[Patch, tuple[Rewrite, ...], bytes, str, "FileRecord | None", Store], tuple[State, str]]


def patch_state(patch: Patch, env: PythonEnv, judge: Judge) -> PatchState:
    """The state of `patch` in `env`: what is installed read first (install.targets), then decided
    here, `judge` (the caller's: prove.form.judge, which runs the rewrites) judging only what the
    hashes cannot. What `status`, `diff` and the SBOM ask; `apply` and `revert` run the same two
    steps themselves."""
    from radpatch.install.targets import read

    return decide(read(patch, env), env, judge)


@dataclass(frozen=True)
class States:
    """Each patch's state as every command reads it (status, the SBOM, `diff`)."""

    each: list[PatchState]
    shadowed: dict[Path, Shadow]  # applied files the target interpreter would import from elsewhere


def states(
    registry: Registry, env: PythonEnv, patches: Sequence[Patch], judge: Judge, *, imported: bool = True
) -> States:
    """The states of `patches`: each decided (patch_state, with `judge`); with `imported`, an applied file the
    target interpreter would not import named in its reason (state.imported: it asks the
    interpreter); then an applied entry whose requirement is not applied read drifted
    (state.requirements, the pass the engine-start check makes too)."""
    from radpatch.state.imported import shadows
    from radpatch.state.requirements import requirements_met

    each = [patch_state(p, env, judge) for p in patches]
    shadowed: dict[Path, Shadow] = {}
    if imported:
        files = [(f.module, f.path) for s in each if s.state is State.APPLIED for f in s.files]
        shadowed = {sh.patched: sh for sh in shadows(env, files)}
        each = [_with_shadow(s, shadowed) for s in each]
    return States(requirements_met(registry, env, each, judge), shadowed)


def _with_shadow(s: PatchState, shadowed: dict[Path, Shadow]) -> PatchState:
    mine = [shadowed[f.path].describe() for f in s.files if f.path in shadowed]
    return replace(s, reason="; ".join([*([s.reason] if s.reason else []), *mine])) if mine else s


def decide(found: InstalledTargets, env: PythonEnv, judge: Judge) -> PatchState:
    """The state of `found.patch`, from what was read of the install and radpatch's record: the
    overall decision is state.verdict's (the engine-start self-check makes the same one); what only
    the registry knows, and `judge` for a file the hashes cannot decide, are asked from here.
    `env`: where to look for the record of a distribution no longer installed (an orphan)."""
    patch, dist = found.patch, found.dist
    if patch.from_record:  # no registry given has the entry: its record alone decides
        from radpatch.state import unloaded

        return unloaded.decide(patch, env)
    if found.ambiguous is not None:  # two distributions (or dist-infos) provide the package
        exc = found.ambiguous
        dists = [_dist_info(d) for d in exc.dists]
        v = verdict(patch.name, None, dists, InstallId(), lambda _: (), ambiguity=f"{exc.message}; {exc.hint}")
        return PatchState(patch, v.state, v.reason, None, (), None)
    if dist is None:
        return _not_installed(patch, found.missing, env)
    store = Store(dist.root)
    early: list[PatchState] = []  # what the registry decided above the files
    read: list[FileState] = []

    def files(record: PatchRecord | None) -> PatchVerdict:
        got = _decide(found, dist, store, record, judge)
        if isinstance(got, PatchState):
            early.append(got)
            return PatchVerdict(got.state, got.reason, record)
        judged, states = got
        read.extend(states)
        each = [FileVerdict(f.relpath, f.state, f.detail, f.exists) for f in states]
        return combine(patch.name, judged, each)

    raw = store.records().get(patch.name)
    v = verdict(patch.name, raw, [_dist_info(dist)], found.dist_record, files, pending=pending_note(store))
    trusted = raw if v.stale is None else None
    if early:
        ps = replace(early[0], reason=v.reason)
    else:
        kept = tuple(read) if v.state is not State.INCOMPATIBLE else ()
        hint = next((f.hint for f in read if f.hint), "")
        ps = PatchState(patch, v.state, v.reason, dist, kept, trusted, unrecorded=v.unrecorded, hint=hint)
    return replace(ps, read_files=found.files, dist_record=found.dist_record, stale=v.stale, pending=v.pending)


def _dist_info(dist: Installed) -> DistInfo:
    return DistInfo(dist.name, str(dist.version), dist.dist_info.name)


def _not_installed(patch: Patch, missing: str, env: PythonEnv) -> PatchState:
    for d in env.paths:
        store = Store(d)
        if store.record_path.is_file() and patch.name in store.records():
            why = (
                f"{patch.distribution} was uninstalled from {d}; "
                f"radpatch's record of {patch.name} remains in {store.dir}: "
                f"`radpatch revert {patch.name}` forgets it (nothing is left to restore)"
            )
            return PatchState(patch, State.NOT_INSTALLED, why, None, (), None, orphan=d)
    v = verdict(patch.name, None, [], InstallId(), lambda _: (), missing=missing)
    return PatchState(patch, v.state, v.reason, None, (), None)


def _decide(
    found: InstalledTargets, dist: Installed, store: Store, record: PatchRecord | None, judge: Judge
) -> PatchState | tuple[PatchRecord | None, list[FileState]]:
    """What the registry decides of the patch above its files (a whole state), or its files' states
    for state.verdict to combine with the record that judged them (None: the files alone decided;
    `record`, radpatch's record when it speaks for this install, is void for another revision
    whose files a reinstall replaced)."""
    patch = found.patch
    if found.declined is not None:  # the entry does not patch this version
        state = State.OBSOLETE if found.declined.obsolete else State.INCOMPATIBLE
        why = found.declined.why
        still = _still_applied(dist, store, record)
        if still:
            why = (
                f"{why}; but radpatch's patch is still applied: "
                f"`radpatch revert {patch.name}` restores the kept originals"
            )
            return PatchState(patch, State.APPLIED, why, dist, still, record, declined=found.declined)
        return PatchState(patch, state, why, dist, (), record)
    judged = record
    if record is not None and record.registry_digest != patch.digest:
        # another revision of the entry wrote these files (its rewrites, or even its modules, may
        # differ from the current one's): what radpatch wrote decides, read from the record
        still = _still_applied(dist, store, record)
        if still:
            return PatchState(patch, State.APPLIED, "", dist, still, record)
        if _void(dist, store, record):  # a reinstall replaced every file it wrote: it says nothing true
            judged = None
    if isinstance(found.files, RefusedError):
        return PatchState(patch, State.INCOMPATIBLE, found.files.message, dist, (), record, hint=found.files.hint)
    files = []
    trust = trusted_names(store, dist, found.dist_record)
    for t in found.files:
        try:
            files.append(_file_state(patch, store, judged, t, judge, trust))
        except RefusedError as exc:  # e.g. an editable install, or the module is missing
            return PatchState(patch, State.INCOMPATIBLE, exc.message, dist, (), record)
    files += _left_behind(dist, store, judged, {t.rewritten.relpath for t in found.files})
    return judged, files


def _still_applied(dist: Installed, store: Store, record: PatchRecord | None) -> tuple[FileState, ...]:
    """The files of a trusted record when every one still carries the patch (by the hashes of the
    file chains: patches stacked on top, comment and layout edits count as carrying it), else ():
    an entry that changed or stopped covering a version must not hide a patched file from `revert`."""
    return _record_files(dist, store, record, ByHash.APPLIED)


def _left_behind(dist: Installed, store: Store, record: PatchRecord | None, current: set[str]) -> list[FileState]:
    """Files an earlier revision of the entry patched that the current one does not rewrite (it
    moved to another module), when they do not read as pristine: such a file is radpatch's and
    changed since, so the patch cannot read as applied or not applied."""
    out = []
    for f in record.files if record is not None else ():
        if f.path in current:
            continue
        path = dist.root / f.path
        found = _read(path)
        data = found or b""
        wheel = dist.recorded_sha256(f.path)
        if by_hash(state_sha(found), f, store, wheel, found) is not ByHash.NOT_APPLIED:
            why = f"{f.path}: an earlier revision of the entry patched it, and it changed since"
            out.append(FileState(f.module, path, f.path, (), data, State.DRIFTED, why, wheel))
    return out


def _void(dist: Installed, store: Store, record: PatchRecord) -> bool:
    """Every file of the record reads not-applied by its hashes (a reinstall replaced them)."""
    return bool(_record_files(dist, store, record, ByHash.NOT_APPLIED))


def _record_files(dist: Installed, store: Store, record: PatchRecord | None, want: ByHash) -> tuple[FileState, ...]:
    if record is None or not record.files:
        return ()
    out = []
    for f in record.files:
        path = dist.root / f.path
        try:
            found = _read(path)
        except OSError:
            return ()
        wheel = dist.recorded_sha256(f.path)
        if by_hash(state_sha(found), f, store, wheel, found) is not want:
            return ()
        state = State.APPLIED if want is ByHash.APPLIED else State.NOT_APPLIED
        out.append(FileState(f.module, path, f.path, (), found or b"", state, "", wheel, found is not None))
    return tuple(out)


def _read(path: Path) -> bytes | None:
    """The file's bytes, or None when there is no such file (a module a patch created, or will);
    any other failure is an OSError."""
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None


def _file_state(
    patch: Patch, store: Store, record: PatchRecord | None, t: ReadFile, judge: Judge, trust: frozenset[str]
) -> FileState:
    """One file's state for `patch`; `trust`: the entries whose records speak for this install
    (`trusted_names`), the only ones whose code may be taken off the file to judge it (`taken_off`)."""
    module, relpath, rws = t.rewritten.module, t.rewritten.relpath, t.rewritten.rewrites
    path, wheel = t.path, t.wheel_sha
    if t.problem is not None:
        raise t.problem
    # a module the entry creates, or one the install never had (another entry creates it), may be absent
    if t.absent is not None and not (t.creates or wheel is None):
        raise t.absent
    if t.data is None:
        # no such module: one the entry creates, or one another entry creates (the install never had
        # it: RECORD does not list it); a module of the install that is gone is a broken install
        if not isinstance(t.error, FileNotFoundError) or not (t.creates or wheel is None):
            raise EnvironmentProblem(
                f"cannot read {path}: {t.error.strerror if t.error else ''}",
                "check the installation (reinstall it) and radpatch's permissions",
            )
    data = t.data or b""
    recorded = next((f for f in (record.files if record else ()) if f.path == relpath), None)
    # no record of a missing file: not applied (a module the entry creates, or another entry does)
    seen = (
        by_hash(state_sha(t.data), recorded, store, wheel, t.data)
        if recorded or t.data is not None
        else ByHash.NOT_APPLIED
    )
    v = file_verdict(relpath, FileRead(t.data, seen), record is not None, lost="", quiet=True)
    state, detail = v.state, v.detail
    others = own_chain(store, relpath, t.data, wheel) if seen is ByHash.UNDECIDED and not recorded else []
    if others and patch.name not in others:
        # the file is exactly radpatch's recorded work of other entries on the wheel's bytes: whatever of
        # this entry's code it holds, they put there (a one-gap twin inserting the same code), not this
        # entry: it is not applied (apply judges what upstream carries on the kept original: own_base)
        return FileState(module, path, relpath, rws, data, State.NOT_APPLIED, "", wheel, left_by=tuple(others))
    if t.data is None and state is State.NOT_APPLIED and not t.creates:
        detail = f"{relpath}: no such module (yet): the entry that creates it comes first"
    elif seen is ByHash.UNDECIDED and t.data is not None:  # the hashes cannot decide: the rewrites judge (libcst)
        state, why = judge(patch, rws, data, str(path), recorded, store)
        detail = f"{relpath}: {why}" if why else ""
        base = take_off(store, relpath, data, patch.name, trust) if state is State.APPLIED and not recorded else None
        if isinstance(base, Meets):
            return ambiguous(patch.name, t, data, base)
        if base is not None and judge(patch, rws, base, str(path), None, store)[0] is not State.APPLIED:
            # the code is there only as radpatch's other entries put it (a one-gap twin inserting the same
            # code), with someone's unrelated edits beside: without those entries it is not applied
            return FileState(module, path, relpath, rws, data, State.NOT_APPLIED, "", wheel)
        others = (
            carried(store, relpath, state_sha(t.data), wheel, data) if state is State.DRIFTED and not recorded else []
        )
        if others:  # never applied, on a file only radpatch's other entries changed: nobody else did
            why = (why.partition("matches neither form: ")[2] or why).split("; undoing stops at ")[0]
            detail = f"does not apply as {', '.join(others)} left it: {why}"
            return FileState(module, path, relpath, rws, data, State.NOT_APPLIED, detail, wheel, left_by=tuple(others))
    if t.creates and t.data is not None and not recorded and state is not State.APPLIED:
        state, detail = State.DRIFTED, f"{relpath}: {in_the_way(wheel is not None)}"  # not an order, nor a change
    return FileState(module, path, relpath, rws, data, state, detail, wheel, exists=t.data is not None)


def in_the_way(listed: bool) -> str:
    """What a file is, found where an entry creates its module and not holding the entry's code:
    the installed release's own module (RECORD lists it), or a file the distribution did not install."""
    if listed:
        return (
            "the installed release has this module (its RECORD lists it), and the entry creates it: rewrite it "
            "instead of creating it, or limit the entry's `versions:` to the releases without it"
        )
    return (
        "a file the distribution did not install (its RECORD does not list it) is in the way of the module the "
        "entry creates, and its code differs from the entry's content: compare them, and delete the file if it "
        "is left over"
    )


def ambiguous(name: str, t: ReadFile, data: bytes, m: Meets) -> FileState:
    """The file holds `name`'s code, but only beside entry `m.entry`'s link, which someone's edit meets
    (a comment on the line that entry inserted): whether the code is `name`'s own or that entry's copy
    cannot be told, so the entry reads neither applied nor not applied (drifted), and apply refuses
    (att21g F8: "already applied" by the other entry's copy, while status said apply adopts it)."""
    rel = t.rewritten.relpath
    detail = (
        f"{rel}:{m.line} (`{m.text}`) is {m.entry}'s line, edited since: whether {name}'s code there is "
        f"its own or {m.entry}'s copy cannot be told"
    )
    hint = (
        f"restore line {m.line} as {m.entry} wrote it and apply {name} again, or revert {m.entry} "
        f"(radpatch revert {m.entry}) and apply both"
    )
    rws = t.rewritten.rewrites
    return FileState(t.rewritten.module, t.path, rel, rws, data, State.DRIFTED, detail, t.wheel_sha, hint=hint)


def reinstall_hint(ps: PatchState) -> str:
    """How to get past a refusal of a file someone else changed: a file the wheel installed goes back
    to its bytes (`radpatch restore`); a module the patch creates has none to go back to (RECORD does
    not list it), so it is removed."""
    # the files in the way: every file not as installed (drifted, or patched by radpatch: restoring
    # only the drifted one would leave the entry half applied, a second refusal); pristine ones are left out
    changed = [f for f in ps.files if f.state is not State.NOT_APPLIED] or list(ps.files)
    installed = [f.relpath for f in changed if f.wheel_record_sha256 is not None]
    made = [f.relpath for f in changed if f.wheel_record_sha256 is None and f.exists]
    if not installed and not made:
        installed = [ps.dist.name if ps.dist else ps.patch.distribution]
    steps = []
    if installed:
        steps.append(
            f"put the files back to the installed bytes (radpatch restore {' '.join(installed)}, no reinstall)"
        )
    if made:
        steps.append(f"remove {' '.join(made)} (the module the patch creates: the wheel has no bytes of it to restore)")
    return f"{' and '.join(steps)}, then apply again"


def refused(ps: PatchState, doing: str) -> RefusedError:
    """The refusal to `doing` (apply, re-apply, revert) a patch in a state that does not allow it."""
    hints = {
        State.DRIFTED: f"someone else changed the file; {reinstall_hint(ps)}",
        State.INCOMPATIBLE: "install a supported version, or declare a variant for this one in the registry",
        State.NOT_INSTALLED: "install it first, or point --python at the environment that has it",
    }
    return RefusedError(
        f"{ps.patch.name}: cannot {doing}: {ps.state.value}: {ps.reason}", ps.hint or hints.get(ps.state, "")
    )

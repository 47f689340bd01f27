"""Decide what state a patch is in, from what install.targets read of the install (`InstalledTargets`) and
from radpatch's record of what it wrote: read through the file chains of state.hashes first, and
from the files' code only when hashes cannot decide, by the judgement the caller passes in
(`Judge`: prove.form.judge runs the rewrites; nothing here loads libcst or calls install/ back).
The model is written down in docs/state.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from radpatch.errors import PartlyPutBack, RefusedError
from radpatch.install.dist_infos import DistInfo
from radpatch.install.environment import Installed, PythonEnv
from radpatch.install.targets import InstalledTargets
from radpatch.install.wheel_record import InstallId
from radpatch.registry.model import Patch, creates
from radpatch.state import orphan
from radpatch.state.decided import FileState as FileState
from radpatch.state.decided import Judge as Judge
from radpatch.state.decided import PatchState as PatchState
from radpatch.state.decided import Renamed as Renamed
from radpatch.state.file_decide import file_state, left_behind, named_in_mix, recorded_files, still_applied, void
from radpatch.state.record import PatchRecord, Store
from radpatch.state.requirements import requiring
from radpatch.state.stack import trusted_names
from radpatch.state.verdict import FileVerdict, PatchVerdict, combine, pending_note, verdict
from radpatch.state.verdict import State as State

if TYPE_CHECKING:
    from radpatch.registry.catalog import Registry
    from radpatch.state.imported import Shadow


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
    registry: Registry,
    env: PythonEnv,
    patches: Sequence[Patch],
    judge: Judge,
    renamed: Renamed,
    *,
    imported: bool = True,
) -> States:
    """The states of `patches`: each decided (patch_state, with `judge`); with `imported`, an applied file the
    target interpreter would not import named in its reason (state.imported: it asks the
    interpreter); then an applied entry whose requirement is not applied read drifted
    (state.requirements, the pass the engine-start check makes too; `renamed`: a requirement applied
    under its old name, write.takeover's rule, is met)."""
    from radpatch.state.imported import shadows
    from radpatch.state.requirements import requirements_met

    each = [patch_state(p, env, judge) for p in patches]
    shadowed: dict[Path, Shadow] = {}
    asked: set[Path] = set()

    def hidden(s: PatchState) -> bool:  # a requirement's file too (a requirement not named is decided later)
        files = [(f.module, f.path) for f in s.files if f.path not in asked]
        if imported and files:
            asked.update(path for _, path in files)
            shadowed.update((sh.patched, sh) for sh in shadows(env, files, here=True))
        return any(f.path in shadowed for f in s.files)

    if imported:
        files = [(f.module, f.path) for s in each if s.state is State.APPLIED for f in s.files]
        asked.update(path for _, path in files)
        shadowed.update((sh.patched, sh) for sh in shadows(env, files, here=True))
        each = [_with_shadow(s, shadowed) for s in each]
    return States(requirements_met(registry, env, each, judge, renamed, hidden), shadowed)


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
            gone = PatchState(patch, State.NOT_INSTALLED, "", None, (), None, orphan=d)
            return orphan.state(patch.name, patch.distribution, d, gone)
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
        still = still_applied(dist, store, record)
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
        still = still_applied(dist, store, record)
        if still:
            return PatchState(patch, State.APPLIED, "", dist, still, record)
        if void(dist, store, record):  # a reinstall replaced every file it wrote: it says nothing true
            judged = None
        else:  # some carry it and some do not (put back, edited): the record's files say which, as at engine start
            return record, recorded_files(dist, store, record)
    if isinstance(found.files, RefusedError):
        return PatchState(patch, State.INCOMPATIBLE, found.files.message, dist, (), record, hint=found.files.hint)
    files = []
    trust = trusted_names(store, dist, found.dist_record)
    listed = bool(found.dist_record.files or found.dist_record.record)  # RECORD read: it says whose a file is
    for t in found.files:
        try:
            files.append(file_state(patch, store, judged, t, judge, trust, dist.python, listed))
        except RefusedError as exc:  # e.g. an editable install, or the module is missing
            return PatchState(patch, State.INCOMPATIBLE, exc.message, dist, (), record, hint=exc.hint)
    files += left_behind(dist, store, judged, {t.rewritten.relpath: t.rewritten.module for t in found.files})
    return judged, named_in_mix(dist, store, judged, files)


def reinstall_hint(ps: PatchState, then: str = "apply again") -> str:
    """How to get past a refusal of a file someone else changed: a file the wheel installed goes back
    to its bytes (`radpatch restore`); a module the patch creates has none to go back to (RECORD does
    not list it), so it is removed. `then`: what to run after ("revert it again": only the drifted
    files, as revert takes an entry partly put back off the rest, and restore refuses a file that
    carries a patch every file of which is as radpatch left it: rev53)."""
    # the files in the way: every file not as installed (drifted, or patched by radpatch: restoring
    # only the drifted one would leave the entry half applied, which apply refuses); pristine ones are left out
    changed = [f for f in ps.files if f.state is not State.NOT_APPLIED] or list(ps.files)
    if then.startswith("revert"):
        changed = [f for f in changed if f.state is State.DRIFTED] or changed
    installed = [f.relpath for f in changed if f.wheel_record_sha256 is not None]
    made = [f for f in changed if f.wheel_record_sha256 is None and f.exists]
    if not installed and not made:
        installed = [ps.dist.name if ps.dist else ps.patch.distribution]
    steps = []
    if installed:
        steps.append(
            f"put the files back to the installed bytes (radpatch restore {' '.join(installed)}, no reinstall)"
        )
    ours = "the module the patch creates: the wheel has no bytes of it to restore"
    before = "a module the wheel does not install, which this patch does not create: no bytes to restore"
    for whose, group in (
        (ours, [f for f in made if creates(f.rewrites)]),
        (before, [f for f in made if not creates(f.rewrites)]),
    ):
        if group:
            steps.append(f"remove {' '.join(f.relpath for f in group)} ({whose})")
    return f"{' and '.join(steps)}, then {then}"


def _with_dependents(ps: PatchState) -> list[str]:
    """`ps`'s patch and every applied one that requires it or is stacked above it on a file, down any
    chain (radpatch's record and the files' hashes): what one revert must name (att50 #5)."""
    from radpatch.state.restack import together  # restack builds on this module

    if ps.root is None:
        return [ps.patch.name]
    records = Store(ps.root).records()
    names, grew = {ps.patch.name}, True
    while grew:
        more = set(requiring(records, names))
        stacked = set(together(ps.root, names, names)) - names
        grew = bool(more or stacked)
        names |= more | stacked
    return together(ps.root, names, [])


def refused(ps: PatchState, doing: str) -> RefusedError:
    """The refusal to `doing` (apply, re-apply, revert) a patch in a state that does not allow it."""
    states = {f.state for f in ps.files}
    if ps.state is State.DRIFTED and ps.record is not None and states == {State.APPLIED, State.NOT_APPLIED}:
        on = [f.relpath for f in ps.files if f.state is State.APPLIED]
        every = " ".join(_with_dependents(ps))  # write.apply narrows it to what cannot stay on (dry runs)
        return PartlyPutBack(
            f"{ps.patch.name}: cannot {doing}: {ps.state.value}: {ps.reason}",
            f"someone put some of its files back; `radpatch revert {every}` takes it off {' '.join(on)} too, "
            "then apply it again",
            ps.patch.name,
            on,
        )
    again = "revert it again" if doing == "revert" else "apply again"
    hints = {
        # a revert after the restore forgets what the files no longer carry, and takes it off the rest
        State.DRIFTED: f"someone else changed the file; {reinstall_hint(ps, again)}",
        State.INCOMPATIBLE: "install a supported version, or declare a variant for this one in the registry",
        State.NOT_INSTALLED: "install it first, or point --python at the environment that has it",
    }
    return RefusedError(
        f"{ps.patch.name}: cannot {doing}: {ps.state.value}: {ps.reason}", ps.hint or hints.get(ps.state, "")
    )

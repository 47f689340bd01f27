"""Apply and revert patches, one step after the other (docs/architecture.md, the walk of apply):
read what is installed (install.targets), decide each patch's state (state.decide, hashes first),
plan and prove every change in memory (prove/), then write all or nothing and record it."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from radpatch import faults
from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.files import (
    ChangedMeanwhile,
    atomic_write,
    create_new,
    missing_dirs,
    refresh_bytecode,
    remove_module,
)
from radpatch.gcpause import pausing
from radpatch.install import targets as installed
from radpatch.install import wheel_record
from radpatch.install.environment import PythonEnv
from radpatch.install.locate import find_target
from radpatch.prove import adopt, carried_too, plan, run, undo
from radpatch.prove.form import judge
from radpatch.prove.overlaps import apply_check
from radpatch.registry import series
from radpatch.registry.model import Patch
from radpatch.state import recording
from radpatch.state.decide import PatchState, State, decide, refused, reinstall_hint
from radpatch.state.record import Store, sha256, state_sha
from radpatch.state.requirements import refuse_applied_dependents
from radpatch.state.restack import restack

Say = Callable[[str], None]
# the RECORD bytes of files of an installed distribution, read from its wheel (checked against RECORD),
# and where they came from: apply's adopt path asks for them (commands/change.py reads the wheel)
WheelBytes = adopt.WheelBytes
Change = run.Change
Overlay = undo.Overlay


@contextlib.contextmanager
def exclusive(env: PythonEnv, patches: list[Patch], say: Say) -> Iterator[None]:
    """Hold the lock of every installation the patches touch; first finish any interrupted run;
    at the end, remove radpatch's state directory where nothing is recorded any more."""
    roots = sorted({r for r in (_root(env, p) for p in patches) if r})
    with contextlib.ExitStack() as stack:
        for root in roots:
            store = Store(root)
            stack.enter_context(store.locked())
            stack.callback(store.tidy)
            store.sweep()
            if store.journal.is_dir():
                for note in store.recover(committed=_committed(store)):
                    say(f"recovered from an interrupted run: {note}")
        yield


def _root(env: PythonEnv, patch: Patch) -> Path | None:
    dist = find_target(env, patch)
    if dist:
        return dist.root
    return next((d for d in env.paths if Store(d).record_path.is_file() and patch.name in Store(d).records()), None)


def _committed(store: Store) -> bool:
    """An interrupted run is complete iff the record was last written by that very run."""
    return store.last_run() == store.journal_plan().run


@pausing
def apply(
    ctx: Context,
    patches: list[Patch],
    say: Say,
    dry_run: bool = False,
    import_check: bool = False,
    wheel: WheelBytes | None = None,
    record_only: bool = False,
) -> list[Change]:
    """Apply every patch that is not applied yet, and re-apply each whose entry has another
    revision now; refuse all if any one cannot be proven. `import_check`: also import each
    changed module, as planned, in the target interpreter first. `record_only` (capture): refuse,
    before anything is written, a run that would write any file rather than adopt it.

    Adopt: a file radpatch has no record of that already carries the patch's result (someone
    applied it by hand, or with sed or `patch`) is recorded as applied without being written,
    when the patch run on its RECORD bytes (read by `wheel`, only on this path) is its code; the
    RECORD bytes are kept as its original, so revert gives them back.

    A re-applied patch comes off first (with every patch stacked above it on its files, which
    must be named too), then goes on again in its current revision, the ones above after it in
    their order: each file's chain is rebuilt from the lowest link that changes (docs/state.md).

    Refused, under the lock the command holds (engine.exclusive), before anything is written:
    entries that overlap on the installed release, the named ones or those radpatch's record says
    are applied, unless `requires:` orders them (prove.overlaps.apply_check.check_apply). The check runs
    after the plan, on the files the plan read; when the plan refuses, an unordered overlap is
    the refusal given, as it names what to do (`requires:`)."""
    env = ctx.env
    said: list[str] = []  # what the plan says, said once no overlap refuses the run (nothing before a refusal)
    found: list[installed.InstalledTargets] = []
    try:
        found = [installed.read(p, env) for p in patches]  # 1. what is installed: the distribution, its files
        states = {f.patch.name: decide(f, env, judge) for f in found}  # 2. their state: hashes first
        redo = restack(patches, states)  # 2. what comes off and goes on again, newest first
        others = carried_too.from_registries(ctx.registry.load_valid, patches, env)  # asked on a refusal only
        adopted = adopt.adoption(patches, states, redo, env, wheel, said.append, others)  # 3. prove: files carrying it
        states = adopt.carried(states, adopted)  # patches under an edit adopted on top of them carry it again
        changes = run.for_apply(patches, states, redo, adopted, env, said.append)  # 3. every change, proven
    except RadpatchError:
        apply_check.check_apply(ctx, patches, found)  # an overlap with no order between them is the refusal to give
        for line in said:
            say(line)
        raise
    apply_check.check_apply(ctx, patches, found)  # 4. no unordered overlap, from the files the plan read
    for line in said:
        say(line)
    if record_only:
        _refuse_writes(changes)
    if import_check and any(c.files for c in changes):
        from radpatch.prove import import_check as check  # loaded only when asked: a plain apply never runs it

        check.run(env, [(c.patch.patch.name, f) for c in changes for f in c.files], say)
    if dry_run or not changes:
        return changes
    _commit(env, changes, "apply")
    for c in changes:
        dist = c.patch.dist
        assert dist is not None  # a change is only planned for an installed distribution
        written = [f.module for f in c.files if f.path not in c.adopted]
        if not c.off and written:
            say(f"{c.patch.patch.name}: applied to {dist.name} {dist.version} ({', '.join(written)})")
        if c.adopted:
            say(f"{c.patch.patch.name}: {adopted_note(c)}")
    return changes


def _refuse_writes(changes: list[Change]) -> None:
    """A run that may only record what the files carry: refused if a change would write a file."""
    for c in changes:
        written = [f for f in c.files if f.path not in c.adopted]
        if written:
            ps, rel = c.patch, written[0].path.relative_to(c.root).as_posix()
            why = f"it reads {ps.state.value} there" + (f" ({ps.reason})" if ps.reason else "")
            raise RefusedError(
                f"{ps.patch.name}: recording only, but apply would write {rel} instead of recording it as it is: {why}",
                f"nothing was written; check {rel} (radpatch --registry DIR status {ps.patch.name})",
            )


def adopted_note(c: Change) -> str:
    files = ", ".join(f.module for f in c.files if f.path in c.adopted)
    kept = f"original kept from {c.original_from}" if c.original_from else "revert removes it"
    return (
        f"adopted: {files} already {'carries' if len(c.adopted) == 1 else 'carry'} this patch's result "
        f"(AST-equal); recorded as applied, not written; {kept}"
    )


@pausing
def revert(ctx: Context, named: list[Patch], say: Say, dry_run: bool = False) -> list[Change]:
    """Revert `named` (and none they require), dependents first, then in the reverse of the order
    given; refused first, under the lock the command holds (engine.exclusive), while an applied
    entry not named requires one of them (state.requirements.refuse_applied_dependents)."""
    refuse_applied_dependents(ctx.registry, ctx.env, named, judge)
    # undo in the reverse of the order they were applied in (dependents, then the order given,
    # reversed), so patches stacked on a file come off top first
    wanted = {p.name for p in named}
    ordered = [p for p in series.with_requirements(named, ctx.registry.load) if p.name in wanted]
    # `load`: patches stacked above go on again from their registry entries
    return _revert(ctx.env, list(reversed(ordered)), say, dry_run, ctx.registry.load)


def _revert(
    env: PythonEnv,
    patches: list[Patch],
    say: Say,
    dry_run: bool,
    load: Callable[[str], Patch] | None,
) -> list[Change]:
    """Revert, the most recently applied first (patches stacked on a file come off in the reverse
    of the order they went on), each planned on what the previous ones leave. Byte for byte: a file
    exactly as radpatch left it gets its kept original back.

    A patch not named that is stacked above a named one on a file (and does not require it: the
    command refuses that first) is lifted: taken off, then put on again in its current revision
    (`load`: its registry entry) on what the reverted ones leave, in the same run, so reverting
    either of two independent entries on one file works whichever went on first. One that does
    not apply without the patch under it is refused: revert them together."""
    changes: list[Change] = []
    overlay: Overlay = {}
    named = {p.name for p in patches}
    lifted = _lifted(env, patches, named, load)
    named |= {ps.patch.name for ps in lifted}
    seq = _seqs(env, patches)
    # newest first across both: a lifted patch comes off only after the named ones stacked above it
    queue: list[PatchState | Patch] = [*lifted, *_newest_first(env, patches)]
    queue.sort(key=lambda q: -(q.record.seq if q.record else -1) if isinstance(q, PatchState) else -seq.get(q.name, -1))
    for item in queue:
        if isinstance(item, PatchState):
            deleted_: dict[Path, tuple[Path, ...]] = {}
            off = undo.take_off(item, named, overlay, say, deleted_)
            changes.append(run.change(item, off, off=True, deleted=deleted_))
            continue
        patch = item
        found = installed.read(patch, env)  # what is installed, then its state: the steps apply takes
        ps = decide(found, env, judge)
        if ps.state is State.NOT_INSTALLED and ps.orphan is not None:
            changes.append(run.change(ps, [], forget=True))
            continue
        if ps.state in (State.NOT_APPLIED, State.OBSOLETE):
            say(
                f"{patch.name}: not applied; nothing to revert"
                + (" (radpatch's record of another install is dropped)" if ps.stale else "")
            )
            if (
                ps.stale or ps.record and ps.state is State.NOT_APPLIED
            ):  # the files decided: the record says nothing true
                changes.append(run.change(ps, [], forget=True))
            continue
        if ps.state is not State.APPLIED:
            raise refused(ps, "revert")
        if ps.record is not None:
            deleted: dict[Path, tuple[Path, ...]] = {}
            changes.append(run.change(ps, undo.take_off(ps, named, overlay, say, deleted), deleted=deleted))
            continue
        files = []  # applied by its code, with no record of radpatch's: only a proven inverse is accepted
        for f in ps.files:
            current = overlay.get(f.path, f.data) or b""
            if f.wheel_record_sha256 is None:
                raise RefusedError(
                    f"{ps.patch.name}: radpatch has no record of patching {f.relpath} and the distribution's "
                    "RECORD has no hash for it: nothing proves what its original was",
                    reinstall_hint(ps),
                )
            pristine = undo.inverse_checked(
                ps, f.relpath, f.rewrites, current, {f.wheel_record_sha256}, "radpatch has no record of patching it"
            )
            overlay[f.path] = pristine
            files.append(plan.PlannedFile(f.module, f.path, current, pristine))
        changes.append(run.change(ps, files))
    if lifted:  # one run that records the lifted ones again: the reverted ones come off (`off`) in it
        changes = [c if c.off else replace(c, off=True) for c in changes]
        changes += [_put_back(ps, env, overlay, patches) for ps in reversed(lifted)]
    run.one_root(changes)
    if dry_run or not changes:
        return changes
    _commit(env, changes, "apply" if lifted else "revert")
    again = {ps.patch.name for ps in lifted}
    for c in changes:
        if c.patch.patch.name in again:
            if not c.off:
                under = ", ".join(p.name for p in patches)
                say(f"{c.patch.patch.name}: taken off and put on again without {under} (stacked above it)")
            continue
        if c.forget and c.patch.orphan is not None:
            say(
                f"{c.patch.patch.name}: {c.patch.patch.distribution} is not installed any more; "
                f"forgot radpatch's record of it in {c.root / '.radpatch'}"
            )
        elif c.files:
            kept = [f for f in c.files if f.path not in c.deleted]
            how = "byte for byte" if all(_exact(c.patch, f) for f in kept) else "(comment and layout edits kept)"
            # a file that patches stacked above it stay on: its change taken out, not the file restored
            above = {f.path: [ps.patch.name for ps in lifted if any(x.path == f.path for x in ps.files)] for f in kept}
            alone = [f.module for f in kept if not above[f.path]]
            said = [f"{', '.join(alone)} restored {how}"] if alone else []
            said += [
                f"{f.module}: its change taken out {how} ({', '.join(above[f.path])} stays on it)"
                for f in kept
                if above[f.path]
            ]
            gone = [f.module for f in c.files if f.path in c.deleted]
            said += (
                [f"{', '.join(gone)} removed (the patch created {'it' if len(gone) == 1 else 'them'})"] if gone else []
            )
            say(f"{c.patch.patch.name}: reverted; {'; '.join(said)}")
    return changes


def _lifted(
    env: PythonEnv, patches: list[Patch], named: set[str], load: Callable[[str], Patch] | None
) -> list[PatchState]:
    """The applied patches not named stacked above a named one on its files, newest first; [] when
    one cannot be put on again as it is (no `load`, no entry, not applied as its entry says):
    prove.undo then refuses the revert, naming them."""
    from radpatch.errors import RadpatchError
    from radpatch.state.restack import stacked_above

    above: set[str] = set()
    for patch in patches:
        ps = decide(installed.read(patch, env), env, judge)
        if ps.state is State.APPLIED and ps.record is not None:
            above |= {n for rec in ps.record.files for n in stacked_above(ps, rec) if n not in named}
    if not above or load is None:
        return []
    out = []
    for name in above:
        try:
            ps = decide(installed.read(load(name), env), env, judge)
        except RadpatchError:
            return []
        if ps.state is not State.APPLIED or ps.record is None or ps.declined is not None or ps.patch.from_record:
            return []
        out.append(ps)
    return sorted(out, key=lambda ps: -ps.record.seq)  # type: ignore[union-attr]


def _put_back(ps: PatchState, env: PythonEnv, overlay: Overlay, patches: list[Patch]) -> Change:
    """A lifted patch on again; refused, naming it, when it does not apply without the ones reverted."""
    try:
        return run.put_on(ps, env, overlay)
    except RefusedError as exc:
        names = [p.name for p in patches]
        raise RefusedError(
            f"{', '.join(names)}: {ps.patch.name} is applied on top of it and does not apply without it "
            f"({exc.message})",
            f"revert them together: radpatch revert {' '.join([*names, ps.patch.name])}",
        ) from None


def _exact(ps: PatchState, f: plan.PlannedFile) -> bool:
    """The revert gave back the file byte for byte: the installed bytes (RECORD's), or the bytes
    from before this patch with radpatch patches under it that started from the installed bytes. A
    file that kept a comment line someone added (an earlier revert carried it over, so the chain
    now starts from it) is not."""
    digest = sha256(f.after)
    recs = [
        r for r in (ps.record.files if ps.record else ()) if r.path == str(f.path.relative_to(ps.root or f.path.parent))
    ]
    wheel = {s.wheel_record_sha256 for s in ps.files if s.path == f.path and s.wheel_record_sha256}
    if digest in wheel:
        return True
    if wheel and any(r.base_sha256 and r.base_sha256 not in wheel for r in recs):
        return False  # the chain started from other bytes than the installed ones: edits kept since
    return digest in {r.original_sha256 for r in recs}


def _newest_first(env: PythonEnv, patches: list[Patch]) -> list[Patch]:
    """The patches in the reverse of the order they were applied (by their records); those
    without a record keep the order given, after the others."""
    seq = _seqs(env, patches)
    return sorted(patches, key=lambda p: -seq.get(p.name, -1))


def _seqs(env: PythonEnv, patches: list[Patch]) -> dict[str, int]:
    """Each recorded patch's place in the order of application, in the stores of `patches`."""
    seq: dict[str, int] = {}
    for root in {r for r in (_root(env, p) for p in patches) if r}:
        seq.update({n: r.seq for n, r in Store(root).records().items()})
    return seq


def _commit(env: PythonEnv, changes: list[Change], op: str) -> None:
    (root,) = {c.root for c in changes}
    files: dict[Path, tuple[bytes | None, bytes | None]] = {}  # None: no file
    pycs: dict[Path, bytes | None] = {}  # the bytecode the proof compiled, of each file's last change
    removed: dict[Path, tuple[Path, ...]] = {}  # deleted files -> the directories made for them
    for c in changes:
        for f in c.files:
            if f.path in c.adopted:  # the file already is `after`: nothing to write, later changes start there
                files[f.path] = (f.after, f.after)
                continue
            before = None if f.path in c.created else f.before
            after = None if f.path in c.deleted else f.after
            first = files[f.path][0] if f.path in files else before
            files[f.path] = (first, after)
            pycs[f.path] = f.pyc
            if f.path in c.deleted:
                removed[f.path] = c.deleted[f.path]
    todo = {p: ba for p, ba in files.items() if ba[0] != ba[1]}
    _write_group(env, Store(root), changes, todo, op, pycs, removed)


def _write_group(
    env: PythonEnv,
    store: Store,
    group: list[Change],
    files: dict[Path, tuple[bytes | None, bytes | None]],
    op: str,
    pycs: dict[Path, bytes | None],
    removed: dict[Path, tuple[Path, ...]],
) -> None:
    """Journal, keep originals, write every file (each only if it is still what was planned;
    creating one only where there is none, deleting one only if it is still what was planned),
    record: all of it, or (on any failure) none of it. Per file created, the directories to make
    for it are made; per file deleted (`removed`), the ones radpatch made for it are removed if empty."""
    made = {p: missing_dirs(p, store.root) for p, (before, _) in files.items() if before is None}
    dirs = {p: made.get(p) or removed.get(p, ()) for p in files}
    run_id = uuid.uuid4().hex
    created = {p: d for p, d in dirs.items() if files[p][0] is None}
    store.begin(run_id, op, [c.patch.patch.name for c in group], files, created)
    written: list[Path] = []
    try:
        for c in group if op == "apply" else ():  # before any file: a record never names an original not kept
            for f in c.files if not c.off else ():
                if f.path not in c.created:
                    store.keep_original(f.original)
                # the result too: an adopted file's bytes as found hold nothing else for an edit on top
                # (prove.onto), and an undo after comment edits goes by the applied revision (prove.undo)
                store.keep_original(f.after)
        for path, (before, after) in files.items():
            faults.point("before-file")
            if before is None:
                create_new(path, after or b"", dirs.get(path, ()))
            elif after is None:
                remove_module(path, sha256(before), dirs.get(path, ()))
            else:
                atomic_write(path, after, expect=sha256(before))
            written.append(path)
            faults.point("after-file")
        for path in written:  # only once every file is written: a failed run leaves .pyc files alone
            if files[path][1] is not None:
                refresh_bytecode(path, env.executable, env.is_current, pycs.get(path))
        faults.point("before-record")
        records = store.records()
        seq = max((r.seq for r in records.values()), default=0)
        kept = [c for c in group if op == "apply" and not c.off]  # recorded; the rest taken off the record
        # the directories made for each: those this run created, and those above an adopted module RECORD does not list
        made_for = {id(c): {**created, **wheel_record.unlisted_dirs(c.patch.dist, c.created & c.adopted)} for c in kept}
        blobs = [b for c in kept for f in c.files for b in (f.original, f.after) if b is not None]
        theirs = recording.target_codes(env, blobs) if op == "apply" else {}
        for c in group:
            if id(c) not in made_for:
                records.pop(c.patch.patch.name, None)
            else:
                seq += 1
                records[c.patch.patch.name] = recording.record(
                    c.patch, _wrote(c, made_for[id(c)]), seq, records, theirs
                )
        store.save(records, run_id)
    except BaseException:
        if _roll_back(store, files, written, dirs):
            store.end()
        raise
    store.end()


def _roll_back(
    store: Store,
    files: dict[Path, tuple[bytes | None, bytes | None]],
    written: list[Path],
    dirs: dict[Path, tuple[Path, ...]],
) -> bool:
    """Put back what this run wrote (only over its own bytes): a file it created is removed (with
    the directories made for it), one it deleted created again. False if something could not be
    put back: the journal then stays for the next run to finish."""
    ok = True
    for path in written:
        before, after = files[path]
        try:
            if before is None:
                remove_module(path, state_sha(after), dirs.get(path, ()))
            elif after is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                create_new(path, before)
            else:
                atomic_write(path, before, expect=sha256(after))
        except ChangedMeanwhile:
            continue  # someone replaced our bytes since: theirs stay
        except Exception:  # noqa: BLE001 - keep restoring the others; the journal finishes the job
            ok = False
    if ok:
        store.prune()
    return ok


def _wrote(c: Change, made: dict[Path, tuple[Path, ...]]) -> list[recording.Wrote]:
    """The files of a change as the record describes them (a created file has no original)."""
    out = []
    for f in c.files:
        original = None if f.path in c.created else f.original
        out.append(
            recording.Wrote(f.module, f.path, original, f.after, made.get(f.path, ()) if original is None else ())
        )
    return out

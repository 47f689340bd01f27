"""revert: the named patches off, newest first, each planned on what the previous ones leave;
patches stacked above them lifted and put on again in the same run."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path

from radpatch.context import Context
from radpatch.errors import MustComeOff, PartlyPutBack, RefusedError
from radpatch.gcpause import pausing
from radpatch.install import targets as installed
from radpatch.install.environment import PythonEnv
from radpatch.prove import import_watch, plan, run, undo
from radpatch.prove.form import judge
from radpatch.registry import series
from radpatch.registry.model import Patch
from radpatch.state import owner
from radpatch.state.decide import PatchState, State, decide, refused, reinstall_hint
from radpatch.state.record import Store, sha256
from radpatch.state.requirements import refuse_applied_dependents
from radpatch.write import lift, takeover, uninstalled
from radpatch.write.commit import commit
from radpatch.write.exclusive import Say, root_of

Change = run.Change
Overlay = undo.Overlay


@pausing
def revert(ctx: Context, named: list[Patch], say: Say, dry_run: bool = False) -> list[Change]:
    """Revert `named` (and none they require), dependents first, then in the reverse of the order
    given; refused first, under the lock the command holds (write.exclusive), while an applied
    entry not named requires one of them (state.requirements.refuse_applied_dependents)."""
    try:
        refuse_applied_dependents(ctx.registry, ctx.env, named, judge)
    except RefusedError as exc:  # a named entry renamed, not yet taken over: its own refusal names the record's
        for p in named:  # name, which is what to revert (the dependants' hint would name the new one: att46 #5)
            _refuse_renamed(decide(installed.read(p, ctx.env), ctx.env, judge), ctx.registry.names())
        if isinstance(exc, MustComeOff):
            raise _whole(ctx, named, exc) from None
        raise
    try:
        return _ordered(ctx, named, say, dry_run)
    except MustComeOff as exc:  # one lying above cannot go on again without them
        raise _whole(ctx, named, exc) from None


def _ordered(ctx: Context, named: list[Patch], say: Say, dry_run: bool) -> list[Change]:
    # undo in the reverse of the order they were applied in (dependents, then the order given,
    # reversed), so patches stacked on a file come off top first
    ordered = _in_order(named, ctx.registry.names(), ctx.registry.load)
    # `load`: patches stacked above go on again from their registry entries
    return _revert(ctx.env, list(reversed(ordered)), say, dry_run, ctx.registry.load, ctx.registry.names())


def _whole(ctx: Context, named: list[Patch], first: MustComeOff) -> RefusedError:
    """The refusal `first`, its hint naming every entry one revert must name (write.lift.whole)."""
    return lift.whole([p.name for p in named], first, *_dry_runs(ctx))


def way_back(ctx: Context, exc: PartlyPutBack) -> RefusedError:
    """apply's refusal of an entry someone put some files of back (`exc`), its hint the revert to
    run first: the entry and only the entries that cannot stay on without it (write.lift.together,
    dry runs of that revert; those it lifts and puts back stay on), or what blocks that revert."""
    got = lift.together([exc.name], *_dry_runs(ctx))
    command = f"radpatch revert {' '.join(got.names)}"
    if got.blocked is not None:
        b = got.blocked
        return RefusedError(
            f"{exc.message}; and `revert {' '.join(got.names)}`, which takes it off the rest, is refused: {b.message}",
            f"{b.hint} (all together: {command}), then apply it again" if b.hint else exc.hint,
        )
    return RefusedError(
        exc.message,
        f"someone put some of its files back; `{command}` takes it off {' '.join(exc.on)} too, then apply it again",
    )


def _dry_runs(ctx: Context) -> tuple[lift.Trial, Callable[[list[str]], dict[str, int]]]:
    """A dry run of `revert NAMES` (its refusals, under the lock the command holds), and the order
    recorded entries went on in."""
    from radpatch.state import unloaded

    def trial(names: list[str]) -> None:
        patches = unloaded.load_many(ctx.registry, ctx.env, tuple(names))
        refuse_applied_dependents(ctx.registry, ctx.env, patches, judge)
        _ordered(ctx, patches, lambda _: None, dry_run=True)

    def seqs(names: list[str]) -> dict[str, int]:
        return _seqs(ctx.env, unloaded.load_many(ctx.registry, ctx.env, tuple(names)))

    return trial, seqs


def _refuse_renamed(ps: PatchState, loaded: Collection[str]) -> None:
    """`revert NEW` of an entry renamed after it was applied, before `apply NEW` took the record over
    (write.takeover): its code is applied under the old name's record, as `status` says; "nothing to
    revert" would leave it on while saying it is off. Refused, naming the record's name."""
    got = takeover.found(ps, loaded) if ps.state is State.NOT_APPLIED else None
    if got is not None:
        old, new = got.old.patch, ps.patch.name
        raise RefusedError(
            f"{new}: not applied under this name, but its code is applied here as {old} (radpatch's record "
            f"of an entry no registry given has: {new} writes exactly what {old} wrote, as if renamed)",
            f"`radpatch revert {old}` takes it off; `radpatch apply {new}` first records it under the new name",
        )


def _in_order(named: list[Patch], loaded: list[str], load: Callable[[str], Patch]) -> list[Patch]:
    """`named`, each after those of them it requires (registry.series), by the entries' `requires:`.
    A requirement no registry given has (renamed, dropped) orders nothing: a revert works from the
    record (whose order of runs orders the files), and is no reason to stop (apply needs it, revert not)."""
    by_name = {p.name: p for p in named}
    known = {*loaded, *by_name}

    def ordered_by(name: str) -> Patch:
        p = by_name[name] if name in by_name else load(name)
        return replace(p, requires=tuple(r for r in p.requires if r in known))

    got = series.with_requirements([ordered_by(p.name) for p in named], ordered_by)
    return [by_name[p.name] for p in got if p.name in by_name]


def _revert(
    env: PythonEnv,
    patches: list[Patch],
    say: Say,
    dry_run: bool,
    load: Callable[[str], Patch] | None,
    loaded: Collection[str] = (),
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
    lifted = lift.lifted(env, patches, named, load)
    named |= {ps.patch.name for ps in lifted}
    seq = _seqs(env, patches)
    # newest first across both: a lifted patch comes off only after the named ones stacked above it
    queue: list[PatchState | Patch] = [*lifted, *_newest_first(env, patches)]
    queue.sort(key=lambda q: -(q.record.seq if q.record else -1) if isinstance(q, PatchState) else -seq.get(q.name, -1))
    # one watch of the install for every child the target interpreter runs for the plan (the put-back's
    # placement checks): walked before the first and after the last, not around each (prove.import_watch)
    with import_watch.watching(", ".join(p.name for p in patches)):
        for item in queue:
            if isinstance(item, PatchState):
                deleted_: dict[Path, tuple[Path, ...]] = {}
                off = undo.take_off(item, named, overlay, say, deleted_)
                changes.append(run.change(item, off, off=True, deleted=deleted_))
                continue
            patch = item
            found = installed.read(patch, env)  # what is installed, then its state: the steps apply takes
            ps = decide(found, env, judge)
            if ps.state is State.NOT_INSTALLED and ps.orphan is not None:  # what radpatch left comes off first
                changes.append(uninstalled.take_off(ps, named, overlay, say))
                continue
            if ps.state in (State.NOT_APPLIED, State.OBSOLETE):
                _refuse_renamed(ps, loaded)
                say(
                    f"{patch.name}: not applied; nothing to revert"
                    + (" (radpatch's record of another install is dropped)" if ps.stale else "")
                )
                if (
                    ps.stale or ps.record and ps.state is State.NOT_APPLIED
                ):  # the files decided: the record says nothing true
                    changes.append(run.change(ps, [], forget=True))
                continue
            partly = lift.partly_applied(ps)
            if ps.state is not State.APPLIED and partly is None:
                raise refused(ps, "revert")
            if ps.record is not None:
                deleted: dict[Path, tuple[Path, ...]] = {}
                off = undo.take_off(ps, named, overlay, say, deleted, partly)
                changes.append(run.change(ps, off, deleted=deleted))
                if partly is not None:
                    before = sorted({f.relpath for f in ps.files} - partly)
                    say(f"{patch.name}: {', '.join(before)} already as before it (someone took it off there)")
                continue
            mine = undo.own_record(ps, overlay)  # radpatch's own modules, left by pip (state.owner)
            if mine is not None:
                deleted = {}
                changes.append(run.change(mine, undo.take_off(mine, named, overlay, say, deleted), deleted=deleted))
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
            changes += [lift.put_back(ps, env, overlay, patches) for ps in reversed(lifted)]
    run.one_root(changes)
    if dry_run or not changes:
        return changes
    commit(env, changes, "apply" if lifted else "revert")
    again = {ps.patch.name for ps in lifted}
    for c in changes:
        if c.patch.patch.name in again:
            if not c.off:
                under = ", ".join(p.name for p in patches)
                rec, patch = c.patch.record, c.patch.patch
                revised = (
                    "; in its entry's current revision, not the one applied before (its code may differ)"
                    if rec is not None and rec.registry_digest != patch.digest
                    else ""
                )
                say(f"{patch.name}: taken off and put on again without {under} (stacked above it){revised}")
            continue
        if c.forget and c.patch.orphan is not None:
            gone = [f.module for f in c.files if f.path in c.deleted]
            stays = _left_in_place(c)
            put = [f.module for f in c.files if f.path not in c.deleted and f.path not in stays]
            said = [f"removed {', '.join(gone)} (radpatch created them)"] if gone else []
            said += [f"restored {', '.join(put)} byte for byte"] if put else []
            said += list(stays.values())
            say(
                f"{c.patch.patch.name}: {c.patch.patch.distribution} is not installed any more; "
                + "".join(f"{s}; " for s in said)
                + f"forgot radpatch's record of it in {c.root / '.radpatch'}"
            )
        elif c.files:
            stays = _left_in_place(c)
            kept = [f for f in c.files if f.path not in c.deleted and f.path not in stays]
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
            said += list(stays.values())
            say(f"{c.patch.patch.name}: reverted; {'; '.join(said)}")
    return changes


def _left_in_place(c: run.Change) -> dict[Path, str]:
    """The modules revert leaves as they are (state.owner.kept_by_revert), and what it says of each."""
    ps = c.patch
    recs = {ps.root / r.path: r for r in ps.record.files} if ps.record and ps.root else {}
    return {f.path: owner.left_in_place(f.module, recs[f.path]) for f in c.files if owner.stays(recs.get(f.path), f)}


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
    for root in {r for r in (root_of(env, p) for p in patches) if r}:
        seq.update({n: r.seq for n, r in Store(root).records().items()})
    return seq

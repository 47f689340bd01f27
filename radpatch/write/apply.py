"""apply: every patch not applied yet on, each whose entry has another revision now again, all
proven before any file is written (docs/architecture.md, the walk of apply)."""

from __future__ import annotations

from radpatch.context import Context
from radpatch.errors import PartlyPutBack, RadpatchError, RefusedError
from radpatch.gcpause import pausing
from radpatch.install import targets as installed
from radpatch.prove import adopt, carried_too, import_watch, run, undo
from radpatch.prove.form import judge
from radpatch.prove.overlaps import apply_check
from radpatch.registry.model import Patch
from radpatch.state.decide import PatchState, decide
from radpatch.state.record import PatchRecord, Store
from radpatch.state.restack import restack
from radpatch.write import takeover
from radpatch.write.commit import commit
from radpatch.write.exclusive import Say
from radpatch.write.takeover import give_back, held_by, take_over

# the RECORD bytes of files of an installed distribution, read from its wheel (checked against RECORD),
# and where they came from: apply's adopt path asks for them (commands/change.py reads the wheel)
WheelBytes = adopt.WheelBytes
Change = run.Change
Overlay = undo.Overlay


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

    Refused, under the lock the command holds (write.exclusive), before anything is written:
    entries that overlap on the installed release, the named ones or those radpatch's record says
    are applied, unless `requires:` orders them (prove.overlaps.apply_check.check_apply). The check runs
    after the plan, on the files the plan read; when the plan refuses, an unordered overlap is
    the refusal given, as it names what to do (`requires:`)."""
    env = ctx.env
    said: list[str] = []  # what the plan says, said once no overlap refuses the run (nothing before a refusal)
    found: list[installed.InstalledTargets] = []
    took: list[str] = []  # said only once the run is not refused
    taken: list[tuple[PatchState, dict[str, PatchRecord]]] = []  # renamed entries' records taken over (write.takeover)
    try:
        found = [installed.read(p, env) for p in patches]  # 1. what is installed: the distribution, its files
        states = {f.patch.name: decide(f, env, judge) for f in found}  # 2. their state: hashes first
        taken, renamed = _take_over_renamed(ctx, states, took.append, dry_run)
        if renamed and dry_run:  # a dry run takes nothing over: what it would take over is left out of the plan
            patches = [p for p in patches if p.name not in renamed]
            found = [f for f in found if f.patch.name not in renamed]
            states = {n: s for n, s in states.items() if n not in renamed}
        elif renamed:  # read again: the renamed entries are applied now, by their records
            found = [installed.read(p, env) for p in patches]
            states = {f.patch.name: decide(f, env, judge) for f in found}
        redo = restack(patches, states)  # 2. what comes off and goes on again, newest first
        others = carried_too.from_registries(ctx.registry.load_valid, patches, env)  # asked on a refusal only
        with import_watch.watching(", ".join(p.name for p in patches)) as watched:  # the target's children watched
            adopted = adopt.adoption(patches, states, redo, env, wheel, said.append, others)  # 3. files carrying it
            states = adopt.carried(states, adopted)  # patches under an edit adopted on top of them carry it again
            changes = run.for_apply(patches, states, redo, adopted, env, said.append, others)  # 3. every change, proven
        apply_check.check_apply(ctx, patches, found)  # 4. no unordered overlap, from the files the plan read
    except Held:  # a takeover an applied entry's `requires:` holds: refused before any record is taken over
        raise
    except RadpatchError as exc:
        for ps, before in reversed(taken):  # the run is refused: nothing of it stays, the record as it was
            give_back(ps, before)
        if not import_watch.said(exc):  # a write past the read-only hook is said first
            apply_check.check_apply(ctx, patches, found)  # an overlap with no order between them is the refusal
        for line in said:
            say(line)
        if isinstance(exc, PartlyPutBack):  # the revert to run first, only what cannot stay on (dry runs)
            from radpatch.write.revert import way_back

            raise way_back(ctx, exc) from None
        raise
    for line in [*took, *said]:
        say(line)
    if record_only:
        _refuse_writes(changes)
    if import_check and any(c.files for c in changes):
        from radpatch.write.checked_install import unchanged_by  # loaded only when asked: a plain apply never runs it

        unchanged_by(env, [(c.patch.patch.name, f) for c in changes for f in c.files], say, watched)
    stale = takeover.superseded(changes)  # renamed entries' records a reinstall voided: replaced by this run's
    for c, r in stale:
        say(
            f"{c.patch.patch.name}: {'would replace' if dry_run else 'replaces'} the stale record of {r.patch} "
            f"(its files read not applied: reinstalled; {c.patch.patch.name} writes exactly what it wrote: renamed)"
        )
    if dry_run or not changes:
        return changes
    takeover.drop_superseded(stale)
    commit(env, changes, "apply")
    for c in changes:
        dist = c.patch.dist
        assert dist is not None  # a change is only planned for an installed distribution
        written = [f.module for f in c.files if f.path not in c.adopted]
        if not c.off and written:
            say(f"{c.patch.patch.name}: applied to {dist.name} {dist.version} ({', '.join(written)})")
        if c.adopted:
            say(f"{c.patch.patch.name}: {adopted_note(c)}")
    return changes


def _take_over_renamed(
    ctx: Context, states: dict[str, PatchState], say: Say, dry_run: bool
) -> tuple[list[tuple[PatchState, dict[str, PatchRecord]]], set[str]]:
    """Each named entry that is a recorded entry renamed (write.takeover.found): its record
    taken over under the new name, no file written (with `dry_run`, only said); returns what was
    taken over, with the record before, so a refused run puts it back, and the renamed entries' names."""
    loaded = set(ctx.registry.names())
    out = []
    names = set()
    olds = {n: takeover.found(ps, loaded) for n, ps in states.items()}
    for n, got in olds.items():  # none is taken over while an applied entry still requires the old name
        held = held_by(states[n], got, ctx.registry.load) if got is not None else None
        if held is not None:
            raise Held(held.message, held.hint)
    for ps in states.values():
        got = olds[ps.patch.name]
        if got is None:
            continue
        old = got.old
        assert ps.dist is not None
        names.add(ps.patch.name)
        verb = "would take" if dry_run else "took"
        say(
            f"{ps.patch.name}: {verb} over the record of {old.patch} (an entry no registry given has, whose "
            f"files carry exactly what {ps.patch.name} writes: renamed); no file written"
        )
        if not dry_run:
            before = Store(ps.dist.root).records()
            take_over(ps, old)
            out.append((ps, before))
    return out, names


class Held(RefusedError):
    """A takeover refused (write.takeover.held_by): said as it is, not as the overlap it leaves."""


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
    kept = f"original kept from {c.original_from}" if c.original_from else "revert takes its change out"
    if c.adopted & c.created:  # a module the entry creates, whose bytes radpatch's record shows it wrote
        kept = "revert removes it (radpatch's record shows it wrote it)"
    elif any(f.original == f.after for f in c.files if f.path in c.adopted):  # someone else's (state.owner)
        kept = "revert leaves it in place (radpatch did not write it)"
    return (
        f"adopted: {files} already {'carries' if len(c.adopted) == 1 else 'carry'} this patch's result "
        f"(AST-equal); recorded as applied, not written; {kept}"
    )

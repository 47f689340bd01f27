"""The changes of a run, planned in memory and proven before anything is written: for `apply`,
each patch it re-applies taken off (prove.undo) and put on again, each file an adopted patch
already carries recorded as it is (prove.adopt), every other file planned (prove.plan: the
rewrites, then every proof step) on what the run's earlier changes leave of it. One run changes
one installation directory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.install.environment import Installed, PythonEnv
from radpatch.prove import adopt, below, plan, undo
from radpatch.prove.carried_too import Others
from radpatch.prove.form import refuse_if_present
from radpatch.prove.refusal import NOT_IN_EFFECT
from radpatch.prove.undo import Overlay
from radpatch.registry.model import Patch, creates
from radpatch.state.decide import FileState, PatchState, State, refused, reinstall_hint
from radpatch.state.verified import in_effect

Say = Callable[[str], None]


@dataclass(frozen=True)
class Change:
    patch: PatchState
    files: tuple[plan.PlannedFile, ...]
    root: Path  # the installation directory whose state records this change
    forget: bool = False  # revert: only drop a record that no longer describes the files
    off: bool = False  # apply: the patch comes off these files (to go on again in its current revision)
    adopted: frozenset[Path] = frozenset()  # apply: files that carry the result already: recorded, not written
    original_from: str = ""  # adopted: where their original (RECORD's bytes) came from
    created: frozenset[Path] = frozenset()  # files whose state before is no file (`before` is b""): created
    deleted: Mapping[Path, tuple[Path, ...]] = field(default_factory=dict)  # files the change deletes -> the
    # directories radpatch made for them (outermost first), removed if empty


class PlanRefused(RefusedError):
    """The plan refused a patch's file on an installed distribution: the refusal as given (`message`,
    `hint`), with the plan's own refusal (`planned`), the patch and the distribution kept, so that the
    command layer can name another way out by what verify found of that release (commands/change.py:
    it reads verify's cache; the proof does not)."""

    def __init__(self, refusal: RefusedError, planned: RefusedError, patch: Patch, dist: Installed) -> None:
        super().__init__(refusal.message, refusal.hint)
        self.planned = planned
        self.patch = patch
        self.dist = dist


def for_apply(
    patches: list[Patch],
    states: dict[str, PatchState],
    redo: list[str],
    adopted: dict[str, adopt.Adopted],
    env: PythonEnv,
    say: Say,
    others: Others | None = None,
) -> list[Change]:
    """apply's changes, in the order they are made, each planned on what the earlier ones leave
    and proven: the patches it re-applies come off (`redo`, newest first) and go on again in their
    current revision, then every other patch named goes on (`adopted`: planned already). Each
    entry under one on its file (planned earlier, or recorded and in `others`) is proven again on
    its result (prove.below)."""
    changes: list[Change] = []
    overlay: Overlay = {}
    under = below.Below(others, say)
    under.named.update(((n, f.path), (ps.patch, f.rewrites)) for n, ps in states.items() for f in ps.files)
    for name in redo:
        deleted: dict[Path, tuple[Path, ...]] = {}
        off = undo.take_off(states[name], set(redo), overlay, say, deleted)
        changes.append(change(states[name], off, off=True, deleted=deleted))
    again = sorted((p for p in patches if p.name in redo), key=lambda p: -redo.index(p.name))
    for patch in [*again, *(p for p in patches if p.name not in redo)]:
        ps = states[patch.name]
        if patch.name in redo and ps.declined is not None:  # obsolete (state.restack refused the others)
            say(
                f"{patch.name}: {ps.declined.why}: taken off to re-apply the patches under it and not put back "
                "(a fresh apply of it does nothing on this version)"
            )
            continue
        if patch.name in redo:
            if ps.record and ps.record.registry_digest != patch.digest:
                say(f"{patch.name}: applied from another revision of its registry entry; re-applying the current one")
            created: set[Path] = set()
            changes.append(change(ps, _planned(ps, _entry_files(ps), env, overlay, created, under), created=created))
            continue
        if ps.declined:
            say(f"{patch.name}: {ps.reason}; nothing to apply")
            continue
        if patch.name in adopted:
            changes.append(_adopt(ps, adopted[patch.name], env, overlay, under))
            continue
        if ps.state is State.APPLIED:
            say(f"{patch.name}: already applied to {ps.dist.name} {ps.dist.version}; nothing to do")  # type: ignore[union-attr]
            continue
        if ps.state is State.OBSOLETE:
            say(f"{patch.name}: {ps.reason}; nothing to do")
            continue
        if ps.state is not State.NOT_APPLIED:
            raise refused(ps, "apply")
        created = set()
        changes.append(change(ps, _planned(ps, list(ps.files), env, overlay, created, under), created=created))
    one_root(changes)
    return changes


def _applies_on_wheel(ps: PatchState, f: FileState, env: PythonEnv) -> bool:
    """Whether the entry applies, proof and all, on the file's installed bytes (kept by radpatch's
    record): only then is what the other patches left the reason it does not apply here."""
    from radpatch.state.record import Store

    kept = Store(ps.root).original(f.wheel_record_sha256) if ps.root and f.wheel_record_sha256 else None
    if kept is None:
        return False
    try:
        plan.plan(ps.patch, f.rewrites, f.module, f.path, kept, env)
    except RefusedError:
        return False
    return True


def _adopt(ps: PatchState, adopted: adopt.Adopted, env: PythonEnv, overlay: Overlay, under: below.Below) -> Change:
    """A patch some of whose files are adopted (planned already) and the rest applied as usual."""
    normal = [f for f in ps.files if f.path not in adopted.files]
    created = set(adopted.created)
    planned = {c.path: c for c in _planned(ps, normal, env, overlay, created, under)}
    for path, fc in adopted.files.items():
        overlay[path] = fc.after
    files = [adopted.files.get(f.path) or planned[f.path] for f in ps.files]
    return replace(
        change(ps, files, created=created), adopted=frozenset(adopted.files), original_from=adopted.original_from
    )


def _planned(
    ps: PatchState,
    files: list[FileState],
    env: PythonEnv,
    overlay: Overlay,
    created: set[Path],
    under: below.Below | None = None,
) -> list[plan.PlannedFile]:
    """Each file planned on what the run's earlier changes leave of it; `created` gets the files
    whose state before is no file (planned on an empty module: Operation.CREATES); with `under`
    (apply), the entries under it there proven again on its result (prove.below)."""
    out = []
    for f in files:
        before = overlay[f.path] if f.path in overlay else f.data if f.exists else None
        if before is None:
            if not creates(f.rewrites):
                raise RefusedError(
                    f"{ps.patch.name}: {f.relpath} does not exist, and no entry of this run creates it",
                    "apply the entry that creates the module first, or name it in this entry's `requires:`; if no "
                    "entry creates it, the installed version has no such module: check the entry's `modules:`",
                )
            created.add(f.path)
        else:
            refuse_if_present(ps, f, before)
        try:
            change = plan.plan(ps.patch, f.rewrites, f.module, f.path, before or b"", env)
        except RefusedError as exc:
            if before is not None and ps.dist is not None and not in_effect(ps.patch)(before):
                raise RefusedError(
                    f"{exc.message} ({f.relpath} of {ps.dist.name} {ps.dist.version}: {NOT_IN_EFFECT})",
                    "verify read this file: the release does not carry the change, and the rewrites do not make it "
                    f"there; add a `versions:` variant for {ps.dist.version}, or declare it in `obsolete:`",
                ) from None
            refusal = exc
            if f.left_by and f.path not in overlay and _applies_on_wheel(ps, f, env):
                others = " ".join(f.left_by)
                refusal = RefusedError(
                    f"{exc.message} (the file as {', '.join(f.left_by)} left it: {ps.patch.name} does not apply on it)",
                    f"{ps.patch.name} and {', '.join(f.left_by)} cannot both be applied as written: revert "
                    f"{others} first (radpatch revert {others}), or change one of the entries",
                )
            if ps.dist is not None and not ps.patch.from_record:  # the command layer may word another way out
                raise PlanRefused(refusal, exc, ps.patch, ps.dist) from None
            if refusal is exc:
                raise
            raise refusal from None
        if under is not None:
            below.reprove(under, ps, f, before, change.after, env)
        overlay[f.path] = change.after
        out.append(change)
    return out


def put_on(ps: PatchState, env: PythonEnv, overlay: Overlay) -> Change:
    """A patch taken off earlier in the run put on again, on what the run's changes leave of its
    files, as a fresh apply of its current revision would put it (revert's lifted patches)."""
    created: set[Path] = set()
    return change(ps, _planned(ps, _entry_files(ps), env, overlay, created), created=created)


def _entry_files(ps: PatchState) -> list[FileState]:
    """The files the entry's current revision rewrites (not those an earlier revision wrote), as read."""
    if isinstance(ps.read_files, RefusedError):
        raise RefusedError(f"cannot re-apply {ps.patch.name}: {ps.read_files.message}", reinstall_hint(ps))
    out = []
    for t in ps.read_files:
        if t.problem is not None:
            raise t.problem
        if t.absent is not None and not t.creates:
            raise t.absent
        if t.data is None and not isinstance(t.error, FileNotFoundError):
            raise RefusedError(
                f"{ps.patch.name}: cannot read {t.path}: {t.error.strerror if t.error else ''}", reinstall_hint(ps)
            )
        if t.data is None and not t.creates:
            raise RefusedError(f"{ps.patch.name}: cannot read {t.path}: no such file", reinstall_hint(ps))
        r, data = t.rewritten, t.data  # data None: a file the entry creates, absent (no bytes, exists=False)
        out.append(
            FileState(
                r.module, t.path, r.relpath, r.rewrites, data or b"", State.NOT_APPLIED, "", None, data is not None
            )
        )
    return out


def change(
    ps: PatchState,
    files: list[plan.PlannedFile],
    forget: bool = False,
    off: bool = False,
    created: set[Path] | frozenset[Path] = frozenset(),
    deleted: Mapping[Path, tuple[Path, ...]] | None = None,
) -> Change:
    root = ps.root
    assert root is not None
    return Change(ps, tuple(files), root, forget, off, created=frozenset(created), deleted=dict(deleted or {}))


def one_root(changes: list[Change]) -> None:
    """One run changes one installation directory: all-or-nothing cannot span two journals."""
    roots = {c.root for c in changes if c.files or c.forget}
    if len(roots) > 1:
        listed = "; ".join(f"{c.patch.patch.name} in {c.root}" for c in changes)
        raise RefusedError(
            f"these patches change files in {len(roots)} installation directories ({listed}); "
            "radpatch changes one directory per run, all or nothing",
            "run radpatch once per directory, naming only the patches of that directory",
        )

"""Apply and revert patches: decide, plan and prove in memory, then write all or nothing."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from radpatch import faults, plan
from radpatch.environment import PythonEnv
from radpatch.locate import find_target
from radpatch.errors import RefusedError
from radpatch.model import Patch
from radpatch.state import FileState, PatchState, State, changed_scopes, patch_state
from radpatch.store import FileRecord, PatchRecord, Store, sha256
from radpatch.writer import atomic_write, refresh_bytecode

Say = Callable[[str], None]


@dataclass(frozen=True)
class Change:
    patch: PatchState
    files: tuple[plan.FileChange, ...]


def _refuse_state(ps: PatchState, doing: str) -> RefusedError:
    hints = {
        State.DRIFTED: "someone else changed the file; reinstall the distribution (pip install --force-reinstall --no-deps) and apply again",
        State.INCOMPATIBLE: "install a supported version, or declare a variant for this one in the registry",
        State.NOT_INSTALLED: "install it first, or point --python at the environment that has it",
    }
    return RefusedError(f"{ps.patch.name}: cannot {doing}: {ps.state.value}: {ps.reason}", hints.get(ps.state, ""))


@contextlib.contextmanager
def exclusive(env: PythonEnv, patches: list[Patch], say: Say) -> Iterator[None]:
    """Hold the lock of every installation the patches touch; first finish any interrupted run."""
    roots = sorted({d.root for d in (find_target(env, p) for p in patches) if d})
    with contextlib.ExitStack() as stack:
        for root in roots:
            store = Store(root)
            stack.enter_context(store.locked())
            store.sweep()
            if store.journal.is_dir():
                for path in store.recover(committed=_committed(store, store.journal_plan())):
                    say(f"recovered from an interrupted run: restored {path}")
        yield


def _committed(store: Store, plan_: dict[str, object] | None) -> bool:
    """An interrupted run is complete iff the record was last written by that very run."""
    run = plan_.get("run") if plan_ else None
    return isinstance(run, str) and store.last_run() == run


def apply(env: PythonEnv, patches: list[Patch], say: Say, dry_run: bool = False) -> list[Change]:
    """Apply every patch that is not applied yet; refuse all if any one cannot be proven."""
    changes: list[Change] = []
    overlay: dict[Path, bytes] = {}
    for patch in patches:
        ps = patch_state(patch, env)
        if ps.state is State.APPLIED and ps.record and ps.record.registry_digest != patch.digest:
            say(f"{patch.name}: applied from another revision of its registry entry; re-applying the current one")
            changes.append(Change(ps, tuple(_from_kept_original(ps, lambda f, pristine: plan.plan(
                patch, f.rewrites, f.module, f.path, pristine).after))))
            continue
        if ps.state is State.APPLIED:
            say(f"{patch.name}: already applied to {ps.dist.name} {ps.dist.version}; nothing to do")  # type: ignore[union-attr]
            continue
        if ps.state is State.OBSOLETE:
            say(f"{patch.name}: {ps.reason}; nothing to do")
            continue
        if ps.state is not State.NOT_APPLIED:
            raise _refuse_state(ps, "apply")
        files = []
        for f in ps.files:
            before = overlay.get(f.path, f.data)
            change = plan.plan(patch, f.rewrites, f.module, f.path, before)
            overlay[f.path] = change.after
            files.append(change)
        changes.append(Change(ps, tuple(files)))
    if dry_run or not changes:
        return changes
    _commit(env, changes, "apply")
    for c in changes:
        say(f"{c.patch.patch.name}: applied to {c.patch.dist.name} {c.patch.dist.version} ({', '.join(f.module for f in c.files)})")  # type: ignore[union-attr]
    return changes


def revert(env: PythonEnv, patches: list[Patch], say: Say, dry_run: bool = False) -> list[Change]:
    """Revert in the order given (the CLI passes the reverse of the command line), each patch
    planned on what the previous ones leave, so patches stacked on one file come off together."""
    changes: list[Change] = []
    overlay: dict[Path, bytes] = {}
    for patch in patches:
        ps = patch_state(patch, env)
        if ps.state in (State.NOT_APPLIED, State.OBSOLETE):
            say(f"{patch.name}: not applied; nothing to revert")
            continue
        if ps.state is not State.APPLIED:
            raise _refuse_state(ps, "revert")
        if ps.record and ps.record.registry_digest != patch.digest:
            # written by another revision of the entry: its inverse is not this one's; restore the kept original
            changes.append(Change(ps, tuple(_from_kept_original(ps, lambda f, pristine: pristine))))
            continue
        files = []
        for f in ps.files:
            current = overlay.get(f.path, f.data)
            pristine = plan.backward(patch, f.rewrites, current, str(f.path))
            _check_original(ps, f.relpath, pristine, f.record_sha256, say)
            overlay[f.path] = pristine
            files.append(plan.FileChange(f.module, f.path, current, pristine))
        changes.append(Change(ps, tuple(files)))
    if dry_run or not changes:
        return changes
    _commit(env, changes, "revert")
    for c in changes:
        say(f"{c.patch.patch.name}: reverted; {', '.join(f.module for f in c.files)} restored byte for byte")
    return changes


def _from_kept_original(ps: PatchState, make: Callable[[FileState, bytes], bytes]) -> list[plan.FileChange]:
    """Changes computed from each file's kept original, for files exactly as radpatch left them."""
    assert ps.dist is not None and ps.record is not None
    store = Store(ps.dist.root)
    out = []
    for f in ps.files:
        rec = next((r for r in ps.record.files if r.path == f.relpath), None)
        original = store.original(rec.original_sha256) if rec and f.sha256 == rec.patched_sha256 else None
        if rec is None or original is None or sha256(original) != rec.original_sha256:
            raise RefusedError(f"{ps.patch.name}: {f.relpath} was patched by another revision of this registry entry and "
                               "cannot be traced back to its original", "reinstall the distribution (pip install --force-reinstall --no-deps), then apply")
        out.append(plan.FileChange(f.module, f.path, f.data, make(f, original), pristine=original))
    return out


def _check_original(ps: PatchState, relpath: str, pristine: bytes, wheel_sha: str | None, say: Say) -> None:
    digest = sha256(pristine)
    recorded = [f.original_sha256 for f in (ps.record.files if ps.record else ()) if f.path == relpath]
    assert ps.dist is not None
    store = Store(ps.dist.root)
    stacked = bool(store.recorded_files(relpath, besides=ps.patch.name))
    if recorded and recorded[0] != digest:
        original = store.original(recorded[0])
        if original is not None and not stacked and not changed_scopes(original, pristine):
            say(f"{ps.patch.name}: note: {relpath} had comment or layout edits since it was patched; they are kept")
            return
        hint = ("another patch applied after it changes the same code: revert that one too (in the same command)" if stacked
                else "the file's code was edited since it was patched; reinstall the distribution instead")
        raise RefusedError(f"{ps.patch.name}: reverting {relpath} would not give back the recorded original (sha256 {recorded[0][:12]}…)", hint)
    if wheel_sha is not None and wheel_sha != digest and not stacked:
        say(f"{ps.patch.name}: note: the original {relpath} differs from the wheel's RECORD (it was already modified before patching)")


def _commit(env: PythonEnv, changes: list[Change], op: str) -> None:
    by_store: dict[Path, list[Change]] = {}
    for c in changes:
        by_store.setdefault(c.patch.dist.root, []).append(c)  # type: ignore[union-attr]
    for root, group in by_store.items():
        files: dict[Path, tuple[bytes, bytes]] = {}
        for c in group:
            for f in c.files:
                first = files.get(f.path, (f.before, f.before))[0]
                files[f.path] = (first, f.after)
        _write_group(env, Store(root), group, files, op)


def _write_group(env: PythonEnv, store: Store, group: list[Change], files: dict[Path, tuple[bytes, bytes]], op: str) -> None:
    """Journal, write every file, record: all of it, or (on any failure) none of it."""
    run = uuid.uuid4().hex
    store.begin(run, op, [c.patch.patch.name for c in group], files)
    written: list[Path] = []
    try:
        for path, (_, after) in files.items():
            faults.point("before-file")
            atomic_write(path, after)
            written.append(path)
            faults.point("after-file")
        for path in written:  # only once every file is written: a failed run leaves .pyc files alone
            refresh_bytecode(path, env.executable, env.is_current)
        faults.point("before-record")
        for c in group if op == "apply" else ():
            for f in c.files:
                store.keep_original(f.original)
        records = store.records()
        for c in group:
            if op == "revert":
                records.pop(c.patch.patch.name, None)
            else:
                records[c.patch.patch.name] = _record(c)
        store.save(records, run)
    except BaseException:
        for path in written:  # put back what this run wrote, then forget the journal
            atomic_write(path, files[path][0])
        store.end()
        raise
    store.end()


def _record(c: Change) -> PatchRecord:
    dist = c.patch.dist
    assert dist is not None
    files = tuple(FileRecord(f.module, str(f.path.relative_to(dist.root)), sha256(f.original), sha256(f.after)) for f in c.files)
    return PatchRecord(c.patch.patch.name, dist.name, str(dist.version), c.patch.patch.digest, files)

"""Apply and revert patches: decide, plan and prove in memory, then write all or nothing."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from radpatch import faults
from radpatch.errors import RefusedError
from radpatch.files import ChangedMeanwhile, atomic_write, refresh_bytecode
from radpatch.gcpause import pausing
from radpatch.install.environment import PythonEnv
from radpatch.install.locate import find_target
from radpatch.prove import plan
from radpatch.registry.model import Patch
from radpatch.rewrite import runner
from radpatch.state.decide import (
    FileState,
    PatchState,
    State,
    applied_error,
    changed_scopes,
    patch_state,
    record_digest,
)
from radpatch.state.record import FileRecord, PatchRecord, Store, sha256

Say = Callable[[str], None]


def _reinstall(ps: PatchState) -> str:
    name = ps.dist.name if ps.dist else ps.patch.distribution
    return f"reinstall the distribution (pip install --force-reinstall --no-deps {name}), then apply again"


@dataclass(frozen=True)
class Change:
    patch: PatchState
    files: tuple[plan.FileChange, ...]
    root: Path  # the installation directory whose state records this change
    forget: bool = False  # revert: only drop a record that no longer describes the files


def _refuse_state(ps: PatchState, doing: str) -> RefusedError:
    hints = {
        State.DRIFTED: f"someone else changed the file; {_reinstall(ps)}",
        State.INCOMPATIBLE: "install a supported version, or declare a variant for this one in the registry",
        State.NOT_INSTALLED: "install it first, or point --python at the environment that has it",
    }
    return RefusedError(f"{ps.patch.name}: cannot {doing}: {ps.state.value}: {ps.reason}", hints.get(ps.state, ""))


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
    env: PythonEnv, patches: list[Patch], say: Say, dry_run: bool = False, import_check: bool = False
) -> list[Change]:
    """Apply every patch that is not applied yet; refuse all if any one cannot be proven.
    `import_check`: also import each changed module, as planned, in the target interpreter first."""
    changes: list[Change] = []
    overlay: dict[Path, bytes] = {}
    for patch in patches:
        ps = patch_state(patch, env)
        if ps.declined:
            say(f"{patch.name}: {ps.reason}; nothing to apply")
            continue
        if ps.state is State.APPLIED and ps.record and ps.record.registry_digest != patch.digest:
            say(f"{patch.name}: applied from another revision of its registry entry; re-applying the current one")
            changes.append(_change(ps, _replanned(ps, patch, env)))
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
            _refuse_if_present(ps, f, before)
            change = plan.plan(patch, f.rewrites, f.module, f.path, before, env)
            overlay[f.path] = change.after
            files.append(change)
        changes.append(_change(ps, files))
    _one_root(changes)
    if import_check and any(c.files for c in changes):
        from radpatch.prove import import_check as check  # loaded only when asked: a plain apply never runs it

        check.run(env, [(c.patch.patch.name, f) for c in changes for f in c.files], say)
    if dry_run or not changes:
        return changes
    _commit(env, changes, "apply")
    for c in changes:
        dist = c.patch.dist
        assert dist is not None  # a change is only planned for an installed distribution
        say(f"{c.patch.patch.name}: applied to {dist.name} {dist.version} ({', '.join(f.module for f in c.files)})")
    return changes


def _refuse_if_present(ps: PatchState, f: FileState, data: bytes) -> None:
    """The installed code already carries what the patch (or one of its inserts) adds: applying
    would add it a second time. Refused: only the entry's author can tell upstream took the change.
    (A replace whose `with` is there already fails its own proof; an insert would not.)"""
    dist = ps.dist
    assert dist is not None
    where, text = str(f.path), data.decode("utf-8", "replace")
    maybe = [rw for rw in f.rewrites if rw.op.may_be_present(text)]
    if len(maybe) == len(f.rewrites) and applied_error(ps.patch, f.rewrites, data, where) is None:
        what = "what the patch adds (it reads as patched although radpatch did not patch it)"
    else:
        repeatable = [rw for rw in maybe if rw.op.REPEATABLE and len(f.rewrites) > 1]
        present = [rw.id for rw in repeatable if applied_error(ps.patch, (rw,), data, where) is None]
        if not present:
            return
        what = f"what rewrite {', '.join(repr(r) for r in present)} adds"
    raise RefusedError(
        f"{ps.patch.name}: {f.relpath} of {dist.name} {dist.version} already contains {what}; "
        "applying would add it a second time",
        f"if upstream took the change, declare {dist.version} in the entry's `obsolete:` "
        f"or limit the rewrite's `versions:` (`radpatch verify {ps.patch.name}` checks every release)",
    )


def _change(ps: PatchState, files: list[plan.FileChange], forget: bool = False) -> Change:
    root = ps.root
    assert root is not None
    return Change(ps, tuple(files), root, forget)


def _one_root(changes: list[Change]) -> None:
    """One run changes one installation directory: all-or-nothing cannot span two journals."""
    roots = {c.root for c in changes if c.files or c.forget}
    if len(roots) > 1:
        where = "; ".join(f"{c.patch.patch.name} in {c.root}" for c in changes)
        raise RefusedError(
            f"these patches change files in {len(roots)} installation directories ({where}); "
            "radpatch changes one directory per run, all or nothing",
            "run radpatch once per directory, naming only the patches of that directory",
        )


@pausing
def revert(env: PythonEnv, patches: list[Patch], say: Say, dry_run: bool = False) -> list[Change]:
    """Revert, the most recently applied first (patches stacked on a file come off in the reverse
    of the order they went on), each planned on what the previous ones leave. Byte for byte: a file
    exactly as radpatch left it gets its kept original back."""
    changes: list[Change] = []
    overlay: dict[Path, bytes] = {}
    for patch in _newest_first(env, patches):
        ps = patch_state(patch, env)
        if ps.state is State.NOT_INSTALLED and ps.orphan is not None:
            changes.append(_change(ps, [], forget=True))
            continue
        if ps.state in (State.NOT_APPLIED, State.OBSOLETE):
            say(
                f"{patch.name}: not applied; nothing to revert"
                + (" (radpatch's record of another install is dropped)" if ps.stale else "")
            )
            if (
                ps.stale or ps.record and ps.state is State.NOT_APPLIED
            ):  # the files decided: the record says nothing true
                changes.append(_change(ps, [], forget=True))
            continue
        if ps.state is not State.APPLIED:
            raise _refuse_state(ps, "revert")
        if ps.declined or ps.record and ps.record.registry_digest != patch.digest:
            # written by another revision of the entry: its inverse is not this one's; restore the kept original
            changes.append(_change(ps, _from_kept_original(ps, lambda f, pristine: pristine)))
            continue
        files = []
        for f in ps.files:
            current = overlay.get(f.path, f.data)
            pristine = _restored(ps, f, current, say)
            overlay[f.path] = pristine
            files.append(plan.FileChange(f.module, f.path, current, pristine))
        changes.append(_change(ps, files))
    _one_root(changes)
    if dry_run or not changes:
        return changes
    _commit(env, changes, "revert")
    for c in changes:
        if c.forget and c.patch.orphan is not None:
            say(
                f"{c.patch.patch.name}: {c.patch.patch.distribution} is not installed any more; "
                f"forgot radpatch's record of it in {c.root / '.radpatch'}"
            )
        elif c.files:
            how = "byte for byte" if all(_exact(c.patch, f) for f in c.files) else "(comment and layout edits kept)"
            say(f"{c.patch.patch.name}: reverted; {', '.join(f.module for f in c.files)} restored {how}")
    return changes


def _exact(ps: PatchState, f: plan.FileChange) -> bool:
    digest = sha256(f.after)
    known = {
        r.original_sha256
        for r in (ps.record.files if ps.record else ())
        if r.path == str(f.path.relative_to(ps.root or f.path.parent))
    }
    return digest in known | {s.record_sha256 for s in ps.files if s.path == f.path}


def _newest_first(env: PythonEnv, patches: list[Patch]) -> list[Patch]:
    """The patches in the reverse of the order they were applied (by their records); those
    without a record keep the order given, after the others."""
    seq: dict[str, int] = {}
    for root in {r for r in (_root(env, p) for p in patches) if r}:
        seq.update({n: r.seq for n, r in Store(root).records().items()})
    return sorted(patches, key=lambda p: -seq.get(p.name, -1))


def _restored(ps: PatchState, f: FileState, current: bytes, say: Say) -> bytes:
    """What `f` becomes when `ps.patch` comes off it: the kept original when the file is exactly
    as radpatch left it; otherwise the structural inverse, accepted only if provably the original."""
    assert ps.dist is not None
    store = Store(ps.dist.root)
    rec = next((r for r in (ps.record.files if ps.record else ()) if r.path == f.relpath), None)
    digest = sha256(current)
    if rec is not None and digest == rec.patched_sha256:
        kept = store.original(rec.original_sha256)
        if kept is not None:
            return kept
        return _inverse_checked(
            ps,
            f,
            current,
            {rec.original_sha256, f.record_sha256 or rec.original_sha256},
            "its kept original is gone from .radpatch/originals/",
        )
    if rec is not None:
        later = _later(store, f.relpath, rec)
        if later:
            raise RefusedError(
                f"{ps.patch.name}: {f.relpath} also carries {', '.join(later)}, applied on top of it",
                f"revert them together: radpatch revert {' '.join([ps.patch.name, *later])}",
            )
        return _layout_edited(ps, f, current, rec, store, say)
    if f.record_sha256 is None:
        raise RefusedError(
            f"{ps.patch.name}: radpatch has no record of patching {f.relpath} and the distribution's RECORD "
            "has no hash for it: nothing proves what its original was",
            _reinstall(ps),
        )
    return _inverse_checked(ps, f, current, {f.record_sha256}, "radpatch has no record of patching it")


def _later(store: Store, relpath: str, rec: FileRecord) -> list[str]:
    """The patches radpatch applied on top of `rec` in this file, in the order applied."""
    links = {r.original_sha256: (name, r.patched_sha256) for name, r in store.chain(relpath)}
    out, at = [], rec.patched_sha256
    while at in links and links[at][0] not in out:
        name, at = links[at]
        out.append(name)
    return out


def _inverse_checked(ps: PatchState, f: FileState, current: bytes, accept: set[str], why: str) -> bytes:
    """The structural inverse, only if it is byte for byte a known original (recorded or RECORD's)."""
    try:
        pristine = runner.backward(ps.patch, f.rewrites, current, str(f.path))
    except RefusedError as exc:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {f.relpath} ({why}): undoing the patch stops at {runner.short(exc)}",
            _reinstall(ps),
        )
    if sha256(pristine) not in accept:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {f.relpath} byte for byte ({why}, and undoing the patch does not "
            "give back the recorded original or the file in the distribution's RECORD)",
            _reinstall(ps),
        )
    return pristine


def _layout_edited(ps: PatchState, f: FileState, current: bytes, rec: FileRecord, store: Store, say: Say) -> bytes:
    """A patched file someone touched since (status already judged the code unchanged): undo the
    patch and keep their comment and layout edits, or refuse."""
    pristine = runner.backward(ps.patch, f.rewrites, current, str(f.path))
    if sha256(pristine) == rec.original_sha256:
        return pristine
    original = store.original(rec.original_sha256)
    if original is not None and not changed_scopes(original, pristine):
        say(f"{ps.patch.name}: note: {f.relpath} had comment or layout edits since it was patched; they are kept")
        return pristine
    raise RefusedError(
        f"{ps.patch.name}: reverting {f.relpath} would not give back the recorded original "
        f"(sha256 {rec.original_sha256[:12]}…)",
        "the file's code was edited since it was patched; reinstall the distribution instead",
    )


def _replanned(ps: PatchState, patch: Patch, env: PythonEnv) -> list[plan.FileChange]:
    """Each file planned afresh by `patch` from its kept original (a function, so the closure binds this patch)."""
    return _from_kept_original(
        ps, lambda f, pristine: plan.plan(patch, f.rewrites, f.module, f.path, pristine, env).after
    )


def _from_kept_original(ps: PatchState, make: Callable[[FileState, bytes], bytes]) -> list[plan.FileChange]:
    """Changes computed from each file's kept original, for files exactly as radpatch left them."""
    assert ps.dist is not None and ps.record is not None
    store = Store(ps.dist.root)
    out = []
    for f in ps.files:
        rec = next((r for r in ps.record.files if r.path == f.relpath), None)
        original = store.original(rec.original_sha256) if rec and f.sha256 == rec.patched_sha256 else None
        if rec is None or original is None:
            raise RefusedError(
                f"{ps.patch.name}: {f.relpath} was patched by another revision of this registry entry and "
                "cannot be traced back to its original",
                _reinstall(ps),
            )
        out.append(plan.FileChange(f.module, f.path, f.data, make(f, original), pristine=original))
    return out


def _commit(env: PythonEnv, changes: list[Change], op: str) -> None:
    (root,) = {c.root for c in changes}
    files: dict[Path, tuple[bytes, bytes]] = {}
    pycs: dict[Path, bytes | None] = {}  # the bytecode the proof compiled, of each file's last change
    for c in changes:
        for f in c.files:
            first = files.get(f.path, (f.before, f.before))[0]
            files[f.path] = (first, f.after)
            pycs[f.path] = f.pyc
    _write_group(env, Store(root), changes, {p: ba for p, ba in files.items() if ba[0] != ba[1]}, op, pycs)


def _write_group(
    env: PythonEnv,
    store: Store,
    group: list[Change],
    files: dict[Path, tuple[bytes, bytes]],
    op: str,
    pycs: dict[Path, bytes | None],
) -> None:
    """Journal, keep originals, write every file (each only if it is still what was planned),
    record: all of it, or (on any failure) none of it."""
    run = uuid.uuid4().hex
    store.begin(run, op, [c.patch.patch.name for c in group], files)
    written: list[Path] = []
    try:
        for c in group if op == "apply" else ():  # before any file: a record never names an original not kept
            for f in c.files:
                store.keep_original(f.original)
        for path, (before, after) in files.items():
            faults.point("before-file")
            atomic_write(path, after, expect=sha256(before))
            written.append(path)
            faults.point("after-file")
        for path in written:  # only once every file is written: a failed run leaves .pyc files alone
            refresh_bytecode(path, env.executable, env.is_current, pycs.get(path))
        faults.point("before-record")
        records = store.records()
        seq = max((r.seq for r in records.values()), default=0)
        for c in group:
            if op == "revert":
                records.pop(c.patch.patch.name, None)
            else:
                seq += 1
                records[c.patch.patch.name] = _record(c, seq)
        store.save(records, run)
    except BaseException:
        if _roll_back(store, files, written):
            store.end()
        raise
    store.end()


def _roll_back(store: Store, files: dict[Path, tuple[bytes, bytes]], written: list[Path]) -> bool:
    """Put back what this run wrote (only over its own bytes). False if something could not be
    put back: the journal then stays for the next run to finish."""
    ok = True
    for path in written:
        before, after = files[path]
        try:
            atomic_write(path, before, expect=sha256(after))
        except ChangedMeanwhile:
            continue  # someone replaced our bytes since: theirs stay
        except Exception:  # noqa: BLE001 - keep restoring the others; the journal finishes the job
            ok = False
    if ok:
        store.prune()
    return ok


def _record(c: Change, seq: int) -> PatchRecord:
    dist = c.patch.dist
    assert dist is not None
    files = tuple(
        FileRecord(f.module, str(f.path.relative_to(dist.root)), sha256(f.original), sha256(f.after)) for f in c.files
    )
    return PatchRecord(
        c.patch.patch.name, dist.name, str(dist.version), c.patch.patch.digest, files, seq, record_digest(dist)
    )

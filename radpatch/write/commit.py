"""Write a run's files all or nothing, over the bytes each was planned against, and record it:
the journal first, the originals kept, each file written, then radpatch's record; on any failure
what was written is put back (or the journal stays for the next run to finish)."""

from __future__ import annotations

import uuid
from pathlib import Path

from radpatch import faults
from radpatch.errors import RadpatchError
from radpatch.files import (
    ChangedMeanwhile,
    atomic_write,
    create_new,
    missing_dirs,
    remove_empty,
    remove_module,
)
from radpatch.files.bytecode import drop_bytecode, refresh_bytecode
from radpatch.install import wheel_record
from radpatch.install.environment import PythonEnv
from radpatch.prove.run import Change
from radpatch.state import recording
from radpatch.state.journal_install import InstallOf
from radpatch.state.record import Store, sha256, state_sha


def commit(env: PythonEnv, changes: list[Change], op: str) -> None:
    """Write the changes of one run (all on one installation) and record them; `op`: apply or revert."""
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
    store.begin(run_id, op, [c.patch.patch.name for c in group], files, created, _installs(group))
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
    except BaseException as exc:
        if _roll_back(store, files, written, dirs):
            store.end()
        elif isinstance(exc, RadpatchError) and written:  # what it wrote stays: say so, and how it ends
            exc.message = (
                f"{exc.message}; the files this run wrote could not all be put back, so they stay as written "
                f"and the run is pending ({', '.join(str(p) for p in written[:3])}{', ...' * (len(written) > 3)})"
            )
            exc.hint = (
                f"{exc.hint + '; then ' if exc.hint else ''}run `radpatch apply` or `radpatch revert` once that is "
                "mended: either completes the interrupted run first (`radpatch status` says it is pending)"
            )
        raise
    store.end()
    _tidy_forgotten(group)


def _installs(group: list[Change]) -> dict[Path, InstallOf]:
    """The install each file belongs to, as planned against: recovery writes a file back only into that one."""
    out = {}
    for c in group:
        dist, identity = c.patch.dist, c.patch.dist_record.files
        if dist is not None and identity:
            of = InstallOf(dist.dist_info.name, dist.name, str(dist.version), identity)
            out.update({f.path: of for f in c.files})
    return out


def _tidy_forgotten(group: list[Change]) -> None:
    """A record dropped because its files are as before it (a created module deleted by hand): what
    radpatch made for a created module that is gone goes too, its bytecode and each directory made
    for it that is empty then."""
    for c in group:
        rec, root = c.patch.record, c.patch.root
        if not c.forget or rec is None or root is None:
            continue
        for f in rec.files:
            path = root / f.path
            if f.created and not path.exists():
                drop_bytecode(path)
                remove_empty(tuple(root / d for d in f.made_dirs))


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

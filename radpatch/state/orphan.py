"""A record whose distribution was uninstalled (`pip uninstall`): what of radpatch's work is still on
disk, read from the record and the files' hashes alone (docs/state.md, "After an uninstall").

pip removes the files the distribution's RECORD lists, patched or not; it leaves what it never
installed: the modules radpatch created, and a patched file no RECORD lists. So the record is not
empty words yet: each of its files still there is read as the engine-start check reads a file
(state.hashes.read_file, the record trusted: the install it speaks for is gone, and nothing else
says what these files are). A file that carries the patch is left over (`revert` removes a created
one, or writes back the kept original of a patched one, each only over the bytes it was exactly
left as); one changed since is drifted (revert refuses it, naming it); a file gone, or back to its
state before the patch, is nothing to restore."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from radpatch.files import read_regular
from radpatch.state import owner
from radpatch.state.decided import FileState, PatchState
from radpatch.state.hashes import read_file
from radpatch.state.record import PatchRecord, Store, state_sha
from radpatch.state.verdict import State, file_verdict


def left(root: Path, rec: PatchRecord) -> tuple[FileState, ...]:
    """The record's files still on disk that are not as before the patch: APPLIED (they carry it) or
    DRIFTED (changed since radpatch wrote them), each with what it is."""
    store = Store(root)
    out = []
    for f in rec.files:
        path = root / f.path
        read = read_file(f, lambda path=path: read_regular(path), store, None, True)  # type: ignore[misc]
        if read.data is None and read.error is None:  # gone: with the distribution, or as before it was created
            continue
        v = file_verdict(f.path, read, True, lost="", quiet=True)
        if v.state is State.NOT_APPLIED:
            continue
        state = v.state
        # exactly as radpatch left it: this link's result, or that of a link stacked above it
        digest = state_sha(read.data)
        exact = read.data is not None and any(link.patched_sha256 == digest for _, link in store.chain(f.path))
        if not exact:  # revert removes or restores a file only as radpatch left it, byte for byte
            state = State.DRIFTED
        detail = _what(f.path, f.created, state, owner.kept_by_revert(f))
        out.append(FileState(f.module, path, f.path, (), read.data or b"", state, detail, None))
    return tuple(out)


def _what(relpath: str, created: bool, state: State, kept: bool) -> str:
    if kept:  # state.owner: radpatch did not write it, or its record cannot show it did
        return f"{relpath} (a module radpatch recorded but did not write, or cannot show it wrote: revert leaves it)"
    if created:
        if state is State.APPLIED:
            return f"{relpath} (a module radpatch created, exactly as it wrote it)"
        return f"{relpath} (a module radpatch created, changed since it wrote it)"
    if state is State.APPLIED:
        return f"{relpath} (a file the uninstall left, still patched exactly as radpatch wrote it)"
    return f"{relpath} (a file the uninstall left, patched, then changed since radpatch wrote it)"


def state(patch_name: str, distribution: str, root: Path, ps_of: PatchState) -> PatchState:
    """`ps_of` (the not-installed state of a patch whose record in `root` remains) with the record
    and what of it is still on disk, and the reason saying truly what `revert` does."""
    store = Store(root)
    rec = store.records()[patch_name]
    files = left(root, rec)
    gone = f"{distribution} was uninstalled from {root}; radpatch's record of {patch_name} remains in {store.dir}"
    if not files:
        why = f"{gone}: `radpatch revert {patch_name}` forgets it (nothing is left to restore)"
        return _with(ps_of, why, rec, files, "")
    drifted = [f for f in files if f.state is State.DRIFTED]
    said = "; ".join(f.detail for f in files)
    if drifted:
        names = " ".join(f.relpath for f in drifted)
        way = (
            f"`radpatch revert {patch_name}` refuses {names} until it is as radpatch left it (or you remove it "
            "or put it back by hand)"
        )
        hint = f"compare {names} with what {patch_name} wrote; remove it or put it back by hand, then revert"
    else:
        made = {f.path for f in rec.files if f.created and not owner.kept_by_revert(f)}
        files = tuple(f for f in files if f.relpath in made or not _kept(rec, f.relpath))
        created = [f.relpath for f in files if f.relpath in made]
        patched = [f.relpath for f in files if f.relpath not in made]
        does = [f"removes {' '.join(created)}"] if created else []
        does += [f"puts back the kept original of {' '.join(patched)}"] if patched else []
        way = f"`radpatch revert {patch_name}` {' and '.join(does)}{', then' * bool(does)} forgets the record"
        hint = way
    why = f"{gone}, and these of its files are still on disk: {said}: {way}"
    return _with(ps_of, why, rec, files, hint)


def _kept(rec: PatchRecord, relpath: str) -> bool:
    return any(f.path == relpath and owner.kept_by_revert(f) for f in rec.files)


def _with(ps: PatchState, why: str, rec: PatchRecord, files: tuple[FileState, ...], hint: str) -> PatchState:
    return replace(ps, reason=why, record=rec, files=files, orphan=ps.orphan, hint=hint or ps.hint)

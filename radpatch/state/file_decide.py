"""One file's state for a patch: from radpatch's record and the file's hashes first (the file
chains of state.hashes), from its code only when hashes cannot decide (the `Judge` passed in);
and the files of a record that still carry it, or that a reinstall replaced."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.files import read_regular
from radpatch.install.environment import Installed
from radpatch.install.targets import ReadFile
from radpatch.registry.model import Patch
from radpatch.state import owner
from radpatch.state.decided import FileState, Judge
from radpatch.state.hashes import ByHash, FileRead, by_hash, carried, read_file, taken_by_hand
from radpatch.state.record import FileRecord, PatchRecord, Store, state_sha
from radpatch.state.stack import Meets, own_chain, take_off
from radpatch.state.verdict import State, file_verdict


def still_applied(dist: Installed, store: Store, record: PatchRecord | None) -> tuple[FileState, ...]:
    """The files of a trusted record when every one still carries the patch (by the hashes of the
    file chains: patches stacked on top, comment and layout edits count as carrying it), else ():
    an entry that changed or stopped covering a version must not hide a patched file from `revert`."""
    return _record_files(dist, store, record, ByHash.APPLIED)


def left_behind(
    dist: Installed, store: Store, record: PatchRecord | None, current: Mapping[str, str]
) -> list[FileState]:
    """Files an earlier revision of the entry patched that the current one does not rewrite (it
    moved to another module), when they do not read as pristine: such a file is radpatch's and
    changed since, so the patch cannot read as applied or not applied. Or the same module is now
    found at another file (`current`: relpath -> module), which hides the one radpatch patched
    (a package `core/__init__.py` made beside `core.py`): said so, and what to remove."""
    out = []
    now_at = {module: rel for rel, module in current.items()}
    for f in record.files if record is not None else ():
        if f.path in current:
            continue
        path = dist.root / f.path
        found = _read(path)
        data = found or b""
        wheel = dist.recorded_sha256(f.path)
        read = by_hash(state_sha(found), f, store, wheel, found)
        if read is ByHash.NOT_APPLIED:
            continue
        why, hint = f"{f.path}: an earlier revision of the entry patched it, and it changed since", ""
        hider = now_at.get(f.module)
        if hider is not None:
            carries = "carries the patch as radpatch wrote it" if read is ByHash.APPLIED else "was patched by radpatch"
            why = f"{f.path} {carries}, but {f.module} is now imported from {hider}, which hides it"
            if dist.recorded_sha256(hider) is None:
                hint = f"remove {hider} (the wheel does not install it; it hides {f.path}), then read the status again"
        out.append(FileState(f.module, path, f.path, (), data, State.DRIFTED, why, wheel, hint=hint))
    return out


def recorded_files(dist: Installed, store: Store, record: PatchRecord) -> list[FileState]:
    """The files of a record of another revision of the entry, each read and worded as the engine-start
    check reads it (state.hashes.read_file, state.verdict.file_verdict): what radpatch wrote decides,
    whatever the entry's current revision names (a module it dropped, added or moved to), so a file
    put back by hand beside one that carries the patch reads drifted in both, naming the file."""
    return [_as_at_engine_start(dist, store, f) for f in record.files]


def _as_at_engine_start(dist: Installed, store: Store, f: FileRecord) -> FileState:
    path = dist.root / f.path
    wheel = dist.recorded_sha256(f.path)
    read = read_file(f, lambda: read_regular(path), store, wheel, True)
    v = file_verdict(f.path, read, True, lost=f"{dist.name} {dist.version} has no {f.path} under {dist.root}")
    return FileState(f.module, path, f.path, (), read.data or b"", v.state, v.detail, wheel, v.exists)


def named_in_mix(dist: Installed, store: Store, record: PatchRecord | None, each: list[FileState]) -> list[FileState]:
    """A patch some of whose recorded files carry it while others read not applied (put back by hand)
    is drifted: each such file, said quietly in status's table, gets the sentence the engine-start
    check says of it ("... is the pristine file"), so both name the same file."""
    states = {f.state for f in each}
    if record is None or not {State.APPLIED, State.NOT_APPLIED} <= states:
        return each
    recs = {r.path: r for r in record.files}
    return [
        replace(f, detail=_as_at_engine_start(dist, store, recs[f.relpath]).detail)
        if f.state is State.NOT_APPLIED and not f.detail and f.relpath in recs
        else f
        for f in each
    ]


def void(dist: Installed, store: Store, record: PatchRecord) -> bool:
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


def file_state(
    patch: Patch,
    store: Store,
    record: PatchRecord | None,
    t: ReadFile,
    judge: Judge,
    trust: frozenset[str],
    python: str = "",
    listed: bool = True,
) -> FileState:
    """One file's state for `patch`; `trust`: the entries whose records speak for this install
    (`trusted_names`), the only ones whose code may be taken off the file to judge it (`taken_off`);
    `listed`: RECORD was read, so a file it has no row for is not the distribution's (`unlisted`)."""
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
    # a file its distribution did not install that neither the entry nor an entry radpatch applied made
    # (an entry on record goes on: a package hiding its module is named by left_behind)
    if listed and record is None and t.data is not None and wheel is None and not (t.creates or patch.requires):
        if not store.chain(relpath):
            raise unlisted(patch.name, relpath)
    data = t.data or b""
    recorded = next((f for f in (record.files if record else ()) if f.path == relpath), None)
    # no record of a missing file: not applied (a module the entry creates, or another entry does)
    seen = (
        by_hash(state_sha(t.data), recorded, store, wheel, t.data)
        if recorded or t.data is not None
        else ByHash.NOT_APPLIED
    )
    hand = (
        taken_by_hand(store, recorded, state_sha(t.data), t.data) if recorded and seen is ByHash.NOT_APPLIED else None
    )
    read = FileRead(t.data, seen, carries=hand or (), by_hand=hand is not None)
    v = file_verdict(relpath, read, record is not None, lost="", quiet=True)
    state, detail = v.state, v.detail
    others = own_chain(store, relpath, t.data, wheel) if seen is ByHash.UNDECIDED and not recorded else []
    if others and patch.name not in others:
        # the file is exactly radpatch's recorded work of other entries on the wheel's bytes: whatever of
        # this entry's code it holds, they put there (a one-gap twin inserting the same code), not this
        # entry: it is not applied (apply judges what upstream carries on the kept original: own_base)
        return FileState(module, path, relpath, rws, data, State.NOT_APPLIED, "", wheel, left_by=tuple(others))
    if t.data is None and state is State.NOT_APPLIED and not t.creates:
        if not patch.requires and wheel is None:  # not the distribution's, and no entry it requires makes it
            detail = (
                f"{relpath}: no such module in this install (its distribution's RECORD does not list it, and "
                f"{patch.name} requires no entry that creates it): check the entry's `modules:` for this version, "
                "or apply it in one run with the entry that creates the module"
            )
        else:
            detail = f"{relpath}: no such module (yet): the entry that creates it comes first"
    elif seen is ByHash.UNDECIDED and t.data is not None:  # the hashes cannot decide: the rewrites judge (libcst)
        state, why = judge(patch, rws, data, str(path), recorded, store, python)
        detail = f"{relpath}: {why}" if why else ""
        base = take_off(store, relpath, data, patch.name, trust) if state is State.APPLIED and not recorded else None
        if isinstance(base, Meets):
            return ambiguous(patch.name, t, data, base)
        if base is not None and judge(patch, rws, base, str(path), None, store, python)[0] is not State.APPLIED:
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
        if own_product(store, patch, relpath, t.data):  # a module pip left: applied, unrecorded for this install
            return FileState(module, path, relpath, rws, data, State.APPLIED, "", wheel)
        # not an order, nor a change: nobody changed the file, so not "put the files back" (att60 F07)
        detail, hint = f"{relpath}: {in_the_way(wheel is not None)}", in_the_way_hint(wheel is not None)
        return FileState(module, path, relpath, rws, data, State.DRIFTED, detail, wheel, hint=hint)
    return FileState(module, path, relpath, rws, data, state, detail, wheel, exists=t.data is not None)


def own_product(store: Store, patch: Patch, relpath: str, data: bytes) -> bool:
    """The module the entry creates is exactly what radpatch's links (a record of another install too)
    wrote from no file, this revision of the entry's among them (state.owner.product)."""
    rec = store.records().get(patch.name)
    return rec is not None and rec.registry_digest == patch.digest and patch.name in owner.product(store, relpath, data)


def in_the_way_hint(listed: bool) -> str:
    """What to do where a file is in the way of the module an entry creates (in_the_way): nothing is to put back."""
    if listed:
        return "nothing is to put back: the entry creates a module this release installs, so change the entry"
    return "nothing is to put back: delete the file if it is left over, then apply again"


def unlisted(name: str, relpath: str) -> RefusedError:
    """A file the entry rewrites that its distribution did not install (its RECORD does not list it),
    that the entry does not create and that no entry of radpatch's created: one rule for import, apply
    and capture (docs/safety.md): radpatch has no installed bytes of it, and neither `radpatch restore`,
    a reinstall nor an uninstall reaches it, so what radpatch wrote there would outlive them all."""
    return RefusedError(
        f"{relpath} is no file of the distribution (its RECORD does not list it), and neither {name} "
        "nor an entry radpatch applied created it: radpatch patches the files a distribution installed",
        f"remove {relpath} if it is left over, or take it out of {name}; a module the patch adds is written "
        "with `create_module`",
    )


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

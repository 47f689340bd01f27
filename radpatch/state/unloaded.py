"""Entries radpatch's record holds that no loaded registry has (the entry was renamed or dropped
from a newer radpatch's shipped registry, or its `--registry` was not given): they still changed
the install, so `status` lists them and `revert` takes them off, from the record alone.

Such an entry is named by a stand-in `Patch` built from its record (`from_record`: no rewrites,
its recorded digest); its state is read as the engine-start self-check reads one (docs/state.md):
each recorded file's hashes walked along the file's chain (state.hashes), never its code. So a
file exactly as radpatch left it (or with comment and layout edits) reads applied; one RECORD's
bytes or a link's before reads not applied; anything else drifted. `revert` writes back the
kept originals only where a file is exactly as radpatch left it (prove.undo); anything else
needs the entry's rewrites, and the refusal names --registry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from packaging.specifiers import SpecifierSet

from radpatch.files import read_regular
from radpatch.install import dist_infos
from radpatch.install.dist_infos import DistInfo
from radpatch.install.environment import Installed, PythonEnv, installed_from
from radpatch.install.targets import record_digest
from radpatch.registry.catalog import Registry
from radpatch.registry.model import Patch
from radpatch.state import orphan
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.hashes import read_file
from radpatch.state.record import PatchRecord, Store
from radpatch.state.verdict import FileVerdict, file_verdict, pending_note, verdict


def recorded(env: PythonEnv, known: Sequence[str]) -> dict[str, Path]:
    """The entries the environment's record holds that are not in `known` (the loaded
    registries' names), each with the installation directory whose record holds it."""
    out: dict[str, Path] = {}
    for d in env.paths:
        store = Store(d)
        if not store.record_path.is_file():
            continue
        for name, _rec in sorted(store.records().items(), key=lambda item: item[1].seq):
            if name not in known:
                out.setdefault(name, d)
    return out


def load_many(registry: Registry, env: PythonEnv, names: Sequence[str]) -> list[Patch]:
    """Each named entry from the registries, or (not in any, but recorded) its stand-in; a name
    neither knows is the registry's usage error, as before."""
    if all(n in registry.files for n in names):  # the usual case: no record is read for it
        return registry.load_many(list(names))
    only = recorded(env, registry.names())
    loaded = {p.name: p for p in registry.load_many([n for n in names if n not in only])}
    return [stand_in(n, only[n]) if n in only else loaded[n] for n in dict.fromkeys(names)]


def stand_in(name: str, root: Path) -> Patch:
    """The Patch that names a recorded entry no registry has: no rewrites, its record's digest."""
    rec = Store(root).records()[name]
    return Patch(
        name=name,
        summary="",
        description="",
        distribution=rec.distribution,
        supported=SpecifierSet(),
        obsolete=None,
        knobs=(),
        modules=(),
        rewrites=(),
        source=Store(root).record_path,
        digest=rec.registry_digest,
        supported_text="-",
        from_record=True,
    )


def carried(env: PythonEnv, name: str, root: Path) -> bool:
    """Whether the record of `name` in `root` still stands for code in the install: its state, read
    from the record alone as status reads an entry no registry given has (and the engine-start check
    reads every one), is neither not applied (a reinstall put the wheel's bytes back: a stale record)
    nor not installed. apply's overlap rule counts only such a record as applied here."""
    return decide(stand_in(name, root), env).state not in (State.NOT_APPLIED, State.NOT_INSTALLED)


def note(name: str) -> str:
    return (
        f"its registry entry is not loaded (no registry given has {name}): the state is read from radpatch's "
        "record alone"
    )


def decide(patch: Patch, env: PythonEnv) -> PatchState:
    """The state of a stand-in's entry, from its record and the files' hashes (see the module)."""
    root = patch.source.parent.parent
    store = Store(root)
    rec = store.records().get(patch.name)
    hint = f"give the registry that holds {patch.name} (--registry DIR) to judge its files by its code"
    if rec is None:  # the record changed since the stand-in was made
        return PatchState(patch, State.NOT_APPLIED, f"radpatch has no record of {patch.name}", None, (), None)
    found = dist_infos.named(root, rec.distribution)
    if len(found) > 1:  # a stale dist-info beside the installed one: which version is unknown
        why = f"{len(found)} dist-infos of {rec.distribution} in {root} ({', '.join(d.name for d in found)})"
        return PatchState(patch, State.INCOMPATIBLE, why, None, (), None, hint="remove the stale one, then run again")
    dist = installed_from(found[0]) if found else None
    if dist is None:
        gone = PatchState(patch, State.NOT_INSTALLED, "", None, (), None, orphan=root)
        return orphan.state(patch.name, rec.distribution, root, gone)
    dist_record = record_digest(dist)
    read: list[FileState] = []

    def files(record: PatchRecord | None) -> Sequence[FileVerdict]:
        # the one decision status and the engine-start check make (state.verdict): each file by
        # its hashes, the record's links walked only when the record speaks for this install
        read.extend(_file(dist, store, rec, i, record is not None) for i in range(len(rec.files)))
        return [FileVerdict(f.relpath, f.state, f.detail, f.exists) for f in read]

    info = DistInfo(dist.name, str(dist.version), dist.dist_info.name)
    v = verdict(patch.name, rec, [info], dist_record, files, pending=pending_note(store))
    reason = "; ".join(r for r in (note(patch.name), v.reason) if r)
    kept = tuple(read) if v.state is not State.INCOMPATIBLE else ()
    record = rec if v.stale is None else None
    return PatchState(
        patch,
        v.state,
        reason,
        dist,
        kept,
        record,
        dist_record=dist_record,
        hint=hint,
        stale=v.stale,
        pending=v.pending,
        unrecorded=v.unrecorded,
    )


def _file(dist: Installed, store: Store, rec: PatchRecord, i: int, trusted: bool) -> FileState:
    """One recorded file by its hashes, as the engine-start check reads it: a file of the install
    that is gone (no patch created it) is a broken install, as status says."""
    f = rec.files[i]
    path = dist.root / f.path
    wheel = dist.recorded_sha256(f.path)
    read = read_file(f, lambda: read_regular(path), store, wheel, trusted)
    lost = f"{dist.name} {dist.version} has no {f.path} under {dist.root}"
    v = file_verdict(f.path, read, trusted, lost=lost, quiet=True)
    return FileState(f.module, path, f.path, (), read.data or b"", v.state, v.detail, wheel, v.exists)

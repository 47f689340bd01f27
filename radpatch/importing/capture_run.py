"""`radpatch capture`'s transaction: find the edits, read their befores, build the entry, then
write it and have `apply` record it, or leave nothing.

The befores: the pristine bytes from the wheel of the installed version (releases.pristine: the
index with verify's cache, or --wheel), or, for a file edited on top of radpatch's patches, the
bytes they left (prove.onto). The entry is built as `import` builds one (importing.captured,
importing.emit) and written; then `apply` (passed in by the command: commands/ alone call
write/) records it as applied without rewriting the edited files (record only: a run that would
write is refused, and the files are checked byte for byte after it). An entry apply will not
record is removed again: capture leaves a recorded entry or nothing.

What it says on the way goes through `say` (the command's: a YAML comment under --dry-run).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.files import read_regular
from radpatch.importing import capture, captured, entry_files
from radpatch.install import editable
from radpatch.prove import onto
from radpatch.releases import pristine
from radpatch.state.record import Store
from radpatch.state.verdict import pending_note

Say = Callable[[str], None]
Run = Callable[[Context, str], object]  # apply (record only) or revert one entry, in that context


@dataclass(frozen=True)
class Request:
    """What to capture (the command line's arguments and options, by their names)."""

    name: str
    paths: tuple[str, ...]
    out: str
    distribution: str | None
    wheel: str | None
    supported: str | None


@dataclass(frozen=True)
class Prepared:
    """The edits found and the entry built from them, not written yet."""

    found: capture.CapturedEdits
    made: captured.Captured


def check_new(ctx: Context, name: str, out: str) -> None:
    """The entry is new: no file of it in --out, no entry of its name in a registry given."""
    for path in (Path(out) / f"{name}.yaml", Path(out) / name):
        if path.exists():
            raise RefusedError(
                f"{path} exists already: capture writes a new entry and never overwrites one",
                "choose another NAME or --out directory, or remove the old entry first",
            )
    known = ctx.registry.files.get(name)
    if known is not None:
        raise RefusedError(
            f"an entry named {name} exists already ({known}); entry names are unique across registries",
            "choose another NAME",
        )


def prepare(ctx: Context, req: Request, say: Say) -> Prepared:
    """The edited and new modules, their befores, and the entry built from them."""
    found = capture.find(ctx.env, req.paths, req.distribution)
    pending = pending_note(Store(found.dist.root))
    if pending:  # files radpatch's own interrupted run wrote would read as hand edits
        raise RefusedError(
            f"cannot capture in {found.dist.root}: {pending}",
            "run `radpatch apply` (or `radpatch revert`) to complete the interrupted run, then capture again",
        )
    _name_free(req.name, found)
    say_left_out(found.left_out, say)
    if not found.edited and found.dist.editable:  # its code is in the source tree, edited there if anywhere
        where = next(iter(editable.sources(found.dist).values()), found.dist.root)
        raise editable.refusal(found.dist, where.parent if where != found.dist.root else where)
    if not found.edited:
        nothing = (
            f"nothing to capture: no module of {found.dist.name} {found.dist.version} differs from its RECORD in "
            f"{found.scanned}"
        )
        if found.undone:
            raise RefusedError(nothing + "; " + _undone(found.undone), _drop(found.undone))
        raise RefusedError(
            nothing, "edit the installed files first (or name them: radpatch capture NAME PATH...), then capture"
        )
    for u in found.undone:
        say(f"not captured: {_undone((u,))}; {_drop((u,))}")
    entries = _entries(ctx, req.out)
    tops = {e.on.patch: f"{e.relpath} was edited on top of it" for e in reversed(found.edited) if e.on is not None}
    _need_entries(req.name, tops, entries)
    _below_whole(req, found, tuple(tops))
    before = {**_stacked(ctx, found, entries, say), **_pristine(found, req.wheel, say)}
    made = captured.build(req.name, found, before, req.supported)
    _need_entries(req.name, {r: "the new code imports what it created" for r in made.requires}, entries)
    say_left_out(made.layout_only, say)
    return Prepared(found, made)


def _name_free(name: str, found: capture.CapturedEdits) -> None:
    """No entry of that name is applied here: radpatch's record names each applied entry once (att60 F08:
    one recorded from another registry read as an entry the capture would require, and then as a.yaml
    existing already)."""
    taken = Store(found.dist.root).records().get(name)
    if taken is not None:
        files = ", ".join(dict.fromkeys(f.path for f in taken.files)) or "no file"
        raise RefusedError(
            f"the name {name} is taken: an entry {name} is applied to {taken.distribution} {taken.version} here "
            f"(radpatch's record; it changed {files}), and capture writes a new entry",
            f"choose another NAME: radpatch --registry DIR capture {name}_2 ... (DIR: the registry holding "
            f"{name}.yaml) captures the edits as an entry of their own, on top of {name} where they edit its files",
        )


def _undone(undone: tuple[capture.Undone, ...]) -> str:
    """Which recorded entries a scan found with every file back at its RECORD bytes."""
    return "; ".join(
        f"{u.patch}'s change was taken out ({', '.join(u.relpaths)} {'is' if len(u.relpaths) == 1 else 'are'} back at "
        f"RECORD bytes: {u.patch} reads not applied)"
        for u in undone
    )


def _drop(undone: tuple[capture.Undone, ...]) -> str:
    names = " ".join(u.patch for u in undone)
    return (
        f"an entry taken out whole is dropped, not captured: `radpatch revert {names}` drops radpatch's record "
        "(it writes no file); delete the entry file too if you no longer want it"
    )


def _below_whole(req: Request, found: capture.CapturedEdits, below: tuple[str, ...]) -> None:
    """A capture of named files on top of an entry must take in every file of that entry that was
    edited by hand since (or taken back to RECORD bytes): left out, it leaves that entry drifted
    under the new one, and apply would refuse it with `radpatch restore`, which throws the edits away."""
    store, taken = Store(found.dist.root), {e.relpath for e in found.edited}
    records = store.records()
    for patch in below:
        record = records.get(patch)
        for rel in [] if record is None else dict.fromkeys(f.path for f in record.files if f.path not in taken):
            data = _bytes(found.dist.root / rel)
            if data is None or onto.edited_on(store, rel, data) is None:
                continue  # as radpatch left it (or deleted: capture refuses that when named)
            raise RefusedError(
                f"{req.name} goes on top of {patch}, which also changed {rel}: that file was edited since (by hand, "
                f"or back at RECORD bytes) and is not among the "
                f"files named ({found.scanned}), so {patch} would read drifted under {req.name}",
                f"capture it too: radpatch capture {req.name} {' '.join((*req.paths, rel))} "
                "(or name no PATH: a scan takes every edited file)",
            )


def say_left_out(left: tuple[capture.LeftOut, ...], say: Say, most: int = 20) -> None:
    for x in left[:most]:
        say(f"left out {x.relpath}: {x.why}")
    if len(left) > most:
        say(f"left out {len(left) - most} more files as well")


def _entries(ctx: Context, out: str) -> onto.Entries:
    """The registry entries capture's `apply` will load (the registries given, and --out)."""
    registry = Context(ctx.python, (*ctx.registries, out) if Path(out).is_dir() else ctx.registries).registry
    return lambda name: registry.load(name) if name in registry.files else None


def _need_entries(name: str, required: dict[str, str], entries: onto.Entries) -> None:
    """The entries the capture will require (name -> why) must be loadable: apply applies them first."""
    missing = {r: why for r, why in required.items() if entries(r) is None}
    if missing:
        n = len(missing)
        raise RefusedError(
            f"{name} would require {'; '.join(f'{r} ({why})' for r, why in missing.items())}, applied as radpatch's "
            f"record says, but no registry given holds {'its entry' if n == 1 else 'their entries'}",
            f"give the registry directory holding {', '.join(r + '.yaml' for r in missing)}: "
            f"radpatch --registry DIR capture {name} ... (or capture into it: --out DIR)",
        )


def _stacked(ctx: Context, found: capture.CapturedEdits, entries: onto.Entries, say: Say) -> dict[str, bytes]:
    """The before of each file edited on top of radpatch's patches: the bytes they left; said how."""
    out: dict[str, bytes] = {}
    store = Store(found.dist.root)
    for e in found.edited:
        if e.on is None:
            continue
        base = onto.left_by(store, e.on, entries, ctx.env)
        how = "kept by radpatch" if base.kept else f"rebuilt by {e.on.patch}'s entry from its kept original"
        say(f"{e.relpath}: edited on top of {e.on.patch}; starts from the bytes {e.on.patch} left ({how})")
        out[e.relpath] = base.data
    return out


def _pristine(found: capture.CapturedEdits, wheel: str | None, say: Say) -> dict[str, bytes]:
    """The RECORD bytes of the edited (not the new) modules, from the wheel; said where from."""
    dist, changed = found.dist, [e.relpath for e in found.edited if e.on is None]
    if not changed:
        return {}
    got, source = (
        pristine.from_wheel(dist, changed, pristine.local_wheel(dist, (wheel,)))
        if wheel
        else pristine.from_index(dist, changed)
    )
    n = len(changed)
    say(
        f"{dist.name} {dist.version}: the pristine bytes of {n} file{'s' * (n != 1)} from {source.describe()}, "
        f"{'each' if n > 1 else 'its bytes'} hashing to RECORD's sha256"
    )
    return {p.relpath: p.data for p in got}


def write_and_record(ctx: Context, out: Path, prepared: Prepared, apply: Run, revert: Run) -> None:
    """Write the entry, then `apply` it, recording only: apply adopts the files that carry it
    (records them as applied, writes nothing) and refuses a run that would write a file. Then
    every captured file must still be the bytes it was. An entry apply refuses is removed again."""
    entry = prepared.made.entry
    written = entry_files.write(out, [entry])
    with_out = Context(ctx.python, (*ctx.registries, str(out)))
    try:
        apply(with_out, entry.name)
        _unwritten(with_out, entry.name, prepared.found, revert)
    except RadpatchError as exc:
        _remove(written, out / entry.name)
        exc.hint = f"capture kept no entry ({out / (entry.name + '.yaml')} removed); " + (
            exc.hint or "fix the edit and capture again"
        )
        raise


def _unwritten(ctx: Context, name: str, found: capture.CapturedEdits, revert: Run) -> None:
    """Each captured file is still the user's bytes; if apply wrote one anyway, its record is taken
    off again (revert gives back the bytes it started from: the user's) and capture refuses."""
    changed = [e.relpath for e in found.edited if _bytes(found.dist.root / e.relpath) != e.current]
    if changed:
        revert(ctx, name)
        raise RefusedError(
            f"{name}: apply wrote {', '.join(changed)} instead of recording the edits as they are; "
            "reverted (the edited bytes are back)",
            "this is a bug in radpatch: please report it with the edited file",
        )


def _bytes(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except OSError:
        return None


def _remove(written: list[Path], payloads: Path) -> None:
    """The files this run wrote, and the directories under `payloads` (new in this run: checked
    absent before) that they leave empty."""
    for path in written:
        with contextlib.suppress(OSError):
            path.unlink()
        d = path.parent
        while d == payloads or payloads in d.parents:
            with contextlib.suppress(OSError):
                d.rmdir()  # fails, harmlessly, while the directory still holds anything
            d = d.parent

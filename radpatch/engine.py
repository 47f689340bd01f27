"""Apply and revert patches: decide, plan and prove in memory, then write all or nothing."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from radpatch import faults
from radpatch.errors import EnvironmentProblem, RadpatchError, RefusedError
from radpatch.files import (
    ChangedMeanwhile,
    atomic_write,
    create_new,
    missing_dirs,
    read_regular,
    refresh_bytecode,
    remove_module,
)
from radpatch.gcpause import pausing
from radpatch.install.environment import Installed, PythonEnv, module_path
from radpatch.install.locate import find_target
from radpatch.prove import plan
from radpatch.prove.steps import ast_equal
from radpatch.registry.model import Patch, Rewrite, creates
from radpatch.rewrite import runner
from radpatch.state.decide import (
    FileState,
    PatchState,
    State,
    applied_error,
    changed_scopes,
    patch_state,
    record_digest,
    still_unpatched,
    targets,
)
from radpatch.state.hashes import Link, above, base, code_hash, target_code_hashes
from radpatch.state.record import FileRecord, PatchRecord, Store, sha256, state_sha

Say = Callable[[str], None]
# the RECORD bytes of files of an installed distribution, read from its wheel (checked against RECORD),
# and where they came from: apply's adopt path asks for them (commands/change.py reads the wheel)
WheelBytes = Callable[[Installed, list[str]], tuple[dict[str, bytes], str]]


def _reinstall(ps: PatchState) -> str:
    files = " ".join(f.relpath for f in ps.files) or (ps.dist.name if ps.dist else ps.patch.distribution)
    return f"put the files back to the installed bytes (radpatch restore {files}, no reinstall), then apply again"


@dataclass(frozen=True)
class Change:
    patch: PatchState
    files: tuple[plan.FileChange, ...]
    root: Path  # the installation directory whose state records this change
    forget: bool = False  # revert: only drop a record that no longer describes the files
    off: bool = False  # apply: the patch comes off these files (to go on again in its current revision)
    adopted: frozenset[Path] = frozenset()  # apply: files that carry the result already: recorded, not written
    where: str = ""  # adopted: where their original (RECORD's bytes) came from
    created: frozenset[Path] = frozenset()  # files whose state before is no file (`before` is b""): created
    deleted: Mapping[Path, tuple[Path, ...]] = field(default_factory=dict)  # files the change deletes -> the
    # directories radpatch made for them (outermost first), removed if empty


Overlay = dict[Path, "bytes | None"]  # each file as the run's earlier changes leave it (None: no file)


def _refuse_state(ps: PatchState, doing: str) -> RefusedError:
    hints = {
        State.DRIFTED: f"someone else changed the file; {_reinstall(ps)}",
        State.INCOMPATIBLE: "install a supported version, or declare a variant for this one in the registry",
        State.NOT_INSTALLED: "install it first, or point --python at the environment that has it",
    }
    return RefusedError(
        f"{ps.patch.name}: cannot {doing}: {ps.state.value}: {ps.reason}", ps.hint or hints.get(ps.state, "")
    )


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
    env: PythonEnv,
    patches: list[Patch],
    say: Say,
    dry_run: bool = False,
    import_check: bool = False,
    wheel: WheelBytes | None = None,
) -> list[Change]:
    """Apply every patch that is not applied yet, and re-apply each whose entry has another
    revision now; refuse all if any one cannot be proven. `import_check`: also import each
    changed module, as planned, in the target interpreter first.

    Adopt: a file radpatch has no record of that already carries the patch's result (someone
    applied it by hand, or with sed or `patch`) is recorded as applied without being written,
    when the patch run on its RECORD bytes (read by `wheel`, only on this path) is its code; the
    RECORD bytes are kept as its original, so revert gives them back.

    A re-applied patch comes off first (with every patch stacked above it on its files, which
    must be named too), then goes on again in its current revision, the ones above after it in
    their order: each file's chain is rebuilt from the lowest link that changes (docs/state.md)."""
    states = {p.name: patch_state(p, env) for p in patches}
    redo = _restack(patches, states)  # newest first
    adopted = _adoption(patches, states, redo, env, wheel, say)
    changes: list[Change] = []
    overlay: Overlay = {}
    for name in redo:
        deleted: dict[Path, tuple[Path, ...]] = {}
        off = _take_off(states[name], set(redo), overlay, say, deleted)
        changes.append(_change(states[name], off, off=True, deleted=deleted))
    again = sorted((p for p in patches if p.name in redo), key=lambda p: -redo.index(p.name))
    for patch in [*again, *(p for p in patches if p.name not in redo)]:
        ps = states[patch.name]
        if patch.name in redo:
            if ps.record and ps.record.registry_digest != patch.digest:
                say(f"{patch.name}: applied from another revision of its registry entry; re-applying the current one")
            created: set[Path] = set()
            changes.append(_change(ps, _planned(ps, _entry_files(ps), env, overlay, created), created=created))
            continue
        if ps.declined:
            say(f"{patch.name}: {ps.reason}; nothing to apply")
            continue
        if patch.name in adopted:
            changes.append(_adopt(ps, adopted[patch.name], env, overlay))
            continue
        if ps.state is State.APPLIED:
            say(f"{patch.name}: already applied to {ps.dist.name} {ps.dist.version}; nothing to do")  # type: ignore[union-attr]
            continue
        if ps.state is State.OBSOLETE:
            say(f"{patch.name}: {ps.reason}; nothing to do")
            continue
        if ps.state is not State.NOT_APPLIED:
            raise _refuse_state(ps, "apply")
        created = set()
        changes.append(_change(ps, _planned(ps, list(ps.files), env, overlay, created), created=created))
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
        written = [f.module for f in c.files if f.path not in c.adopted]
        if not c.off and written:
            say(f"{c.patch.patch.name}: applied to {dist.name} {dist.version} ({', '.join(written)})")
        if c.adopted:
            say(f"{c.patch.patch.name}: {adopted_note(c)}")
    return changes


def adopted_note(c: Change) -> str:
    files = ", ".join(f.module for f in c.files if f.path in c.adopted)
    kept = f"original kept from {c.where}" if c.where else "revert removes it"
    return (
        f"adopted: {files} already {'carries' if len(c.adopted) == 1 else 'carry'} this patch's result "
        f"(AST-equal); recorded as applied, not written; {kept}"
    )


@dataclass(frozen=True)
class _Adopted:
    files: dict[Path, plan.FileChange]  # planned on the RECORD bytes; the last adopter's `after` is the file's bytes
    where: str  # where the RECORD bytes came from (the wheel)
    created: frozenset[Path] = frozenset()  # modules the patch creates: their state before is no file


def _adoption(
    patches: list[Patch],
    states: dict[str, PatchState],
    redo: list[str],
    env: PythonEnv,
    wheel: WheelBytes | None,
    say: Say,
) -> dict[str, _Adopted]:
    """The patches whose files already carry their result, planned on the files' RECORD bytes.

    A candidate: no record of radpatch's, read `drifted` or applied (by its code), each such file
    with no link of radpatch's and a sha256 in RECORD, or a module the patch creates (its state
    before is no file: no wheel is read for it). Per file, the candidates run in order on its
    RECORD bytes (with every proof step); the file is adopted when the result is its code (AST-equal).
    Otherwise the run is refused (the file is neither as installed nor the result: restore it).
    Without the RECORD bytes (no wheel, no index), a drifted candidate is refused, saying what to
    give; an applied one stays as it was (applied by its code, not recorded)."""
    # a module a patch of the run creates, which another one changes: no file before either
    created = frozenset(f.path for p in patches for f in states[p.name].files if creates(f.rewrites))
    todo = {p.name: _adoptable(states[p.name], created) for p in patches if p.name not in redo}
    todo = {n: fs for n, fs in todo.items() if fs}
    if not todo:
        return {}
    pristine, where = _pristine(states, todo, wheel, say, created)
    out: dict[str, _Adopted] = {}
    by_path: dict[Path, list[tuple[str, FileState]]] = {}
    for name, files in todo.items():
        if name in pristine:
            for f in files:
                by_path.setdefault(f.path, []).append((name, f))
    planned: dict[str, dict[Path, plan.FileChange]] = {}
    made: dict[Path, str] = {}  # a file no file was before -> the candidate that creates it (the first)
    for path, users in by_path.items():
        first = pristine[users[0][0]][path]
        if first is None:
            made[path] = users[0][0]
        data = first or b""
        steps: list[tuple[str, plan.FileChange]] = []
        try:
            for name, f in users:
                change = plan.plan(states[name].patch, f.rewrites, f.module, path, data, env)
                steps.append((name, change))
                data = change.after
        except RefusedError as exc:
            raise _not_adopted(
                states, [n for n, _ in users], users[0][1].relpath, f"on its RECORD bytes: {exc.message}"
            )
        disk = users[-1][1].data
        if not ast_equal(data, disk):
            rel = users[0][1].relpath
            why = f"{rel}'s code is not what the patch makes of its RECORD bytes ({_other_edits(data, disk)})"
            if first is None:
                why = f"{rel} exists and is not the module the entry creates (compared as syntax trees)"
            raise _not_adopted(states, [n for n, _ in users], rel, why)
        last = steps[-1]
        steps[-1] = (last[0], replace(last[1], after=disk, pyc=None))
        for name, change in steps:
            planned.setdefault(name, {})[path] = change
    for name in todo:
        if name in planned:
            out[name] = _Adopted(planned[name], where[name], frozenset(p for p in planned[name] if made.get(p) == name))
    return out


def _other_edits(result: bytes, disk: bytes) -> str:
    """Where the file differs from the patch's result on its RECORD bytes, as the file's lines."""
    import difflib

    ours, theirs = result.decode("utf-8", "replace").splitlines(), disk.decode("utf-8", "replace").splitlines()
    spans = [
        (j1 + 1, max(j2, j1 + 1))
        for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans[:5]) + (", ..." if len(spans) > 5 else "")
    return f"other edits at line{'s' if len(spans) > 1 or spans and spans[0][0] != spans[0][1] else ''} {shown}"


def _adoptable(ps: PatchState, created: frozenset[Path] = frozenset()) -> list[FileState]:
    """The files of a patch that `apply` may adopt (none: the patch is not a candidate)."""
    if ps.record is not None or ps.declined or ps.root is None or ps.state not in (State.DRIFTED, State.APPLIED):
        return []
    store = Store(ps.root)
    files = [f for f in ps.files if f.state is not State.NOT_APPLIED]
    if not files or any(
        store.chain(f.relpath) or f.record_match or _needs_wheel(f, created) and not f.record_sha256 for f in files
    ):
        return []
    return files


def _needs_wheel(f: FileState, created: frozenset[Path] = frozenset()) -> bool:
    """The file's state before the patch is its RECORD bytes (not a module the patch, or another
    patch of the run, creates)."""
    return not ((creates(f.rewrites) or f.path in created) and f.record_sha256 is None)


def _pristine(
    states: dict[str, PatchState],
    todo: dict[str, list[FileState]],
    wheel: WheelBytes | None,
    say: Say,
    created: frozenset[Path] = frozenset(),
) -> tuple[dict[str, dict[Path, bytes | None]], dict[str, str]]:
    """Each candidate's files' RECORD bytes, read once per distribution, and where from. A drifted
    candidate whose wheel cannot be read is refused (saying how to give it); an applied one is left.
    A module the patch creates has no RECORD bytes: None (no file), and no wheel is read for it."""
    got: dict[str, dict[Path, bytes | None]] = {}
    where: dict[str, str] = {}
    by_dist: dict[Path, list[str]] = {}
    for name in todo:
        dist = states[name].dist
        assert dist is not None
        by_dist.setdefault(dist.dist_info, []).append(name)
    for names in by_dist.values():
        dist = states[names[0]].dist
        assert dist is not None
        rels = list(dict.fromkeys(f.relpath for n in names for f in todo[n] if _needs_wheel(f, created)))
        if not rels:
            for n in names:
                got[n] = {f.path: None for f in todo[n]}
                where[n] = ""
            continue
        try:
            if wheel is None:
                raise _NoWheel("no wheel to read the installed files' RECORD bytes from")
            data, source = wheel(dist, rels)
        except RadpatchError as exc:
            for n in names:
                ps = states[n]
                if ps.state is State.DRIFTED or not isinstance(exc, (EnvironmentProblem, _NoWheel)):
                    what = f"drifted: {ps.reason}" if ps.state is State.DRIFTED else "applied by its code, not recorded"
                    raise RefusedError(
                        f"{n}: cannot apply: {what}; to adopt a file that already carries the "
                        f"patch, radpatch needs its RECORD bytes: {exc.message}",
                        f"give the wheel {dist.name} {dist.version} was installed from: radpatch apply --wheel FILE "
                        f"{n} (or let radpatch reach the package index); or {_reinstall(ps)}",
                    )
                say(f"{n}: applied (by its code), but not recorded: not adopted ({exc.message})")
            continue
        for n in names:
            got[n] = {f.path: data[f.relpath] if _needs_wheel(f, created) else None for f in todo[n]}
            where[n] = source
    return got, where


class _NoWheel(RefusedError):
    """apply was given no way to read a wheel."""


def _not_adopted(states: dict[str, PatchState], names: list[str], relpath: str, why: str) -> RefusedError:
    """The refusal of a file the candidates cannot adopt: it is neither as installed nor their result."""
    ps = states[names[0]]
    what = (
        f"drifted: {ps.reason}" if ps.state is State.DRIFTED else f"{relpath} carries it by its code, with other edits"
    )
    together = f" (if the file carries other patches too, name them together: radpatch apply {names[0]} OTHER)"
    return RefusedError(
        f"{names[0]}: cannot apply: {what}; not adopted: {why}", _reinstall(ps) + (together if len(names) == 1 else "")
    )


def _adopt(ps: PatchState, adopted: _Adopted, env: PythonEnv, overlay: Overlay) -> Change:
    """A patch some of whose files are adopted (planned already) and the rest applied as usual."""
    normal = [f for f in ps.files if f.path not in adopted.files]
    created = set(adopted.created)
    planned = {c.path: c for c in _planned(ps, normal, env, overlay, created)}
    for path, change in adopted.files.items():
        overlay[path] = change.after
    files = [adopted.files.get(f.path) or planned[f.path] for f in ps.files]
    return replace(_change(ps, files, created=created), adopted=frozenset(adopted.files), where=adopted.where)


def _planned(
    ps: PatchState, files: list[FileState], env: PythonEnv, overlay: Overlay, created: set[Path]
) -> list[plan.FileChange]:
    """Each file planned on what the run's earlier changes leave of it; `created` gets the files
    whose state before is no file (planned on an empty module: Operation.CREATES)."""
    out = []
    for f in files:
        before = overlay[f.path] if f.path in overlay else f.data if f.exists else None
        if before is None:
            if not creates(f.rewrites):
                raise RefusedError(
                    f"{ps.patch.name}: {f.relpath} does not exist, and no entry of this run creates it",
                    "apply the entry that creates the module first, or name it in this entry's `requires:`",
                )
            created.add(f.path)
        else:
            _refuse_if_present(ps, f, before)
        change = plan.plan(ps.patch, f.rewrites, f.module, f.path, before or b"", env)
        overlay[f.path] = change.after
        out.append(change)
    return out


def _entry_files(ps: PatchState) -> list[FileState]:
    """The files the entry's current revision rewrites (not those an earlier revision wrote)."""
    dist = ps.dist
    assert dist is not None
    found = targets(ps.patch, dist)
    if isinstance(found, str):
        raise RefusedError(f"cannot re-apply {ps.patch.name}: {found}", _reinstall(ps))
    out = []
    for t in found:
        path = module_path(dist, t.relpath, missing_ok=creates(t.rewrites))
        try:
            data = read_regular(path)
        except FileNotFoundError:
            if not creates(t.rewrites):
                raise RefusedError(f"{ps.patch.name}: cannot read {path}: no such file", _reinstall(ps))
            out.append(FileState(t.module, path, t.relpath, t.rewrites, b"", State.NOT_APPLIED, "", None, False))
            continue
        except OSError as exc:
            raise RefusedError(f"{ps.patch.name}: cannot read {path}: {exc.strerror}", _reinstall(ps))
        out.append(FileState(t.module, path, t.relpath, t.rewrites, data, State.NOT_APPLIED, "", None))
    return out


def _restack(patches: list[Patch], states: dict[str, PatchState]) -> list[str]:
    """The applied patches this run takes off and puts on again, newest first: each whose entry has
    another revision now, and every patch stacked above one of those (which must be named)."""
    named = {p.name for p in patches}
    todo = [
        p.name
        for p in patches
        if states[p.name].state is State.APPLIED
        and not states[p.name].declined
        and states[p.name].record is not None
        and states[p.name].record.registry_digest != p.digest  # type: ignore[union-attr]
    ]
    redo: dict[str, int] = {}
    while todo:
        name = todo.pop()
        if name in redo:
            continue
        ps = states[name]
        if ps.state is not State.APPLIED or ps.record is None or ps.dist is None:
            raise _refuse_state(ps, "re-apply")
        redo[name] = ps.record.seq
        for f in ps.record.files:
            for upper in _above(ps, f):
                if upper not in named:
                    raise RefusedError(
                        f"{name}: {f.path} also carries {upper}, applied on top of it: re-applying {name} "
                        f"takes {upper} off and puts it on again",
                        f"re-apply them together: radpatch apply {name} {upper}",
                    )
                todo.append(upper)
    return sorted(redo, key=lambda n: -redo[n])


def _above(ps: PatchState, rec: FileRecord) -> list[str]:
    """The patches stacked above `ps`'s link in the file as it is on disk."""
    assert ps.root is not None
    try:
        data = read_regular(ps.root / rec.path)
    except OSError:
        return []
    return above(Store(ps.root), rec, sha256(data), data)


def _refuse_if_present(ps: PatchState, f: FileState, data: bytes) -> None:
    """The installed code already carries what the patch (or one of its inserts) adds: applying
    would add it a second time. Refused: only the entry's author can tell upstream took the change.
    (A replace whose `with` is there already fails its own proof; an insert would not.)"""
    dist = ps.dist
    assert dist is not None
    where, text = str(f.path), data.decode("utf-8", "replace")
    maybe = [rw for rw in f.rewrites if rw.op.may_be_present(text)]
    if still_unpatched(ps.patch, f.rewrites, data, where):
        return  # `with` lies inside the unpatched `find` (`int(x)` -> `x`): nothing of the patch is there
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


def _change(
    ps: PatchState,
    files: list[plan.FileChange],
    forget: bool = False,
    off: bool = False,
    created: set[Path] | frozenset[Path] = frozenset(),
    deleted: Mapping[Path, tuple[Path, ...]] | None = None,
) -> Change:
    root = ps.root
    assert root is not None
    return Change(ps, tuple(files), root, forget, off, created=frozenset(created), deleted=dict(deleted or {}))


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
    overlay: Overlay = {}
    named = {p.name for p in patches}
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
        if ps.record is not None:
            deleted: dict[Path, tuple[Path, ...]] = {}
            changes.append(_change(ps, _take_off(ps, named, overlay, say, deleted), deleted=deleted))
            continue
        files = []  # applied by its code, with no record of radpatch's: only a proven inverse is accepted
        for f in ps.files:
            current = overlay.get(f.path, f.data) or b""
            if f.record_sha256 is None:
                raise RefusedError(
                    f"{ps.patch.name}: radpatch has no record of patching {f.relpath} and the distribution's "
                    "RECORD has no hash for it: nothing proves what its original was",
                    _reinstall(ps),
                )
            pristine = _inverse_checked(
                ps, f.relpath, f.rewrites, current, {f.record_sha256}, "radpatch has no record of patching it"
            )
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
            kept = [f for f in c.files if f.path not in c.deleted]
            how = "byte for byte" if all(_exact(c.patch, f) for f in kept) else "(comment and layout edits kept)"
            said = [f"{', '.join(f.module for f in kept)} restored {how}"] if kept else []
            gone = [f.module for f in c.files if f.path in c.deleted]
            said += (
                [f"{', '.join(gone)} removed (the patch created {'it' if len(gone) == 1 else 'them'})"] if gone else []
            )
            say(f"{c.patch.patch.name}: reverted; {'; '.join(said)}")
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


def _take_off(
    ps: PatchState, named: set[str], overlay: Overlay, say: Say, deleted: dict[Path, tuple[Path, ...]]
) -> list[plan.FileChange]:
    """Take the patch off every file its record names, each from what the run's earlier changes
    left of it: the kept original when the file is exactly as radpatch left it, else the
    structural inverse, accepted only when it is provably the recorded original's code. A file the
    patch created comes off as no file (`deleted` gets it, with the directories made for it)."""
    assert ps.record is not None and ps.root is not None
    out = []
    for rec in ps.record.files:
        later = [n for n in _above(ps, rec) if n not in named]
        if later:
            raise RefusedError(
                f"{ps.patch.name}: {rec.path} also carries {', '.join(later)}, applied on top of it",
                f"revert them together: radpatch revert {' '.join([ps.patch.name, *later])}",
            )
        path = ps.root / rec.path
        current = overlay.get(path)
        if current is None:
            try:
                current = read_regular(path)
            except OSError as exc:
                raise RefusedError(f"{ps.patch.name}: cannot read {path}: {exc.strerror}", _reinstall(ps))
        pristine = _restored(ps, rec, current, say)
        overlay[path] = pristine
        if pristine is None:
            deleted[path] = tuple(ps.root / d for d in rec.made_dirs)
        out.append(plan.FileChange(rec.module, path, current, pristine or b""))
    return out


def _restored(ps: PatchState, rec: FileRecord, current: bytes, say: Say) -> bytes | None:
    """What the file of `rec` becomes when `ps.patch` comes off it (None: no file, it created it)."""
    assert ps.root is not None
    store = Store(ps.root)
    wheel = next((f.record_sha256 for f in ps.files if f.relpath == rec.path), None)
    if rec.created:
        if sha256(current) != rec.patched_sha256:  # edited since: deleted only if its code is still the patch's
            _layout_edited(ps, rec, current, store, say)
        return None
    if sha256(current) == rec.patched_sha256:
        kept = store.original(rec.original_sha256)
        if kept is not None:
            return kept
        return _inverse_checked(
            ps,
            rec.path,
            _rewrites_of(ps, rec.path),
            current,
            {rec.original_sha256, wheel or rec.original_sha256},
            "its kept original is gone from .radpatch/originals/",
        )
    return _layout_edited(ps, rec, current, store, say)


def _rewrites_of(ps: PatchState, relpath: str) -> tuple[Rewrite, ...]:
    """The current revision's rewrites of `relpath` (what undoes the patch structurally), or
    refused when it has none: an earlier revision patched the file and the current one moved."""
    found = targets(ps.patch, ps.dist) if ps.dist is not None else []
    rws = next((t.rewrites for t in found if t.relpath == relpath), ()) if not isinstance(found, str) else ()
    if not rws:
        raise RefusedError(
            f"{ps.patch.name}: {relpath} is not exactly as radpatch left it, and the entry's current "
            "revision does not rewrite it, so nothing can undo the earlier revision's change structurally",
            _reinstall(ps),
        )
    return rws


def _inverse_checked(
    ps: PatchState, relpath: str, rws: tuple[Rewrite, ...], current: bytes, accept: set[str], why: str
) -> bytes:
    """The structural inverse, only if it is byte for byte a known original (recorded or RECORD's)."""
    assert ps.root is not None
    try:
        pristine = runner.backward(ps.patch, rws, current, str(ps.root / relpath))
    except RefusedError as exc:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {relpath} ({why}): undoing the patch stops at {runner.short(exc)}",
            _reinstall(ps),
        )
    if sha256(pristine) not in accept:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {relpath} byte for byte ({why}, and undoing the patch does not "
            "give back the recorded original or the file in the distribution's RECORD)",
            _reinstall(ps),
        )
    return pristine


def _layout_edited(ps: PatchState, rec: FileRecord, current: bytes, store: Store, say: Say) -> bytes:
    """A patched file someone touched since (status judged its code unchanged): undo the patch
    structurally and keep their comment and layout edits, when the result is the recorded
    original's code; else refuse."""
    assert ps.root is not None
    rws = _rewrites_of(ps, rec.path)
    try:
        pristine = runner.backward(ps.patch, rws, current, str(ps.root / rec.path))
    except RefusedError as exc:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {rec.path}: undoing the patch stops at {runner.short(exc)}",
            _reinstall(ps),
        )
    if sha256(pristine) == rec.original_sha256 or rec.created and not pristine.strip():
        return pristine
    same = bool(rec.original_code) and code_hash(pristine) == rec.original_code
    if not same and not rec.original_code:  # a record from before code hashes: compare with the kept original
        original = store.original(rec.original_sha256)
        same = original is not None and not changed_scopes(original, pristine)
    if same:
        say(f"{ps.patch.name}: note: {rec.path} had comment or layout edits since it was patched; they are kept")
        return pristine
    raise RefusedError(
        f"{ps.patch.name}: reverting {rec.path} would not give back the recorded original "
        f"(sha256 {rec.original_sha256[:12]}…)",
        f"the file's code was edited since it was patched; put it back to the installed bytes instead "
        f"(radpatch restore {rec.path})",
    )


def _commit(env: PythonEnv, changes: list[Change], op: str) -> None:
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
    made = {p: missing_dirs(p, root) for p, (before, _) in todo.items() if before is None}
    dirs = {p: made.get(p) or removed.get(p, ()) for p in todo}
    _write_group(env, Store(root), changes, todo, op, pycs, dirs)


def _write_group(
    env: PythonEnv,
    store: Store,
    group: list[Change],
    files: dict[Path, tuple[bytes | None, bytes | None]],
    op: str,
    pycs: dict[Path, bytes | None],
    dirs: dict[Path, tuple[Path, ...]],
) -> None:
    """Journal, keep originals, write every file (each only if it is still what was planned;
    creating one only where there is none, deleting one only if it is still what was planned),
    record: all of it, or (on any failure) none of it. `dirs`: per file created, the directories
    to make for it; per file deleted, the ones radpatch made for it (removed if empty)."""
    run = uuid.uuid4().hex
    created = {p: d for p, d in dirs.items() if files[p][0] is None}
    store.begin(run, op, [c.patch.patch.name for c in group], files, created)
    written: list[Path] = []
    try:
        for c in group if op == "apply" else ():  # before any file: a record never names an original not kept
            for f in c.files if not c.off else ():
                if f.path not in c.created:
                    store.keep_original(f.original)
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
        theirs = _target_codes(env, group) if op == "apply" else {}
        for c in group:
            if op == "revert" or c.off:
                records.pop(c.patch.patch.name, None)
            else:
                seq += 1
                records[c.patch.patch.name] = _record(c, seq, records, created, theirs)
        store.save(records, run)
    except BaseException:
        if _roll_back(store, files, written, dirs):
            store.end()
        raise
    store.end()


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


def _theirs(theirs: dict[str, str], before: str | None, after: str) -> tuple[str, ...]:
    if after not in theirs or (before is not None and before not in theirs):
        return ()
    return (theirs[before] if before is not None else "", theirs[after])


def _target_codes(env: PythonEnv, group: list[Change]) -> dict[str, str]:
    """sha256 -> code hash as the target interpreter computes it, for every state this run records,
    when the target is another Python than radpatch's (its engine-start self-check compares them)."""
    if env.is_current:
        return {}
    blobs = {sha256(b): b for c in group if not c.off for f in c.files for b in (f.original, f.after) if b is not None}
    got = target_code_hashes(env.executable, list(blobs.values()))
    return dict(zip(blobs, got)) if got is not None else {}


def _record(
    c: Change,
    seq: int,
    records: dict[str, PatchRecord],
    made: dict[Path, tuple[Path, ...]],
    theirs: dict[str, str] | None = None,
) -> PatchRecord:
    """The record of a change, its links stacked on the links in `records` (this run's earlier
    changes included). A file the change created starts from no file (ABSENT), naming the
    directories `made` for it."""
    dist = c.patch.dist
    assert dist is not None
    files = []
    for f in c.files:
        relpath = str(f.path.relative_to(dist.root))
        chain = [Link(r.patch, lf) for r in sorted(records.values(), key=lambda r: r.seq) for lf in r.files]
        original = None if f.path in c.created else f.original
        start = base([ln for ln in chain if ln.file.path == relpath], original)
        dirs = tuple(str(d.relative_to(dist.root)) for d in made.get(f.path, ())) if original is None else ()
        files.append(
            FileRecord(
                f.module,
                relpath,
                state_sha(original),
                sha256(f.after),
                code_hash(original) if original is not None else "",
                code_hash(f.after),
                *start,
                made_dirs=dirs,
                target_code=_theirs(theirs or {}, None if original is None else sha256(original), sha256(f.after)),
            )
        )
    return PatchRecord(
        c.patch.patch.name,
        dist.name,
        str(dist.version),
        c.patch.patch.digest,
        tuple(files),
        seq,
        record_digest(dist),
        c.patch.patch.requires,
    )

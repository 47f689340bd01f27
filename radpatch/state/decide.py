"""Decide what state a patch is in: from radpatch's record of what it wrote, read through the file
chains of state.hashes first, and from the files' code (the rewrites, libcst) only when hashes
cannot decide. The model is written down in docs/state.md."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.files import read_regular
from radpatch.gcpause import pausing
from radpatch.install import locate, wheel_record
from radpatch.install.environment import (
    Installed,
    PythonEnv,
    canonical_name,
    module_path,
)
from radpatch.registry import versions
from radpatch.registry.model import Patch, Rewrite, creates, rewrites_by_file
from radpatch.state.hashes import ByHash, by_hash
from radpatch.state.record import DamagedJournal, FileRecord, PatchRecord, Store, sha256, state_sha


class State(str, Enum):
    APPLIED = "applied"
    NOT_APPLIED = "not-applied"
    DRIFTED = "drifted"
    INCOMPATIBLE = "incompatible"
    NOT_INSTALLED = "not-installed"
    OBSOLETE = "obsolete"


@dataclass(frozen=True)
class FileState:
    module: str
    path: Path
    relpath: str
    rewrites: tuple[Rewrite, ...]
    data: bytes
    state: State
    detail: str
    record_sha256: str | None  # what the distribution's RECORD says, when it lists the file
    exists: bool = True  # False: no such file (a module an entry creates); `data` is then b""

    @property
    def sha256(self) -> str:
        return state_sha(self.data if self.exists else None)

    @property
    def record_match(self) -> bool | None:
        return None if self.record_sha256 is None else self.record_sha256 == self.sha256


@dataclass(frozen=True)
class PatchState:
    patch: Patch
    state: State
    reason: str
    dist: Installed | None
    files: tuple[FileState, ...]
    record: PatchRecord | None  # radpatch's record of this patch, only if it belongs to this very install
    pending: bool = False  # an interrupted run's journal awaits the next apply/revert
    # applied by its code alone: no record of radpatch's says it wrote it (a hand edit, perhaps
    # with other edits only the wheel's bytes would show): `status --check` does not count it
    unrecorded: bool = False
    stale: PatchRecord | None = None  # a record left from another install (upgrade, reinstall of another build)
    orphan: Path | None = None  # the distribution is gone; its state directory still records this patch
    declined: bool = False  # applied, but the entry no longer patches this version (only revert applies)
    hint: str = ""  # what to do, when the reason has its own (a compiled extension shadows the module)

    @property
    def root(self) -> Path | None:
        return self.dist.root if self.dist else self.orphan


def record_digest(dist: Installed) -> str:
    """sha256 of the distribution's RECORD: it changes whenever pip installs it again from another wheel."""
    return wheel_record.digest(dist.dist_info / "RECORD")


_FOUND: dict[tuple[object, ...], tuple[tuple[object, ...], Installed | None]] = {}


def _distribution(env: PythonEnv, patch: Patch) -> Installed | None:
    """locate.find_target, once per process for as long as no search directory and no RECORD
    changed (a patch-by-patch `status` of 200 patches reads RECORD once, not 200 times). Keyed
    by what the search reads of the patch, so patches stacked on the same modules search once."""

    def stamp(found: Installed | None) -> tuple[object, ...]:
        out: list[object] = []
        for p in (*env.paths, *((found.dist_info / "RECORD",) if found else ())):
            try:
                st = p.stat()
                out.append((st.st_ino, st.st_mtime_ns, st.st_size))
            except OSError:
                out.append(None)
        return tuple(out)

    key = (env, patch.named, patch.packages, patch.providers, patch.module_files)
    hit = _FOUND.get(key)
    if hit and stamp(hit[1]) == hit[0]:
        return hit[1]
    found = locate.find_target(env, patch)
    _FOUND[key] = (stamp(found), found)
    return found


def trusted(record: PatchRecord | None, dist: Installed) -> bool:
    """A record speaks for this install only if it was written for it: same distribution and
    version, and (format 2 on) the same RECORD."""
    if record is None:
        return False
    same = canonical_name(record.distribution) == canonical_name(dist.name) and record.version == str(dist.version)
    return same and (not record.dist_record_sha256 or record.dist_record_sha256 == record_digest(dist))


def patch_state(patch: Patch, env: PythonEnv) -> PatchState:
    try:
        dist = _distribution(env, patch)
    except RefusedError as exc:  # two distributions (or dist-infos) provide the package
        return PatchState(patch, State.INCOMPATIBLE, f"{exc.message}; {exc.hint}", None, (), None)
    if dist is None:
        return _not_installed(patch, env)
    store = Store(dist.root)
    raw = store.records().get(patch.name)
    record = raw if trusted(raw, dist) else None
    stale = raw if record is None else None
    ps = _decide(patch, dist, store, record)
    if stale is not None:
        note = (
            f"radpatch's record of {patch.name} is from {stale.distribution} {stale.version}, not this install of "
            f"{dist.name} {dist.version}: it is not trusted (the files decide)"
        )
        ps = replace(ps, reason=f"{ps.reason}; {note}" if ps.reason else note, stale=stale)
    if store.journal.is_dir():
        try:
            store.journal_plan()
            note = "a radpatch run was interrupted: the next apply or revert completes it"
        except DamagedJournal as exc:
            note = f"{exc.message}: {exc.hint}"
        ps = replace(ps, reason=f"{ps.reason}; {note}" if ps.reason else note, pending=True)
    return ps


def _not_installed(patch: Patch, env: PythonEnv) -> PatchState:
    for d in env.paths:
        store = Store(d)
        if store.record_path.is_file() and patch.name in store.records():
            why = (
                f"{patch.distribution} was uninstalled from {d}; "
                f"radpatch's record of {patch.name} remains in {store.dir}: "
                f"`radpatch revert {patch.name}` forgets it (nothing is left to restore)"
            )
            return PatchState(patch, State.NOT_INSTALLED, why, None, (), None, orphan=d)
    return PatchState(patch, State.NOT_INSTALLED, locate.missing_reason(env, patch), None, (), None)


@dataclass(frozen=True)
class Target:
    """One file the current revision of an entry rewrites in this install."""

    module: str
    relpath: str
    rewrites: tuple[Rewrite, ...]


def targets(patch: Patch, dist: Installed) -> list[Target] | str:
    """The files the entry's current revision rewrites in `dist`, or why it cannot say."""
    out: list[Target] = []
    seen: dict[str, str] = {}
    for target, rws in rewrites_by_file(patch, dist.version).items():
        choice = locate.choose_module(patch, patch.target(target), rws, dist)
        if isinstance(choice, str):
            return f"{patch.name}: {choice}"
        if choice.relpath in seen:
            return (
                f"{patch.name}: modules {seen[choice.relpath]!r} and {target!r} are both {choice.module} "
                f"for {dist.name} {dist.version}; use one name for it"
            )
        seen[choice.relpath] = target
        out.append(Target(choice.module, choice.relpath, rws))
    return out


def _decide(patch: Patch, dist: Installed, store: Store, record: PatchRecord | None) -> PatchState:
    declined = _declined(patch, dist)
    if declined is not None:
        state, why = declined
        still = _still_applied(dist, store, record)
        if still:
            why = (
                f"{why}; but radpatch's patch is still applied: "
                f"`radpatch revert {patch.name}` restores the kept originals"
            )
            return PatchState(patch, State.APPLIED, why, dist, still, record, declined=True)
        return PatchState(patch, state, why, dist, (), record)
    judged = record
    if record is not None and record.registry_digest != patch.digest:
        # another revision of the entry wrote these files (its rewrites, or even its modules, may
        # differ from the current one's): what radpatch wrote decides, read from the record
        still = _still_applied(dist, store, record)
        if still:
            return PatchState(patch, State.APPLIED, "", dist, still, record)
        if _void(dist, store, record):  # a reinstall replaced every file it wrote: it says nothing true
            judged = None
    try:
        found = targets(patch, dist)
    except RefusedError as exc:  # a compiled extension is what the target imports, not the module's .py
        return PatchState(patch, State.INCOMPATIBLE, exc.message, dist, (), record, hint=exc.hint)
    if isinstance(found, str):
        return PatchState(patch, State.INCOMPATIBLE, found, dist, (), record)
    files = []
    for t in found:
        try:
            files.append(_file_state(patch, dist, store, judged, t.module, t.relpath, t.rewrites))
        except RefusedError as exc:  # e.g. an editable install, or the module is missing
            return PatchState(patch, State.INCOMPATIBLE, exc.message, dist, (), record)
    files += _left_behind(dist, store, judged, {t.relpath for t in found})
    states = {f.state for f in files}
    overall = states.pop() if len(states) == 1 else State.DRIFTED
    reason = "; ".join(f"{f.relpath}: {f.detail}" for f in files if f.detail)
    if overall is State.DRIFTED and not reason:
        reason = "some files are patched and some are not"
    if overall is State.APPLIED and judged is None and any(f.exists for f in files):
        reason = "; ".join(d for d in (reason, unrecorded_note(patch.name)) if d)
        return PatchState(patch, overall, reason, dist, tuple(files), record, unrecorded=True)
    return PatchState(patch, overall, reason, dist, tuple(files), record)


def unrecorded_note(name: str) -> str:
    return (
        "carries the patch's code but radpatch has no record of it (a hand edit; other edits may be present): "
        f"`radpatch apply {name}` adopts it after checking it against the installed wheel"
    )


def _declined(patch: Patch, dist: Installed) -> tuple[State, str] | None:
    """Why the entry does not patch this version (out of range, obsolete, no rewrite), or None."""
    v = dist.version
    why = versions.refusal(
        patch.supported, patch.range, v, patch.prereleases, f"{dist.name} {v} is installed; {patch.name}"
    )
    if why is not None:
        return State.INCOMPATIBLE, why
    if patch.obsolete is not None and versions.allows(patch.obsolete, v):
        return State.OBSOLETE, f"{dist.name} {v} already contains this change (obsolete for {patch.obsolete})"
    if not rewrites_by_file(patch, v):
        return State.INCOMPATIBLE, (
            f"{patch.name} has no rewrite for {dist.name} {v} (every rewrite is limited to other versions): "
            "nothing to apply; the entry needs a variant for this version"
        )
    return None


def _still_applied(dist: Installed, store: Store, record: PatchRecord | None) -> tuple[FileState, ...]:
    """The files of a trusted record when every one still carries the patch (by the hashes of the
    file chains: patches stacked on top, comment and layout edits count as carrying it), else ():
    an entry that changed or stopped covering a version must not hide a patched file from `revert`."""
    return _record_files(dist, store, record, ByHash.APPLIED)


def _left_behind(dist: Installed, store: Store, record: PatchRecord | None, current: set[str]) -> list[FileState]:
    """Files an earlier revision of the entry patched that the current one does not rewrite (it
    moved to another module), when they do not read as pristine: such a file is radpatch's and
    changed since, so the patch cannot read as applied or not applied."""
    out = []
    for f in record.files if record is not None else ():
        if f.path in current:
            continue
        path = dist.root / f.path
        found = _read(path)
        data = found or b""
        wheel = dist.recorded_sha256(f.path)
        if by_hash(state_sha(found), f, store, wheel, found) is not ByHash.NOT_APPLIED:
            why = "an earlier revision of the entry patched it, and it changed since"
            out.append(FileState(f.module, path, f.path, (), data, State.DRIFTED, why, wheel))
    return out


def _void(dist: Installed, store: Store, record: PatchRecord) -> bool:
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


def _file_state(
    patch: Patch,
    dist: Installed,
    store: Store,
    record: PatchRecord | None,
    module: str,
    relpath: str,
    rws: tuple[Rewrite, ...],
) -> FileState:
    wheel = dist.recorded_sha256(relpath)
    # a module the entry creates, or one the install never had (another entry creates it), may be absent
    path = module_path(dist, relpath, missing_ok=creates(rws) or wheel is None)
    try:
        data = read_regular(path)
    except OSError as exc:
        # no such module: one the entry creates, or one another entry creates (the install never had
        # it: RECORD does not list it); a module of the install that is gone is a broken install
        if not isinstance(exc, FileNotFoundError) or not (creates(rws) or wheel is None):
            raise EnvironmentProblem(
                f"cannot read {path}: {exc.strerror}",
                "check the installation (reinstall it) and radpatch's permissions",
            )
        recorded = next((f for f in (record.files if record else ()) if f.path == relpath), None)
        verdict = by_hash(state_sha(None), recorded, store, wheel) if recorded else ByHash.NOT_APPLIED
        state, detail = (
            (State.NOT_APPLIED, "" if creates(rws) else "no such module (yet): the entry that creates it comes first")
            if verdict is ByHash.NOT_APPLIED
            else (State.DRIFTED, "radpatch's module is gone")
        )
        return FileState(module, path, relpath, rws, b"", state, detail, wheel, exists=False)
    recorded = next((f for f in (record.files if record else ()) if f.path == relpath), None)
    state, detail = _classify(patch, rws, data, str(path), recorded, wheel, store)
    return FileState(module, path, relpath, rws, data, state, detail, wheel)


def _classify(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    where: str,
    recorded: FileRecord | None,
    wheel_sha: str | None,
    store: Store,
) -> tuple[State, str]:
    """Hashes first (the record's, the hash chain of stacked patches, RECORD's); libcst only
    when they cannot decide."""
    verdict = by_hash(sha256(data), recorded, store, wheel_sha, data)
    if verdict is ByHash.APPLIED:
        return State.APPLIED, ""
    if verdict is ByHash.NOT_APPLIED:
        return State.NOT_APPLIED, ""  # as it started, or byte-identical to the installed wheel, whatever it contains
    from radpatch.rewrite import runner
    from radpatch.rewrite.ops.common import kept_trees

    with kept_trees():  # undoing and applying read the same definitions
        undo = applied_error(patch, rws, data, where)
        if undo is None and not recorded and still_unpatched(patch, rws, data, where):
            return State.NOT_APPLIED, ""
        if undo is None:
            edited = _edited_since_patched(patch, rws, data, where, recorded, store) if recorded else ""
            return (State.DRIFTED, edited) if edited else (State.APPLIED, "")
        try:
            runner.forward(patch, rws, data, where)
        except RefusedError as exc:
            if patch.requires and not recorded:
                # an entry of a series rewrites what its requirements leave: on a file radpatch never
                # patched, matching neither form on its own says the requirements come first, not that
                # someone changed the file (apply runs and proves them all before it writes anything)
                first = ", ".join(patch.requires)
                return (
                    State.NOT_APPLIED,
                    f"it rewrites what {first} leaves: {first} comes first",
                )
            return (
                State.DRIFTED,
                f"matches neither form: applying stops at {runner.short(exc)}; undoing stops at {undo}",
            )
    if recorded:  # radpatch patched it, and the patch no longer reads as applied: its own code was edited
        return State.DRIFTED, f"radpatch's patch was edited since it was applied (undoing it stops at {undo})"
    return State.NOT_APPLIED, ""


def _edited_since_patched(
    patch: Patch, rws: tuple[Rewrite, ...], data: bytes, where: str, recorded: FileRecord, store: Store
) -> str:
    """Why a file that still carries the patch counts as drifted, or "" if it does not: code
    outside the patch changed since radpatch wrote it (comments and layout do not count)."""
    from radpatch.rewrite import runner  # libcst: only when the hashes cannot decide

    pristine = runner.backward(patch, rws, data, where)
    if sha256(pristine) == recorded.original_sha256:
        return ""
    original = store.original(recorded.original_sha256)
    if original is None:
        return "changed since radpatch patched it (and its original is not kept to compare with)"
    differ = changed_scopes(original, pristine)
    return f"edited since radpatch patched it: {', '.join(differ)} changed" if differ else ""


@pausing
def changed_scopes(a: bytes, b: bytes) -> list[str]:
    """Top-level definitions (or `<module>`) whose code differs between two versions of a file.
    Order is code too: top-level statements that moved count as changed."""

    def scopes(data: bytes) -> list[tuple[str, str]]:
        out = []
        for node in ast.parse(data).body:
            name = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else "<module>"
            out.append((name, ast.dump(node)))
        return out

    def grouped(items: list[tuple[str, str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, dump in items:
            out.setdefault(name, []).append(dump)
        return out

    old, new = scopes(a), scopes(b)
    g_old, g_new = grouped(old), grouped(new)
    differ = {n for n in g_old.keys() | g_new.keys() if g_old.get(n) != g_new.get(n)}
    if not differ and old != new:  # the same statements in another order
        moved = {name for pair in zip(old, new) if pair[0] != pair[1] for name in (pair[0][0], pair[1][0])}
        return [f"{n} (moved)" for n in sorted(moved)]
    return sorted(differ)


def still_unpatched(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, where: str) -> bool:
    """A file that reads as patched by the round trip only because a rewrite's `with` is part of
    its `find` (`int(timeout)` -> `timeout`): the `with` match inside the unpatched `find` is no
    evidence of the patch. True when some rewrite is such a replace and applying still takes it."""
    if not any(_with_inside_find(rw) for rw in rws):
        return False
    from radpatch.rewrite import runner

    try:
        return runner.forward(patch, rws, data, where) != data
    except RefusedError:
        return False


def _with_inside_find(rw: Rewrite) -> bool:
    find, with_ = getattr(rw.op, "find", None), getattr(rw.op, "with_", None)
    if not isinstance(find, str) or not isinstance(with_, str):
        return False
    try:
        f, w = ast.parse(find.strip()), ast.parse(with_.strip())
        inner = ast.dump(w.body[0].value) if len(w.body) == 1 and isinstance(w.body[0], ast.Expr) else None
        if inner is None:
            return False
        top = f.body[0].value if len(f.body) == 1 and isinstance(f.body[0], ast.Expr) else None
        return any(ast.dump(n) == inner for n in ast.walk(f) if n is not top and n is not f.body[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # too deep to walk: the rewrite refuses it
        return False


@pausing
def applied_error(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    where: str,
    forward: Callable[[bytes], bytes] | None = None,
    backward: Callable[[bytes], bytes] | None = None,
) -> str | None:
    """None when `data` is the patched form (reverse-applying and re-applying reproduces it),
    else where undoing the patch stops. `forward`/`backward` default to plan's (verify passes
    memoised ones)."""
    from radpatch.rewrite import runner  # libcst: only when the hashes cannot decide

    fwd = forward or (lambda d: runner.forward(patch, rws, d, where))
    bwd = backward or (lambda d: runner.backward(patch, rws, d, where))
    try:
        if fwd(bwd(data)) == data:
            return None
    except RefusedError as exc:
        return runner.short(exc)
    return "reverse-applying and re-applying does not reproduce the file"

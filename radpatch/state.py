"""Decide what state a patch is in, from the files themselves (the record only speeds it up)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from radpatch.environment import Installed, PythonEnv, module_path
from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.model import Patch, Rewrite, rewrites_by_file
from radpatch.store import FileRecord, PatchRecord, Store, sha256


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

    @property
    def sha256(self) -> str:
        return sha256(self.data)

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
    record: PatchRecord | None
    pending: bool = False  # an interrupted run's journal awaits the next apply/revert


def patch_state(patch: Patch, env: PythonEnv) -> PatchState:
    from radpatch import locate, versions

    try:
        dist = locate.find_target(env, patch)
    except RefusedError as exc:  # two distributions (or dist-infos) provide the package
        return PatchState(patch, State.INCOMPATIBLE, f"{exc.message}; {exc.hint}", None, (), None)
    if dist is None:
        return PatchState(patch, State.NOT_INSTALLED, locate.missing_reason(env, patch), None, (), None)
    store = Store(dist.root)
    record = store.records().get(patch.name)
    v = dist.version
    why = versions.refusal(patch.supported, patch.range, v, patch.prereleases, f"{dist.name} {v} is installed; {patch.name}")
    if why is not None:
        return PatchState(patch, State.INCOMPATIBLE, why, dist, (), record)
    if patch.obsolete is not None and versions.allows(patch.obsolete, v):
        why = f"{dist.name} {v} already contains this change (obsolete for {patch.obsolete})"
        return PatchState(patch, State.OBSOLETE, why, dist, (), record)
    files = []
    seen: dict[str, str] = {}
    for target, rws in rewrites_by_file(patch, v).items():
        choice = locate.choose_module(patch, patch.target(target), rws, dist)
        if isinstance(choice, str):
            return PatchState(patch, State.INCOMPATIBLE, f"{patch.name}: {choice}", dist, (), record)
        if choice.relpath in seen:
            why = f"{patch.name}: modules {seen[choice.relpath]!r} and {target!r} are both {choice.module} for {dist.name} {v}; use one name for it"
            return PatchState(patch, State.INCOMPATIBLE, why, dist, (), record)
        seen[choice.relpath] = target
        try:
            files.append(_file_state(patch, dist, store, record, choice.module, choice.relpath, rws))
        except RefusedError as exc:  # e.g. an editable install, or the module is missing
            return PatchState(patch, State.INCOMPATIBLE, exc.message, dist, (), record)
    states = {f.state for f in files}
    overall = states.pop() if len(states) == 1 else State.DRIFTED
    reason = "; ".join(f"{f.relpath}: {f.detail}" for f in files if f.detail)
    if store.journal.is_dir():
        reason = (reason + "; " if reason else "") + "a radpatch run was interrupted: the next apply or revert completes it"
    elif overall is State.DRIFTED and not reason:
        reason = "some files are patched and some are not"
    return PatchState(patch, overall, reason, dist, tuple(files), record, store.journal.is_dir())


def _file_state(patch: Patch, dist: Installed, store: Store, record: PatchRecord | None, module: str, relpath: str,
                rws: tuple[Rewrite, ...]) -> FileState:
    path = module_path(dist, relpath)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EnvironmentProblem(f"cannot read {path}: {exc.strerror}", "check the installation (reinstall it) and radpatch's permissions")
    recorded = next((f for f in (record.files if record else ()) if f.path == relpath), None)
    digest = sha256(data)
    if recorded and digest not in (recorded.patched_sha256, recorded.original_sha256) and digest in {
            f.patched_sha256 for f in store.recorded_files(relpath, besides=patch.name)}:
        recorded = None  # exactly as a later radpatch run left it: judge it on its structure alone
    state, detail = _classify(patch, rws, data, str(path), recorded, dist.record.get(relpath), store)
    return FileState(module, path, relpath, rws, data, state, detail, dist.record.get(relpath))


def _classify(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, where: str, recorded: FileRecord | None,
              wheel_sha: str | None, store: Store) -> tuple[State, str]:
    digest = sha256(data)
    if recorded and digest == recorded.patched_sha256:
        return State.APPLIED, ""
    if recorded and digest == recorded.original_sha256:
        return State.NOT_APPLIED, ""
    if digest == wheel_sha:
        return State.NOT_APPLIED, ""  # byte-identical to the installed wheel: pristine
    from radpatch import plan  # libcst is only needed when the hashes cannot decide

    undo = applied_error(patch, rws, data, where)
    if undo is None:
        edited = _edited_since_patched(patch, rws, data, where, recorded, store) if recorded else ""
        return (State.DRIFTED, edited) if edited else (State.APPLIED, "")
    try:
        plan.forward(patch, rws, data, where)
        return State.NOT_APPLIED, ""
    except RefusedError as exc:
        return State.DRIFTED, f"matches neither form: applying stops at {plan.short(exc)}; undoing stops at {undo}"


def _edited_since_patched(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, where: str,
                          recorded: FileRecord, store: Store) -> str:
    """Why a file that still carries the patch counts as drifted, or "" if it does not: code
    outside the patch changed since radpatch wrote it (comments and layout do not count)."""
    from radpatch import plan

    pristine = plan.backward(patch, rws, data, where)
    if sha256(pristine) == recorded.original_sha256:
        return ""
    original = store.original(recorded.original_sha256)
    if original is None:
        return "changed since radpatch patched it (and its original is not kept to compare with)"
    differ = changed_scopes(original, pristine)
    return f"edited since radpatch patched it: {', '.join(differ)} changed" if differ else ""


def changed_scopes(a: bytes, b: bytes) -> list[str]:
    """Top-level definitions (or `<module>`) whose code differs between two versions of a file."""
    def scopes(data: bytes) -> dict[str, str]:
        out: dict[str, str] = {}
        for node in ast.parse(data).body:
            name = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else "<module>"
            out[name] = out.get(name, "") + ast.dump(node)
        return out

    old, new = scopes(a), scopes(b)
    return sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))


def applied_error(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, where: str,
                  forward: Callable[[bytes], bytes] | None = None, backward: Callable[[bytes], bytes] | None = None) -> str | None:
    """None when `data` is the patched form (reverse-applying and re-applying reproduces it),
    else where undoing the patch stops. `forward`/`backward` default to plan's (verify passes
    memoised ones)."""
    from radpatch import plan

    fwd = forward or (lambda d: plan.forward(patch, rws, d, where))
    bwd = backward or (lambda d: plan.backward(patch, rws, d, where))
    try:
        if fwd(bwd(data)) == data:
            return None
    except RefusedError as exc:
        return plan.short(exc)
    return "reverse-applying and re-applying does not reproduce the file"

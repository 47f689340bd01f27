"""Decide what state a patch is in, from the files themselves (the record only speeds it up)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from radpatch.environment import Installed, PythonEnv, find_distribution, module_path
from radpatch.errors import RefusedError
from radpatch.model import Patch, Rewrite, rewrites_by_file
from radpatch.store import PatchRecord, Store, sha256


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

    @property
    def store(self) -> Store | None:
        return Store(self.dist.root) if self.dist else None


def patch_state(patch: Patch, env: PythonEnv) -> PatchState:
    dist = find_distribution(env, patch.distribution)
    if dist is None:
        return PatchState(patch, State.NOT_INSTALLED, f"{patch.distribution} is not installed in {env.executable}", None, (), None)
    record = Store(dist.root).records().get(patch.name)
    v = dist.version
    if v not in patch.supported:
        why = f"{dist.name} {v} is installed; {patch.name} supports {patch.range}"
        return PatchState(patch, State.INCOMPATIBLE, why, dist, (), record)
    if patch.obsolete is not None and v in patch.obsolete:
        why = f"{dist.name} {v} already contains this change (obsolete for {patch.obsolete})"
        return PatchState(patch, State.OBSOLETE, why, dist, (), record)
    files = []
    for target, rws in rewrites_by_file(patch, v).items():
        choice = patch.target(target).module_for(v)
        if choice is None:
            why = f"{patch.name} declares no single module {target!r} for {dist.name} {v}"
            return PatchState(patch, State.INCOMPATIBLE, why, dist, (), record)
        files.append(_file_state(patch, dist, record, choice.module, choice.relpath, rws))
    states = {f.state for f in files}
    overall = states.pop() if len(states) == 1 else State.DRIFTED
    reason = "; ".join(f"{f.relpath}: {f.detail}" for f in files if f.detail)
    if overall is State.DRIFTED and not reason:
        reason = "some files are patched and some are not"
    return PatchState(patch, overall, reason, dist, tuple(files), record)


def _file_state(patch: Patch, dist: Installed, record: PatchRecord | None, module: str, relpath: str, rws: tuple[Rewrite, ...]) -> FileState:
    path = module_path(dist, relpath)
    data = path.read_bytes()
    digest = sha256(data)
    state, detail = _classify(patch, rws, data, digest, str(path), record, relpath, dist.record.get(relpath))
    return FileState(module, path, relpath, rws, data, state, detail, dist.record.get(relpath))


def _classify(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, digest: str, where: str,
              record: PatchRecord | None, relpath: str, wheel_sha: str | None) -> tuple[State, str]:
    for f in record.files if record else ():
        if f.path == relpath and digest == f.patched_sha256:
            return State.APPLIED, ""
        if f.path == relpath and digest == f.original_sha256:
            return State.NOT_APPLIED, ""
    if digest == wheel_sha:
        return State.NOT_APPLIED, ""  # byte-identical to the installed wheel: pristine
    from radpatch import plan  # libcst is only needed when the hashes cannot decide

    undo_error = applied_error(patch, rws, data, where)
    if undo_error is None:
        return State.APPLIED, ""
    try:
        plan.forward(patch, rws, data, where)
        return State.NOT_APPLIED, ""
    except RefusedError as exc:
        return State.DRIFTED, f"matches neither the pristine form ({exc.message.split(': ', 2)[-1]}) nor the patched form ({undo_error.split(': ', 2)[-1]})"


def applied_error(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, where: str) -> str | None:
    """None when `data` is the patched form: reverse-applying and re-applying reproduces it."""
    from radpatch import plan

    try:
        if plan.forward(patch, rws, plan.backward(patch, rws, data, where), where) == data:
            return None
    except RefusedError as exc:
        return exc.message
    return "reverse-applying and re-applying does not reproduce the file"

"""What the state decision says, as records: each file's state (`FileState`) and the patch's
(`PatchState`), and the judgement of a file's code the caller passes in when hashes cannot decide
(`Judge`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.install.environment import Installed
from radpatch.install.targets import Declined, ReadFile
from radpatch.install.wheel_record import InstallId
from radpatch.registry.model import Patch, Rewrite
from radpatch.state.record import FileRecord, PatchRecord, Store, state_sha
from radpatch.state.verdict import State


@dataclass(frozen=True)
class FileState:
    module: str
    path: Path
    relpath: str
    rewrites: tuple[Rewrite, ...]
    data: bytes
    state: State
    detail: str
    wheel_record_sha256: str | None  # what the distribution's RECORD says, when it lists the file
    exists: bool = True  # False: no such file (a module an entry creates); `data` is then b""
    # a never-applied entry that does not apply on a file only radpatch's other entries changed: those
    # entries, oldest first (the file is theirs, not someone else's: not applied, never drifted)
    left_by: tuple[str, ...] = ()
    hint: str = ""  # what to do, when the state has its own way out (another entry's line edited: `ambiguous`)

    @property
    def sha256(self) -> str:
        return state_sha(self.data if self.exists else None)

    @property
    def wheel_record_match(self) -> bool | None:
        return None if self.wheel_record_sha256 is None else self.wheel_record_sha256 == self.sha256


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
    # applied, but the entry no longer patches this version (only revert applies), and why (`obsolete`: the
    # version contains the change; else the entry does not cover it)
    declined: Declined | None = None
    # the files the entry's current revision rewrites, as read (install.targets), or the refusal saying
    # why it cannot name them
    read_files: tuple[ReadFile, ...] | RefusedError = ()
    dist_record: InstallId = InstallId()  # the install's identity (from its RECORD), as read
    hint: str = ""  # what to do, when the reason has its own (a compiled extension shadows the module)

    @property
    def root(self) -> Path | None:
        return self.dist.root if self.dist else self.orphan


# how a file's code reads when its hashes cannot decide: (patch, its rewrites of the file, the
# file's bytes, where (for messages), radpatch's record of the file if any, the store of kept
# originals, the target interpreter when known: it reads code radpatch's Python cannot) -> its state
# and why; prove.form.judge, passed in by whoever asks (apply, revert, status, diff, the SBOM):
# state/ never imports prove/
Judge = Callable[[Patch, tuple[Rewrite, ...], bytes, str, "FileRecord | None", Store, str], tuple[State, str]]

# whether an entry that reads not applied is a recorded entry renamed, its code applied under the old
# name: the note saying so (write.takeover.renamed_requirement), or None. A requirement it finds is met
# (state.requirements), as the engine-start check reads the record; passed in by whoever asks (status,
# diff, the SBOM): state/ never imports write/
Renamed = Callable[[PatchState], "str | None"]

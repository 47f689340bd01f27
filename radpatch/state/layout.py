"""radpatch's state directory beside a distribution (`<site-packages>/.radpatch/`): its paths, and
what the record, the kept originals, the journal and the lock all use (digests, a JSON state file
read safely, a durable write, the refusal of a symbolic link). state.record's `Store` is built on it."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radpatch.errors import EnvironmentProblem
from radpatch.files import read_regular

# the sha256 a link records for no file at all: a created module's state before (no bytes hash to it)
ABSENT = "0" * 64


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def state_sha(data: bytes | None) -> str:
    """A file's state as a link records it: the sha256 of its bytes, or ABSENT for no file."""
    return ABSENT if data is None else sha256(data)


STATE_MAX = 64 << 20  # radpatch's own JSON files are a few KB; anything this large is not one


def load_json(path: Path) -> Any:
    """A JSON state file, read without blocking (a FIFO or device in its place is an OSError) and
    without following a nesting deeper than the parser's recursion limit (a RecursionError)."""
    return json.loads(read_regular(path, STATE_MAX))


@dataclass(frozen=True)
class StateDir:
    """The state directory of one installation directory (site-packages)."""

    root: Path  # the distribution root (site-packages)

    @property
    def dir(self) -> Path:
        return self.root / ".radpatch"

    @property
    def record_path(self) -> Path:
        return self.dir / "record.json"

    @property
    def journal(self) -> Path:
        return self.dir / "journal"

    def refuse_links(self) -> None:
        """radpatch writes and deletes in its state directory only: a symbolic link at one of its
        paths (the directory, record.json, originals/, journal/, the lock, salvaged.json) could send a write or
        a delete anywhere, so none is followed."""
        for path in (
            self.dir,
            self.record_path,
            self.dir / "originals",
            self.journal,
            self.dir / "lock",
            self.dir / "salvaged.json",
        ):
            if path.is_symlink():
                raise link_refusal(path)


def link_refusal(path: Path) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"radpatch's state {path} is a symbolic link; radpatch never writes or deletes through one",
        "remove the link (its target is left alone) and run radpatch again",
    )


def durable_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())

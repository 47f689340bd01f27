"""Restore: putting an installed file back to RECORD's bytes.

A PATH resolves to the rows of an installed distribution's RECORD in `state.restore_paths`
(`named_files`, a `RestoreFile` each); a file radpatch patched is refused while `revert` can take
the patch off (`refuse_patched`); the bytes, fetched and checked by the caller
(radpatch.releases.pristine), are written under radpatch's lock only over the bytes the file was
read as (`write`). `radpatch restore` (commands/restore.py) parses, calls these, renders.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.files import Creating, atomic_write, create_new, missing_dirs, read_regular
from radpatch.install.environment import Installed
from radpatch.state.hashes import ByHash, by_hash
from radpatch.state.record import FileRecord, PatchRecord, Store


@dataclass(frozen=True)
class RestoreFile:
    """One file to restore: its distribution, its RECORD path, its bytes now (None: deleted)."""

    arg: str  # as the command line gave it
    dist: Installed
    relpath: str
    current: bytes | None
    want: str  # RECORD's sha256 (hex)

    @property
    def path(self) -> Path:
        return self.dist.root / self.relpath


def refuse_patched(t: RestoreFile) -> None:
    """A file exactly as radpatch left it (any link of its hash chain) comes back with `revert`,
    as long as every file of that patch is as radpatch left it (then revert restores them byte
    for byte). A patch one of whose files changed since is one revert refuses: restore is then the
    way back, file by file, and is not refused."""
    store = Store(t.dist.root)
    chain = store.chain(t.relpath)
    if not chain:
        return
    now = file_digest(t.path)
    records = store.records()
    carrying = [name for name, rec in chain if _carries(store, rec, now)]
    revertible = [n for n in dict.fromkeys(carrying) if n in records and _as_left(store, t.dist.root, records[n])]
    if revertible:
        raise RefusedError(
            f"{t.arg}: {t.relpath} carries radpatch's patch {', '.join(revertible)} (radpatch's record); "
            "restoring it would leave that record wrong",
            f"take it off with: radpatch revert {' '.join(revertible)} (every file of it is as radpatch left it, "
            "so revert puts back the bytes radpatch kept from before it, the wheel's for a captured or adopted "
            "entry: no reinstall)",
        )


def _as_left(store: Store, root: Path, record: PatchRecord) -> bool:
    return all(_carries(store, f, file_digest(root / f.path)) for f in record.files)


def _carries(store: Store, rec: FileRecord, digest: str | None) -> bool:
    """The file (sha256 `digest`) is exactly as radpatch left it with `rec`'s patch on (by bytes,
    patches stacked above it counted: state.hashes's walk)."""
    return digest is not None and by_hash(digest, rec, store, None) is ByHash.APPLIED


def recorded(t: RestoreFile) -> list[str]:
    """The patches radpatch's record names for the file (left after a restore: revert forgets them)."""
    return list(dict.fromkeys(name for name, _ in Store(t.dist.root).chain(t.relpath)))


def file_digest(path: Path) -> str | None:
    try:
        return sha(read_regular(path))
    except OSError:
        return None


# --- writing ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def locked(root: Path) -> Iterator[None]:
    """radpatch's lock, where radpatch keeps state (an apply must not run under a restore); where it
    keeps none, nothing is created: the conditional write still refuses a file changed meanwhile."""
    store = Store(root)
    if not store.dir.is_dir():
        yield
        return
    if store.journal.exists():
        raise RefusedError(
            f"an interrupted radpatch run left its journal in {store.journal}; restoring now could be undone by it",
            "finish that run first: any `radpatch apply` or `radpatch revert` does, then run restore again",
        )
    with store.locked():
        yield


_RESTORING = Creating(verb="write", doing="restoring", again="run radpatch restore again", explained=True)


def write(t: RestoreFile, data: bytes) -> None:
    """The file's bytes put back: over exactly the bytes it was read as, or created where it was deleted."""
    if t.current is not None:
        atomic_write(t.path, data, expect=sha(t.current))
        return
    create_new(t.path, data, missing_dirs(t.path, t.dist.root), _RESTORING)


# --- saying it ---------------------------------------------------------------------------------------


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()

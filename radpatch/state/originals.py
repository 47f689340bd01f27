"""The kept originals, `.radpatch/originals/`: each file's bytes from before a patch,
content-addressed by sha256 (what `revert` writes back, byte for byte), and an adopted file's bytes
as found (what a hand edit on top of it starts from: prove.onto). Kept durably before the record
names them; dropped once no record names them."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.files import fsync_dir, read_regular
from radpatch.state.layout import durable_write, sha256
from radpatch.state.record_file import PatchRecord, RecordFile


class Originals(RecordFile):
    """Kept bytes by their sha256 (a part of state.record's `Store`)."""

    def keep_original(self, data: bytes) -> None:
        """Keep a file's bytes from before patching (durably, before the record names them)."""
        folder = self.dir / "originals"
        path = folder / sha256(data)
        try:
            folder.mkdir(exist_ok=True)
            if not _holds(path, path.name):
                tmp = folder / f".{path.name}.{os.getpid()}.tmp"
                durable_write(tmp, data)
                os.replace(tmp, path)
                fsync_dir(folder)
        except OSError as exc:
            raise EnvironmentProblem(
                f"cannot keep the original in {folder}: {exc.strerror}",
                f"make {folder} a directory radpatch may write, with free space on its file system (a plain "
                "file or a full disk is in the way), then run the same command again",
            ) from None  # att63 F11: no way out was said

    def original(self, digest: str) -> bytes | None:
        """The kept bytes whose sha256 is `digest`, or None if they are gone (or not those bytes)."""
        try:
            data = read_regular(self.dir / "originals" / digest)
        except OSError:
            return None
        return data if sha256(data) == digest else None

    def prune(self, records: dict[str, PatchRecord] | None = None, keep: frozenset[str] = frozenset()) -> None:
        """Drop kept bytes no record names (a rolled-back run may have kept some): each link's
        original, and its result when kept (an adopted file's bytes, which nothing else holds);
        `keep`: other bytes still needed (state.salvaged's)."""
        files = [f for r in (self.records() if records is None else records).values() for f in r.files]
        wanted = {f.original_sha256 for f in files} | {f.patched_sha256 for f in files} | keep
        originals = self.dir / "originals"
        if originals.is_symlink():  # never delete in a directory it points to
            return
        for kept in originals.glob("*"):
            if kept.name not in wanted:
                with contextlib.suppress(OSError):  # a directory put there is not ours to remove
                    kept.unlink(missing_ok=True)


def _holds(path: Path, digest: str) -> bool:
    """Does `path` hold bytes of sha256 `digest`? Not when it is missing, unreadable or no regular
    file (then it is written again)."""
    try:
        return sha256(read_regular(path)) == digest
    except OSError:
        return False

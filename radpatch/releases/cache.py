"""Verify's release cache on disk (layout: radpatch.releases.wheels): content-addressed blobs, each
checked against its name when read, one entry per wheel read, and every file written whole or not
at all (a temporary name renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.releases import remotezip
from radpatch.releases.index_pages import IndexFile

FORMAT = 2


def drop_old_layout(entry: Path) -> None:
    """radpatch 0.1's entries (files extracted next to a manifest.json) are replaced by blobs."""
    if (entry / "manifest.json").is_file():
        for p in entry.iterdir():
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            elif p.name == "manifest.json":
                p.unlink(missing_ok=True)


@dataclass(frozen=True)
class CachedWheel:
    wheel: str
    url: str
    size: int
    tail_offset: int | None
    tail: str | None  # sha256 of the tail's blob
    members: dict[str, str]
    absent: frozenset[str]
    identity: str | None = None  # what identified the wheel's bytes when it was read (`identity`)

    def same_bytes(self, wheel: IndexFile) -> bool:
        """The index lists the bytes this entry was read from (as far as it says what they are)."""
        now = identity(wheel)
        return now is None or now == self.identity

    def to_json(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "wheel": self.wheel,
            "url": self.url,
            "size": self.size,
            "tail": None if self.tail is None else {"offset": self.tail_offset, "sha256": self.tail},
            "members": dict(sorted(self.members.items())),
            "absent": sorted(self.absent),
            "identity": self.identity,
        }


def identity(wheel: IndexFile) -> str | None:
    """What identifies a wheel's bytes as the index lists them: its sha256, else its size (None:
    the index says neither)."""
    if wheel.sha256:
        return f"sha256:{wheel.sha256.lower()}"
    return None if wheel.size is None else f"size:{wheel.size}"


def read_entry(path: Path) -> CachedWheel | None:
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            return None
        tail = data.get("tail")
        return CachedWheel(
            str(data["wheel"]),
            str(data["url"]),
            int(data["size"]),
            int(tail["offset"]) if tail else None,
            str(tail["sha256"]) if tail else None,
            {str(k): str(v) for k, v in data["members"].items()},
            frozenset(str(a) for a in data["absent"]),
            str(data["identity"]) if data.get("identity") else None,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def read_tail(root: Path, entry: CachedWheel | None) -> remotezip.Tail | None:
    if entry is None or entry.tail is None or entry.tail_offset is None:
        return None
    data = read_blob(root, entry.tail)
    return None if data is None else remotezip.Tail(entry.tail_offset, data)


def _blob(root: Path, digest: str) -> Path:
    return root / "blobs" / digest


def blobs_intact(root: Path, digests: Iterable[str]) -> bool:
    """Every blob is there and hashes to its name (a damaged one is dropped, to be read again)."""
    return all(read_blob(root, d) is not None for d in digests)


def read_blob(root: Path, digest: str) -> bytes | None:
    """A blob's bytes, or None when it is missing or does not hash to its name (then it is dropped)."""
    path = _blob(root, digest)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != digest:
        path.unlink(missing_ok=True)
        return None
    return data


def write_blob(root: Path, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    path = _blob(root, digest)
    if not path.is_file():
        _write_atomic(path, data)
    return digest


def _write_atomic(path: Path, data: bytes) -> None:
    """Write one cache file whole or not at all; a cache that cannot be written is the user's to
    point elsewhere (exit 4), never an internal error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", dir=path.parent)
    except OSError as exc:
        raise _unwritable(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _unwritable(path, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _unwritable(path: Path, exc: OSError) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"cannot write radpatch's release cache at {path.parent}: {exc.strerror or exc}",
        "set RADPATCH_CACHE to a writable directory (it holds the wheels' members read so far)",
    )


def write_json(path: Path, data: object) -> None:
    _write_atomic(path, json.dumps(data, indent=1).encode())

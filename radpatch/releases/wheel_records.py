"""What reading a release gives: its list on the index (Listing), the wheel's members kept in the
blob cache (Release), what one fetch cost (Fetch), and NoWheel, a release the index has no wheel of."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.releases.cache import (
    CachedWheel,
    read_blob,
)
from radpatch.releases.index_pages import IndexFile


@dataclass(frozen=True)
class Listing:
    versions: tuple[Version, ...]  # ascending
    listed_at: float
    from_cache: bool
    offline: str = ""  # why the index could not be asked, when an old cached list is used instead
    wheels: dict[Version, tuple[IndexFile, ...]] = field(default_factory=dict, compare=False)


class NoWheel(RefusedError):
    """The index has this release, but no wheel."""


@dataclass(frozen=True)
class Release:
    dist: str
    version: Version
    root: Path  # the cache root (blobs live under it)
    wheel: str  # file name of the wheel the members come from
    members: dict[str, str] = field(compare=False)  # wheel member -> sha256 of its bytes (a blob)
    absent: frozenset[str] = frozenset()  # requested paths the wheel does not have

    def covers(self, needs: Iterable[str]) -> bool:
        return all(n in self.members or n in self.absent for n in needs)

    def read(self, relpath: str) -> bytes | None:
        digest = self.members.get(relpath)
        return None if digest is None else read_blob(self.root, digest)


def _release(entry: CachedWheel, root: Path, dist: str, version: Version) -> Release:
    """The release a cache entry holds."""
    return Release(dist, version, root, entry.wheel, entry.members, entry.absent)


@dataclass(frozen=True)
class Fetch:
    """What one fetch cost: bytes received of a wheel of `size` bytes; `whole`: no range support."""

    release: Release
    received: int
    size: int
    whole: bool

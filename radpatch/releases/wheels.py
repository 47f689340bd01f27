"""Released wheels of a distribution, read from the package index a few members at a time.

radpatch talks to the index itself (radpatch.releases.index) with the machine's pip settings
(radpatch.releases.pipconf: index URLs, find-links, certificates, proxy), so no pip is needed. Of each
wheel it reads, with HTTP range requests (radpatch.releases.remotezip), the zip's tail (central
directory), the dist-info's RECORD, METADATA, WHEEL and top_level.txt, and the modules
the entries' `modules:` names pick.

Cache layout, under $RADPATCH_CACHE (default: <user cache dir>/radpatch/releases), shared by every
patch and every registry:

  blobs/<sha256>                    member bytes and zip tails, content-addressed
  <dist>/versions.json              the index's wheels of each release, and when they were listed
                                    (reused for $RADPATCH_LISTING_TTL seconds, default 24 h)
  <dist>/<version>/<wheel>.json     one wheel: its URL and size, what identifies its bytes (the
                                    index's sha256 of it, else its size), its tail (a blob), the
                                    members kept ({name: sha256}) and the requested members it lacks

The cache's files are read and written by radpatch.releases.cache.

A new patch fetches only the members it adds (the tail is cached), and a file shared by several
releases is stored once. A wheel entry is used only while the index lists the same bytes under the
wheel's name (the sha256 of the PEP 691 `hashes` or the URL's `#sha256=` fragment, else the size):
a wheel re-published under the same file name is read again once the list of releases is. Every
file is written to a temporary name and renamed into place, so a run killed at any point leaves
the cache readable.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.tags import sys_tags
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.releases import remotezip
from radpatch.releases.cache import (
    FORMAT,
    CachedWheel,
    blobs_intact,
    drop_old_layout,
    identity,
    read_blob,
    read_entry,
    read_tail,
    write_blob,
    write_json,
)
from radpatch.releases.index import Http, IndexFile, Offline, project_files
from radpatch.releases.pipconf import PipSettings, read_settings
from radpatch.state.verified import cache_root

LISTING_TTL = 24 * 3600.0
DIST_INFO_FILES = ("RECORD", "METADATA", "WHEEL", "top_level.txt")


def listing_ttl() -> float:
    raw = os.environ.get("RADPATCH_LISTING_TTL", "")
    try:
        return float(raw) if raw else LISTING_TTL
    except ValueError:
        raise UsageError(
            f"RADPATCH_LISTING_TTL={raw!r} is not a number of seconds", "unset it, or give e.g. 0 to re-list every run"
        )


def _offline(what: str, why: str) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"cannot reach the package index to {what}: {why}",
        "check the network and pip's settings (`pip config list`: index-url, proxy, cert)",
    )


# --- the list of releases -----------------------------------------------------------------------


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


Counter = Callable[[int], None]


def _ignore(n: int) -> None:
    pass


class Releases:
    """The releases of distributions on the package index, as far as patches need them."""

    def __init__(
        self,
        root: Path,
        settings: PipSettings | None = None,
        ttl: float = LISTING_TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = root
        self.settings = settings or read_settings()
        self.http = Http(self.settings)
        self.ttl = ttl
        self.clock = clock
        self._listings: dict[str, Listing] = {}

    @classmethod
    def from_env(cls) -> Releases:
        return cls(cache_root(), read_settings(), ttl=listing_ttl())

    def dist_dir(self, dist: str) -> Path:
        return self.root / canonicalize_name(dist)

    @property
    def sources(self) -> list[str]:
        return [*self.settings.indexes, *self.settings.find_links]

    # listing

    def versions(self, dist: str, wanted: SpecifierSet) -> Listing:
        """Releases on the index: the cached list while it is fresh and can answer `wanted`."""
        cached = self._cached_listing(dist)
        if cached and self.clock() - cached.listed_at < self.ttl and _answers(cached, wanted):
            self._listings[dist] = cached
            return cached
        try:
            files = project_files(self.http, self.settings, dist)
        except Offline as exc:
            if cached and _answers(cached, wanted):  # offline: an old list still names the releases wanted
                listing = Listing(
                    cached.versions,
                    cached.listed_at,
                    True,
                    f"cannot reach the package index: {exc.message}",
                    cached.wheels,
                )
                self._listings[dist] = listing
                return listing
            raise _offline(f"list the releases of {dist}", exc.message)
        files = [f for f in files if not f.yanked]
        if not files:
            raise UsageError(
                f"distribution {dist!r} has no release on the package index ({self.settings.describe()})",
                "check the patch's `distribution:` and pip's index settings (`pip config list`)",
            )
        wheels: dict[Version, list[IndexFile]] = {f.version: [] for f in files}
        for f in files:
            if f.wheel:
                wheels[f.version].append(f)
        listing = Listing(tuple(sorted(wheels)), self.clock(), False, "", {v: tuple(w) for v, w in wheels.items()})
        write_json(
            self.dist_dir(dist) / "versions.json",
            {
                "format": FORMAT,
                "distribution": dist,
                "listed_at": listing.listed_at,
                "sources": self.sources,
                "versions": {str(v): [w.to_json() for w in ws] for v, ws in sorted(listing.wheels.items())},
            },
        )
        self._listings[dist] = listing
        return listing

    def _cached_listing(self, dist: str) -> Listing | None:
        try:
            data = json.loads((self.dist_dir(dist) / "versions.json").read_text())
            if data.get("format") != FORMAT or data.get("sources") != self.sources:
                return None  # another layout, or other index settings: list again
            wheels = {Version(v): tuple(IndexFile.from_json(w) for w in ws) for v, ws in data["versions"].items()}
            return Listing(tuple(sorted(wheels)), float(data["listed_at"]), True, "", wheels)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, InvalidVersion):
            return None

    def _listing(self, dist: str) -> Listing | None:
        if dist not in self._listings:
            cached = self._cached_listing(dist)
            if cached is None:
                return None
            self._listings[dist] = cached
        return self._listings[dist]

    def wheel_of(self, dist: str, version: Version) -> IndexFile:
        listing = self._listing(dist)
        if listing is None or version not in listing.wheels:
            raise EnvironmentProblem(
                f"{dist} {version} is not in the list of releases read from the index", "run verify again"
            )
        wheel = pick_wheel(listing.wheels[version])
        if wheel is None:
            raise NoWheel(f"the index has no wheel of {dist} {version} (only a source distribution)")
        return wheel

    # release files

    def _entry(self, dist: str, version: Version, wheel: str) -> Path:
        return self.dist_dir(dist) / str(version) / f"{wheel}.json"

    def cached(self, dist: str, version: Version, needs: frozenset[str]) -> Release | None:
        try:
            wheel = self.wheel_of(dist, version)
        except (EnvironmentProblem, RefusedError):
            return None
        entry = read_entry(self._entry(dist, version, wheel.filename))
        if entry is None or not entry.same_bytes(wheel) or not _release(entry, self.root, dist, version).covers(needs):
            return None
        release = _release(entry, self.root, dist, version)
        if not blobs_intact(self.root, release.members.values()):
            return None
        return release if release.covers(with_stars(release, needs)) else None

    def get(self, dist: str, version: Version, needs: frozenset[str]) -> Release:
        return self.cached(dist, version, needs) or self.fetch(dist, version, needs).release

    def fetch(self, dist: str, version: Version, needs: frozenset[str], count: Counter = _ignore) -> Fetch:
        """Read what `needs` adds to the cache entry of the release's wheel (tail, dist-info,
        members), and the modules the star imports of its modules read (with_stars)."""
        got = self._fetch(dist, version, needs, count)
        more = with_stars(got.release, needs)
        while not got.release.covers(more):
            again = self._fetch(dist, version, more, count)
            got = Fetch(again.release, got.received + again.received, again.size, got.whole or again.whole)
            more = with_stars(got.release, more)
        return got

    def _fetch(self, dist: str, version: Version, needs: frozenset[str], count: Counter) -> Fetch:
        wheel = self.wheel_of(dist, version)
        path = self._entry(dist, version, wheel.filename)
        old = read_entry(path)
        if old is not None and (not old.same_bytes(wheel) or not blobs_intact(self.root, old.members.values())):
            old = None  # another wheel under the same name (re-published), or a damaged cache: read it again
        known = old.members if old else {}
        missing = needs - set(known) - (old.absent if old else frozenset())
        tail = read_tail(self.root, old)
        if old is not None and not missing:
            return Fetch(_release(old, self.root, dist, version), 0, old.size, False)
        received = [0]

        def counted(n: int) -> None:
            received[0] += n
            count(n)

        def want(names: frozenset[str]) -> set[str]:
            take = set(missing & names)
            if tail is None:  # the first read of this wheel: the dist-info too
                take |= {n for n in names if _dist_info_file(n)}
            return take - set(known)

        try:
            got = remotezip.read_members(self.http, wheel.url, want, tail, counted)
        except Offline as exc:
            raise _offline(f"read {wheel.filename}", exc.message)
        data = {**{n: read_blob(self.root, d) or b"" for n, d in known.items()}, **got.data}
        _check_record(wheel.filename, data, missing & got.names)
        members = dict(known)
        for name, content in got.data.items():
            members[name] = write_blob(self.root, content)
        kept_tail = got.tail or (tail if tail else None)
        entry = CachedWheel(
            wheel.filename,
            wheel.url,
            got.size,
            kept_tail.offset if kept_tail else None,
            write_blob(self.root, kept_tail.data) if kept_tail else None,
            members,
            frozenset((old.absent if old else frozenset()) | (needs - got.names)),
            identity(wheel),
        )
        drop_old_layout(path.parent)
        write_json(path, entry.to_json())
        return Fetch(_release(entry, self.root, dist, version), received[0], got.size, got.whole)


def with_stars(release: Release, needs: frozenset[str]) -> frozenset[str]:
    """`needs` and both files each module a star import among them reads may be, followed through
    their own star imports, as far as `release` holds them: verify tells from the star-imported
    module whether a later star import rebinds what a patch changes, as apply does from the
    target's path (radpatch.prove.star_exports); and the modules of the package that the decorators
    of `needs` are imported from, followed (radpatch.releases.imported_decorators). A module the wheel lacks
    (another distribution's) stays unread: the proof then cannot tell."""
    with _PARSING:
        return _with_stars(release, needs)


# verify fetches releases in threads (verifier._fetch), and each follows its star imports and
# decorators by parsing modules with `ast`. CPython 3.11 (seen on 3.11.7) keeps the AST
# constructor's recursion depth per interpreter, not per thread, so two parses at once can raise
# "SystemError: AST constructor recursion depth mismatch" (cf. python/cpython#106905): verify
# exited 70. One parse at a time.
_PARSING = threading.Lock()


def _with_stars(release: Release, needs: frozenset[str]) -> frozenset[str]:
    from radpatch.prove import star_exports  # only for wheels read or checked, not on import
    from radpatch.releases import imported_decorators

    out = needs
    own = [n for n in needs if n in release.members]
    while True:
        more = out | star_exports.wanted(release.read, [n for n in out if n in release.members])
        more |= imported_decorators.wanted(release.read, own)  # where their decorators are defined (bindings)
        if more == out:
            return out
        out = more


def pick_wheel(wheels: Iterable[IndexFile]) -> IndexFile | None:
    """The wheel pip would pick for this interpreter (tag priority, then build number); else any wheel."""
    priority = _tag_priority()
    best: tuple[float, int, str] | None = None
    chosen = None
    for w in wheels:
        _, _, build, tags = parse_wheel_filename(w.filename)
        rank = min((priority.get(str(t), len(priority)) for t in tags), default=len(priority))
        key = (float(rank), -(build[0] if build else 0), w.filename)
        if best is None or key < best:
            best, chosen = key, w
    return chosen


@functools.lru_cache(maxsize=1)
def _tag_priority() -> dict[str, int]:
    return {str(t): i for i, t in enumerate(sys_tags())}


def _dist_info_file(name: str) -> bool:
    top, _, rest = name.partition("/")
    return top.endswith(".dist-info") and rest in DIST_INFO_FILES


def _answers(listing: Listing, wanted: SpecifierSet) -> bool:
    """False when `wanted` names a release the list lacks (==X), or no listed release at all."""
    pinned = {
        Version(s.version)
        for s in wanted
        if s.operator in ("==", "===") and "*" not in s.version and _is_version(s.version)
    }
    return pinned <= set(listing.versions) and any(wanted.contains(v, prereleases=True) for v in listing.versions)


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except ValueError:  # InvalidVersion, or a number too long to convert
        return False
    return True


def _check_record(wheel: str, data: dict[str, bytes], modules: Iterable[str]) -> None:
    record = next((content for name, content in data.items() if name.endswith(".dist-info/RECORD")), None)
    if record is None:
        return
    hashes = {row[0]: row[1] for row in csv.reader(io.StringIO(record.decode("utf-8", "replace"))) if len(row) >= 2}
    for name in modules:
        want = hashes.get(name, "")
        if name in data and want.startswith("sha256="):
            got = base64.urlsafe_b64encode(hashlib.sha256(data[name]).digest()).rstrip(b"=").decode()
            if got != want[len("sha256=") :].rstrip("="):
                raise remotezip.BadWheel(
                    f"{wheel}: {name} does not match the wheel's RECORD (corrupt download?)", "run verify again"
                )

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

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
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
from radpatch.releases.index import Http, Offline
from radpatch.releases.index_pages import IndexFile, project_files
from radpatch.releases.pipconf import PipSettings, read_settings
from radpatch.releases.star_members import with_stars
from radpatch.releases.wheel_pick import _check_record, _dist_info_file, pick_wheel
from radpatch.releases.wheel_records import Fetch, Listing, NoWheel, Release, _release
from radpatch.state.verified import cache_root

LISTING_TTL = 24 * 3600.0


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
        self.read_elsewhere = 0  # bytes `get` and the store index read: beyond the fetches a caller counts (verify)
        self.say: Callable[[str], None] = lambda text: None  # a run's progress lines (verify's), for long reads
        self._lock = threading.Lock()

    def count(self, n: int) -> None:
        with self._lock:
            self.read_elsewhere += n

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
        return self.cached(dist, version, needs) or self.fetch(dist, version, needs, self.count).release

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

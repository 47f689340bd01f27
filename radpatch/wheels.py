"""Released wheels of a distribution, fetched through pip and cached as the few files a patch reads.

Only pip talks to the package index (`python -m pip` of the running interpreter), so the
machine's pip configuration applies as it is: index URLs, find-links, certificates, proxies.

Cache layout, under $RADPATCH_CACHE (default: <user cache dir>/radpatch/releases):

  <dist>/versions.json        the index's list of releases and when it was read (reused for
                              $RADPATCH_LISTING_TTL seconds, default 24 h)
  <dist>/<version>/           what was kept of that release's wheel:
      manifest.json           the wheel's name, the members kept, the requested paths it lacks
      <dist>-<version>.dist-info/...
      pkg/module.py ...       the requested modules only; the wheel itself is deleted

An entry is extracted into a sibling staging directory and renamed into place, so a run killed
at any point leaves either no entry or a complete one.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NoReturn
from pathlib import Path, PurePosixPath

from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError

LISTING_TTL = 24 * 3600.0
_STALE_STAGING = 3600.0  # a staging directory this old belongs to a run that died
_MANIFEST = "manifest.json"
_FORMAT = 1


def cache_root() -> Path:
    """$RADPATCH_CACHE, else <user cache dir>/radpatch/releases."""
    env = os.environ.get("RADPATCH_CACHE")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "radpatch" / "releases"


def listing_ttl() -> float:
    raw = os.environ.get("RADPATCH_LISTING_TTL", "")
    try:
        return float(raw) if raw else LISTING_TTL
    except ValueError:
        raise UsageError(f"RADPATCH_LISTING_TTL={raw!r} is not a number of seconds", "unset it, or give e.g. 0 to re-list every run")


# --- running pip --------------------------------------------------------------------------------

@dataclass(frozen=True)
class PipRun:
    returncode: int
    stdout: str
    stderr: str
    log: str  # pip's verbose log (--log): where it says which URL it could not fetch and why


Pip = Callable[[list[str]], PipRun]


def run_pip(args: list[str]) -> PipRun:
    """`python -m pip ARGS` with this interpreter, never prompting; pip reads its own config."""
    with tempfile.TemporaryDirectory(prefix="radpatch-pip-") as tmp:
        log = Path(tmp) / "pip.log"
        cmd = [sys.executable, "-m", "pip", "--no-input", "--disable-pip-version-check", "--log", str(log), *args]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        except OSError as exc:
            raise EnvironmentProblem(f"cannot run {sys.executable} -m pip: {exc.strerror}")
        text = log.read_text(errors="replace") if log.is_file() else ""
    if proc.returncode != 0 and "No module named pip" in proc.stderr:
        raise EnvironmentProblem(f"pip is not installed in {sys.executable}", f"{sys.executable} -m ensurepip --upgrade")
    return PipRun(proc.returncode, proc.stdout, proc.stderr, text)


_FETCH_FAILED = re.compile(r"Could not fetch URL (\S+?):? (.*?)(?: - skipping)?$", re.M)
_NETWORKISH = re.compile(r"ConnectionError|NewConnectionError|ProxyError|SSLError|ReadTimeout|ConnectTimeout|"
                         r"Max retries exceeded|Connection (?:refused|reset)|Temporary failure in name resolution")


def _network_failure(run: PipRun) -> str | None:
    """Why pip could not reach an index, or None if every URL it tried answered (a 4xx is an answer)."""
    for url, why in _FETCH_FAILED.findall(run.log):
        if not re.match(r"4\d\d ", why):
            return _short(f"{url}: {why}")
    hit = _NETWORKISH.search(run.stderr)
    return _short(run.stderr[max(0, hit.start() - 100):hit.end() + 100].strip()) if hit else None


def _last_error(run: PipRun) -> str:
    errors = [ln[len("ERROR: "):] for ln in run.stderr.splitlines() if ln.startswith("ERROR: ")]
    return _short(errors[-1] if errors else (run.stderr.strip().splitlines() or [f"exit status {run.returncode}"])[-1])


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _offline(what: str, why: str) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"cannot reach the package index to {what}: {why}",
        "check the network and pip's settings (`python -m pip config debug`: index-url, proxy, cert)",
    )


# --- the list of releases -----------------------------------------------------------------------

@dataclass(frozen=True)
class Listing:
    versions: tuple[Version, ...]  # ascending
    listed_at: float
    from_cache: bool
    offline: str = ""  # why the index could not be asked, when an old cached list is used instead


class NoWheel(RefusedError):
    """The index has this release, but no wheel pip would install here."""


@dataclass(frozen=True)
class Release:
    dist: str
    version: Version
    root: Path  # the cache entry
    wheel: str  # file name of the wheel the entry was extracted from
    members: frozenset[str]  # wheel members kept (relative paths)
    absent: frozenset[str]  # requested paths the wheel does not have

    def covers(self, needs: Iterable[str]) -> bool:
        return all(n in self.members or n in self.absent for n in needs)

    def read(self, relpath: str) -> bytes | None:
        return (self.root / relpath).read_bytes() if relpath in self.members else None


class Releases:
    """The releases of distributions on the package index, as far as patches need them."""

    def __init__(self, root: Path, pip: Pip | None = None, ttl: float = LISTING_TTL, clock: Callable[[], float] = time.time) -> None:
        self.root = root
        self.pip = pip or run_pip
        self.ttl = ttl
        self.clock = clock

    @classmethod
    def from_env(cls) -> Releases:
        return cls(cache_root(), ttl=listing_ttl())

    def dist_dir(self, dist: str) -> Path:
        return self.root / canonicalize_name(dist)

    # listing

    def versions(self, dist: str, wanted: SpecifierSet) -> Listing:
        """Releases on the index: the cached list while it is fresh and can answer `wanted`."""
        cached = self._cached_listing(dist)
        if cached and self.clock() - cached.listed_at < self.ttl and _answers(cached, wanted):
            return cached
        try:
            versions = self._list(dist)
        except EnvironmentProblem as exc:
            if cached and _answers(cached, wanted):  # offline: an old list still names the releases wanted
                return Listing(cached.versions, cached.listed_at, True, exc.message)
            raise
        listing = Listing(tuple(sorted(versions)), self.clock(), False)
        _write_json(self.dist_dir(dist) / "versions.json",
                    {"format": _FORMAT, "distribution": dist, "listed_at": listing.listed_at, "versions": [str(v) for v in listing.versions]})
        return listing

    def _cached_listing(self, dist: str) -> Listing | None:
        try:
            data = json.loads((self.dist_dir(dist) / "versions.json").read_text())
            return Listing(tuple(sorted(Version(v) for v in data["versions"])), float(data["listed_at"]), True)
        except (OSError, ValueError, KeyError, TypeError, InvalidVersion):
            return None

    def _list(self, dist: str) -> list[Version]:
        run = self.pip(["index", "versions", dist])
        if run.returncode != 0 and re.search(r"unknown command|no such option", run.stderr, re.I):
            return self._list_by_download(dist)  # pip older than 21.2 has no `pip index`
        if run.returncode == 0:
            found = re.search(r"^Available versions: (.*)$", run.stdout, re.M)
            if found:
                return _parse_versions(found.group(1))
        self._listing_failed(dist, run)

    def _list_by_download(self, dist: str) -> list[Version]:
        with tempfile.TemporaryDirectory(prefix="radpatch-list-") as tmp:
            run = self.pip(["download", "--no-deps", "-d", tmp, f"{dist}==0+radpatch.no.such.version"])
        found = re.search(r"\(from versions: (.*?)\)", run.stderr)
        if found and found.group(1) != "none":
            return _parse_versions(found.group(1))
        self._listing_failed(dist, run)

    def _listing_failed(self, dist: str, run: PipRun) -> NoReturn:
        offline = _network_failure(run)
        if offline:
            raise _offline(f"list the releases of {dist}", offline)
        if "No matching distribution" in run.stderr or "from versions: none" in run.stderr:
            raise UsageError(f"distribution {dist!r} has no release on the package index (pip index versions {dist})",
                             "check the patch's `distribution:` and pip's index settings (`python -m pip config debug`)")
        raise EnvironmentProblem(f"pip could not list the releases of {dist}: {_last_error(run)}")

    # release files

    def cached(self, dist: str, version: Version, needs: frozenset[str]) -> Release | None:
        entry = self.dist_dir(dist) / str(version)
        release = _read_manifest(dist, version, entry)
        return release if release and release.covers(needs) else None

    def get(self, dist: str, version: Version, needs: frozenset[str]) -> Release:
        return self.cached(dist, version, needs) or self.fetch(dist, version, needs)

    def fetch(self, dist: str, version: Version, needs: frozenset[str]) -> Release:
        """Download the release's wheel (no dependencies), keep `needs` and the dist-info, drop the wheel."""
        parent = self.dist_dir(dist)
        parent.mkdir(parents=True, exist_ok=True)
        _sweep(parent, self.clock())
        entry = parent / str(version)
        old = _read_manifest(dist, version, entry)
        if old:  # keep what an earlier run (or another patch) asked for too
            needs = needs | old.members | old.absent
        with tempfile.TemporaryDirectory(prefix="radpatch-wheel-") as download:
            wheel = self._download(dist, version, Path(download))
            stage = Path(tempfile.mkdtemp(prefix=f".stage-{version}-", dir=parent))
            try:
                members, absent = _extract(wheel, dist, version, needs - _dist_info_paths(needs), stage)
                _write_json(stage / _MANIFEST, {"format": _FORMAT, "distribution": dist, "version": str(version), "wheel": wheel.name,
                                                "members": sorted(members), "absent": sorted(absent), "fetched_at": self.clock()})
                _install(stage, entry)
            finally:
                shutil.rmtree(stage, ignore_errors=True)
        release = _read_manifest(dist, version, entry)
        if release is None:
            raise EnvironmentProblem(f"the cache entry {entry} vanished while it was being written", "is another radpatch clearing the cache?")
        return release

    def _download(self, dist: str, version: Version, into: Path) -> Path:
        run = self.pip(["download", "--no-deps", "--only-binary", ":all:", "--no-cache-dir", "--progress-bar", "off",
                        "-d", str(into), f"{dist}=={version}"])
        if run.returncode != 0:
            offline = _network_failure(run)
            if offline:
                raise _offline(f"download {dist} {version}", offline)
            if "No matching distribution" in run.stderr or "Could not find a version" in run.stderr:
                raise NoWheel(f"the index has no wheel of {dist} {version} for this platform (pip download --only-binary :all:)")
            raise EnvironmentProblem(f"pip could not download {dist} {version}: {_last_error(run)}")
        wheels = sorted(into.glob("*.whl"))
        if len(wheels) != 1:
            raise EnvironmentProblem(f"pip download {dist}=={version} left {len(wheels)} wheels, expected one")
        try:
            name, wheel_version, _, _ = parse_wheel_filename(wheels[0].name)
        except InvalidWheelFilename as exc:
            raise EnvironmentProblem(f"pip downloaded {wheels[0].name}, not a valid wheel name: {exc}")
        if canonicalize_name(name) != canonicalize_name(dist) or wheel_version != version:
            raise EnvironmentProblem(f"pip download {dist}=={version} gave {wheels[0].name}")
        return wheels[0]


def _answers(listing: Listing, wanted: SpecifierSet) -> bool:
    """False when `wanted` names a release the list lacks (==X), or no listed release at all."""
    pinned = {Version(s.version) for s in wanted if s.operator in ("==", "===") and "*" not in s.version and _is_version(s.version)}
    return pinned <= set(listing.versions) and any(v in wanted for v in listing.versions)


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def _parse_versions(text: str) -> list[Version]:
    return [Version(v) for v in (s.strip() for s in text.split(",")) if v and _is_version(v)]


def _dist_info_paths(needs: frozenset[str]) -> frozenset[str]:
    return frozenset(n for n in needs if n.split("/", 1)[0].endswith(".dist-info"))


def _extract(wheel: Path, dist: str, version: Version, needs: frozenset[str], stage: Path) -> tuple[set[str], set[str]]:
    """Write `needs` and every *.dist-info file of `wheel` under `stage`; check them against RECORD."""
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = {i.filename for i in zf.infolist() if not i.is_dir()}
            dist_info = {n for n in names if n.split("/", 1)[0].endswith(".dist-info") and "/" in n}
            take = sorted(dist_info | (needs & names))
            data = {n: zf.read(n) for n in take}
    except (zipfile.BadZipFile, OSError) as exc:
        raise EnvironmentProblem(f"{wheel.name} is not a readable wheel: {exc}")
    if not dist_info:
        raise EnvironmentProblem(f"{wheel.name} has no *.dist-info directory")
    _check_record(wheel.name, data, needs & names)
    for name, content in data.items():
        path = _member_path(stage, name, wheel.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return set(take), set(needs - names)


def _check_record(wheel: str, data: dict[str, bytes], modules: Iterable[str]) -> None:
    record = next((content for name, content in data.items() if name.endswith(".dist-info/RECORD")), None)
    if record is None:
        return
    hashes = {row[0]: row[1] for row in csv.reader(io.StringIO(record.decode("utf-8", "replace"))) if len(row) >= 2}
    for name in modules:
        want = hashes.get(name, "")
        if want.startswith("sha256="):
            got = base64.urlsafe_b64encode(hashlib.sha256(data[name]).digest()).rstrip(b"=").decode()
            if got != want[len("sha256="):].rstrip("="):
                raise EnvironmentProblem(f"{wheel}: {name} does not match the wheel's RECORD (corrupt download?)", "run verify again")


def _member_path(stage: Path, name: str, wheel: str) -> Path:
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or ".." in parts or "\\" in name or ":" in parts[0]:
        raise EnvironmentProblem(f"{wheel} has an unsafe member path {name!r}; refusing to extract it")
    return stage.joinpath(*parts)


def _install(stage: Path, entry: Path) -> None:
    """Rename the staged entry into place; an older entry (fewer members) is replaced."""
    try:
        os.rename(stage, entry)
        return
    except OSError:
        if not entry.exists():
            raise
    retired = entry.with_name(f".old-{entry.name}-{os.getpid()}-{time.monotonic_ns()}")
    os.rename(entry, retired)
    try:
        os.rename(stage, entry)
    finally:
        shutil.rmtree(retired, ignore_errors=True)


def _read_manifest(dist: str, version: Version, entry: Path) -> Release | None:
    try:
        data = json.loads((entry / _MANIFEST).read_text())
        if data.get("format") != _FORMAT or Version(data["version"]) != version:
            return None
        members = frozenset(str(m) for m in data["members"])
        release = Release(dist, version, entry, str(data["wheel"]), members, frozenset(str(a) for a in data["absent"]))
    except (OSError, ValueError, KeyError, TypeError, InvalidVersion):
        return None
    return release if all((entry / m).is_file() for m in members) else None


def _sweep(parent: Path, now: float) -> None:
    """Remove staging/retired directories left by runs that were killed."""
    for d in parent.glob(".*-*"):
        if d.name.startswith((".stage-", ".old-")):
            try:
                if now - d.stat().st_mtime > _STALE_STAGING:
                    shutil.rmtree(d, ignore_errors=True)
            except OSError:
                pass


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""The pristine bytes of installed files: read from the wheel of the installed version, trusted only
when they hash to the installed RECORD.

`radpatch restore` (and anything else that needs a file as pip installed it: capture, adopt) asks
for a few members of one wheel. From the index they are read as `verify` reads them, by range
requests through pip's settings into verify's cache (radpatch.releases.wheels), so a 400 MB vLLM
wheel costs its zip tail and the members asked for; a cached member costs nothing. `--wheel FILE`
reads a local wheel instead, offline. Which wheel of the release: the one whose tags the installed
dist-info's WHEEL file names (the build that was installed), else the one pip would pick here.

The bytes are never believed on the wheel's word: each must hash to the sha256 the installed
RECORD holds for the file, or the whole request is refused (the index serves another build than
the one installed, or FILE is not the wheel it was installed from).
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.files import head_lines
from radpatch.install.environment import Installed
from radpatch.releases import remotezip
from radpatch.releases.index_pages import IndexFile
from radpatch.releases.pipconf import read_settings
from radpatch.releases.wheel_pick import pick_wheel
from radpatch.releases.wheel_records import NoWheel
from radpatch.releases.wheels import Releases, listing_ttl
from radpatch.state.verified import cache_root

_DATA_SCHEMES = ("purelib", "platlib")  # a wheel's .data/ folders whose files install into site-packages
_WHEEL_HINT = "give the wheel it was installed from with --wheel FILE (read offline), or reinstall it"


@dataclass(frozen=True)
class Pristine:
    """One installed file's bytes as its wheel holds them, checked against RECORD."""

    relpath: str  # relative to the distribution's root (site-packages), as RECORD names it
    data: bytes


@dataclass(frozen=True)
class PristineSource:
    """Where pristine bytes came from, said to the user: a wheel and how much of it was read."""

    wheel: str  # the wheel's file name
    origin: str  # "the package index", or the local path given with --wheel
    received: int  # bytes received from the index in this run (0: all from verify's cache, or a local file)
    size: int  # the wheel's size
    whole: bool  # the server ignored ranges: the whole wheel was downloaded

    def describe(self) -> str:
        if self.origin != "index":
            return f"{self.wheel} ({self.origin})"
        if self.received == 0:
            return f"{self.wheel} (verify's cache)"
        how = "downloaded whole: the server ignores ranges" if self.whole else "range requests"
        return f"{self.wheel} (read {_size(self.received)} of {_size(self.size)} from the index, {how})"


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / (1024 * 1024):.1f} MiB"


def members_of(dist: Installed, relpath: str) -> tuple[str, ...]:
    """The wheel members that may hold the installed file: the same path, or the path under the
    wheel's .data/purelib or .data/platlib (installed into site-packages too)."""
    stem = dist.dist_info.name[: -len(".dist-info")]
    return (relpath, *(f"{stem}.data/{scheme}/{relpath}" for scheme in _DATA_SCHEMES))


def from_index(
    dist: Installed, relpaths: Iterable[str], releases: Releases | None = None
) -> tuple[list[Pristine], PristineSource]:
    """The RECORD bytes of `relpaths` (files of `dist`, each with a sha256 in RECORD), read from the
    index's wheel of the installed version with range requests, through verify's cache."""
    wanted = list(dict.fromkeys(relpaths))
    reader = releases or Releases(cache_root(), read_settings(), ttl=listing_ttl())
    try:
        listing = reader.versions(dist.name, SpecifierSet(f"=={dist.version}"))
    except UsageError as exc:  # the index has no such project at all
        raise RefusedError(exc.message, _WHEEL_HINT)
    except EnvironmentProblem as exc:  # the index cannot be reached: a local wheel still can be read
        raise EnvironmentProblem(exc.message, f"{exc.hint}; or read a local wheel: --wheel FILE")
    wheels = listing.wheels.get(dist.version)
    if wheels is None:
        raise RefusedError(
            f"{dist.name} {dist.version} is installed, but the package index has no such release "
            f"({reader.settings.describe()})",
            _WHEEL_HINT,
        )
    wheel = _installed_build(dist, wheels)
    if wheel is None:
        raise NoWheel(
            f"the package index has no wheel of {dist.name} {dist.version} (only a source distribution)",
            _WHEEL_HINT,
        )
    needs = frozenset(m for rel in wanted for m in members_of(dist, rel))
    fetch = _Chosen(reader, wheel).fetch(dist.name, dist.version, needs)
    got = {rel: _first(dist, rel, fetch.release.read) for rel in wanted}
    source = PristineSource(wheel.filename, "index", fetch.received, fetch.size, fetch.whole)
    return _checked(dist, got, source, "the wheel on the package index is not the one installed"), source


def from_wheel(dist: Installed, relpaths: Iterable[str], wheel: Path) -> tuple[list[Pristine], PristineSource]:
    """The RECORD bytes of `relpaths`, read from a local wheel (`--wheel FILE`): offline."""
    wanted = list(dict.fromkeys(relpaths))
    if not wheel.is_file():
        raise UsageError(f"--wheel {wheel}: no such file", "give the path of the wheel it was installed from")
    try:
        name, version, _, _ = parse_wheel_filename(wheel.name)
    except ValueError:
        raise UsageError(f"--wheel {wheel}: not a wheel's file name (NAME-VERSION-TAGS.whl)", "give a .whl file")
    if canonicalize_name(name) != canonicalize_name(dist.name) or version != dist.version:
        raise RefusedError(
            f"--wheel {wheel.name} is {name} {version}, but {dist.name} {dist.version} is installed",
            f"give the wheel {dist.name} {dist.version} was installed from",
        )
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            got = {rel: next((zf.read(m) for m in members_of(dist, rel) if m in names), None) for rel in wanted}
            size = wheel.stat().st_size
    except (OSError, *remotezip.UNREADABLE) as exc:
        raise UsageError(f"--wheel {wheel}: not a readable wheel ({exc})", "give a .whl file (a zip archive)")
    source = PristineSource(wheel.name, str(wheel), 0, size, False)
    return _checked(dist, got, source, f"{wheel.name} is not the wheel it was installed from"), source


class _Chosen(Releases):
    """verify's reader, fetching from one given wheel of the release (the installed build)."""

    def __init__(self, base: Releases, wheel: IndexFile) -> None:
        super().__init__(base.root, base.settings, base.ttl, base.clock)
        self.http = base.http
        self.chosen = wheel

    def wheel_of(self, dist: str, version: Version) -> IndexFile:
        return self.chosen


def _installed_build(dist: Installed, wheels: tuple[IndexFile, ...]) -> IndexFile | None:
    """The wheel whose tags the installed WHEEL file names (the build that was installed), else
    the one pip would pick for this interpreter."""
    tags = _installed_tags(dist)
    matching = [w for w in wheels if tags and {str(t) for t in parse_wheel_filename(w.filename)[3]} & tags]
    return pick_wheel(matching) or pick_wheel(wheels)


def _installed_tags(dist: Installed) -> set[str]:
    try:
        lines = list(head_lines(dist.dist_info / "WHEEL", limit=1 << 16))
    except OSError:
        return set()
    return {value.strip() for key, _, value in (line.partition(":") for line in lines) if key.strip() == "Tag"}


def _first(dist: Installed, relpath: str, read: Callable[[str], bytes | None]) -> bytes | None:
    for member in members_of(dist, relpath):
        data = read(member)
        if data is not None:
            return data
    return None


def _checked(dist: Installed, got: dict[str, bytes | None], source: PristineSource, why: str) -> list[Pristine]:
    """Each file's bytes, refused unless they hash to the installed RECORD's sha256 of it."""
    out = []
    for rel, data in got.items():
        want = dist.recorded_sha256(rel)
        if want is None:  # callers ask only for files RECORD hashes; a RECORD changed meanwhile is no proof
            raise RefusedError(f"{dist.dist_info.name}/RECORD lists no sha256 for {rel}: nothing proves its bytes")
        if data is None:
            raise RefusedError(
                f"{source.wheel} has no {rel}, which {dist.name} {dist.version}'s RECORD lists: {why}",
                _hint(source),
            )
        if hashlib.sha256(data).hexdigest() != want:
            raise RefusedError(
                f"{rel} in {source.wheel} does not hash to the installed RECORD's sha256: {why}",
                _hint(source),
            )
        out.append(Pristine(rel, data))
    return out


def _hint(source: PristineSource) -> str:
    return _WHEEL_HINT if source.origin == "index" else "give the wheel it was installed from, or reinstall it"


def local_wheel(dist: Installed, given: tuple[str, ...]) -> Path:
    """The wheel of `dist`'s name and version among `--wheel`s given (a directory stands for the
    wheels in it; several builds of the version: the one whose tags the installed WHEEL names).
    One FILE of another release is handed back: from_wheel says what is wrong with it."""
    files: list[Path] = []
    for w in map(Path, given):
        files += sorted(w.glob("*.whl")) if w.is_dir() else [w]
    found = [f for f in files if _names_release(f, dist)]
    if len(found) > 1:
        tags = _installed_tags(dist)
        built = [f for f in found if tags & {str(t) for t in parse_wheel_filename(f.name)[3]}]
        found = built if len(built) == 1 else found
    if len(found) == 1:
        return found[0]
    if not found and len(given) == 1 and not Path(given[0]).is_dir():
        return files[0]
    where = ", ".join(given)
    release = f"{dist.name} {dist.version}"
    if found:
        raise RefusedError(
            f"--wheel {where}: {len(found)} wheels of {release}, none the build installed "
            f"({', '.join(sorted(_installed_tags(dist))) or 'no WHEEL tags'}): " + ", ".join(f.name for f in found),
            f"give the one {release} was installed from: --wheel FILE",
        )
    listed = ", ".join(f.name for f in files[:4]) + (", ..." if len(files) > 4 else "") or "no .whl file"
    raise RefusedError(
        f"--wheel {where}: no wheel of {release} ({listed})",
        f"put the wheel {release} was installed from there, or give it: --wheel FILE",
    )


def _names_release(wheel: Path, dist: Installed) -> bool:
    try:
        name, version, _, _ = parse_wheel_filename(wheel.name)
    except ValueError:
        return False
    return canonicalize_name(name) == canonicalize_name(dist.name) and version == dist.version

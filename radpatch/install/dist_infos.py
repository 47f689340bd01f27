"""Installed distributions as their *.dist-info directories say: the one place radpatch finds a
directory's dist-infos, reads a distribution's name and version from one (its directory's name,
METADATA's headers), and compares project names (PEP 503). Also the dist-infos found providing a
package in one directory, as `status` (install.locate) and the engine-start self-check
(radpatch/plugin.py) name them: two of them make the install ambiguous, in the same words for both.

Standard library only (and files.head_lines), so the self-check can import it; `packaging`, when
importable, only puts a version in its normal form.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from radpatch.files import head_lines

SUFFIX = ".dist-info"
_SEPARATORS = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """A project name as PEP 503 normalises it: what packaging.utils.canonicalize_name returns.
    That module is not imported for it: it loads packaging.tags and its platform probes, 1.6 MiB
    of every radpatch process, for this one line."""
    return _SEPARATORS.sub("-", name).lower()


def in_dir(directory: Path) -> list[Path]:
    """Every *.dist-info of `directory`, by name; none when it cannot be listed."""
    try:
        entries = os.listdir(directory)
    except OSError:
        return []
    return [directory / e for e in sorted(entries) if e.endswith(SUFFIX)]


def named(directory: Path, distribution: str) -> list[Path]:
    """The dist-infos of `directory` whose name is `distribution`'s (PEP 503): more than one is a
    stale one beside the installed one."""
    want = canonical_name(distribution)
    return [d for d in in_dir(directory) if canonical_name(name_of(d)) == want]


def split(dist_info: Path) -> tuple[str, str]:
    """(name, version) as the directory's name spells them: `<name>-<version>.dist-info`."""
    stem = dist_info.name[: -len(SUFFIX)] if dist_info.name.endswith(SUFFIX) else dist_info.name
    name, dash, version = stem.rpartition("-")
    return (name, version) if dash else (stem, "")


def name_of(dist_info: Path) -> str:
    """The distribution's name as the directory's name spells it (normalised by the installer)."""
    return split(dist_info)[0]


@dataclass(frozen=True)
class Metadata:
    """METADATA's Name and Version headers (the first of each; None when absent)."""

    name: str | None
    version: str | None


def metadata(dist_info: Path) -> Metadata:
    """Name and Version from the dist-info's METADATA headers (up to the first blank line).
    An unreadable METADATA is an OSError."""
    found: dict[str, str] = {}
    for line in head_lines(dist_info / "METADATA"):
        if not line.strip():
            break  # end of the header
        key, _, value = line.partition(":")
        if key in ("Name", "Version") and key not in found:
            found[key] = value.strip()
    return Metadata(found.get("Name"), found.get("Version"))


def normal_version(version: str) -> str:
    """The version as status prints it (packaging's normal form: what radpatch records)."""
    try:  # radpatch's dependency; a check run with radpatch's code alone does without it
        from packaging.version import InvalidVersion, Version
    except ImportError:
        return version
    try:
        return str(Version(version))
    except InvalidVersion:
        return version


@dataclass(frozen=True)
class DistInfo:
    """One installed distribution found providing the patched package."""

    name: str
    version: str
    dir_name: str  # its *.dist-info directory's name


def describe(dist_info: Path) -> DistInfo:
    """The distribution's name and version as its METADATA says (the directory's name otherwise)."""
    name, version = split(dist_info)
    try:
        meta = metadata(dist_info)
    except OSError:
        meta = Metadata(None, None)
    return DistInfo(meta.name or name, normal_version(meta.version or version), dist_info.name)


AMBIGUOUS_HINT = (
    "which one is installed is ambiguous: remove the stale one "
    "(pip uninstall, or delete its leftover .dist-info directory), then run radpatch again"
)


def ambiguous(patch: str, packages: str, site_dir: object, dists: Sequence[DistInfo]) -> str:
    """Why two dist-infos providing the package in `where` make the install ambiguous (what
    install.locate refuses with; its hint is AMBIGUOUS_HINT)."""
    listed = " and ".join(f"{d.name} {d.version} ({d.dir_name})" for d in dists)
    return f"{patch}: {len(dists)} installed distributions provide {packages} in {site_dir}: {listed}"

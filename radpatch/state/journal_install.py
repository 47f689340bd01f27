"""The installation a journaled file belongs to (`InstallOf`), and whether it is still the one
installed: an interrupted run's recovery writes a file back only into the install that run planned
against (its dist-info and install identity, as the record names installs: docs/state.md), never
into one pip upgraded or reinstalled from other files since."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from radpatch.install import dist_infos, wheel_record


@dataclass(frozen=True)
class InstallOf:
    """The installation a journaled file belongs to, as the run planned against it."""

    dist_info: str  # its dist-info directory's name, in the install root
    name: str
    version: str
    identity: str  # install.wheel_record.InstallId.files


def replaced(root: Path, was: InstallOf | None, op: str) -> str:
    """Why the file's install is no longer `was` ("": it is, or the journal does not say)."""
    if was is None or wheel_record.identity(root / was.dist_info / "RECORD").holds(was.identity):
        return ""
    now = [dist_infos.describe(d) for d in dist_infos.named(root, was.name)]
    since = f"{was.name} {was.version}, which that interrupted {op} was for,"
    if not now:
        return f"{since} was uninstalled since"
    if now[0].version == was.version:
        return f"{since} was reinstalled since from other files"
    return f"{since} was replaced by {now[0].name} {now[0].version} since"


def installed_bytes(root: Path, was: InstallOf | None, relpath: str, sha: str) -> bool:
    """Are the bytes of sha256 `sha` what `was`'s RECORD (unknown: any RECORD in `root`) lists for
    `relpath`: what `radpatch restore` puts back?"""
    infos = [root / was.dist_info] if was is not None else dist_infos.in_dir(root)
    return any(wheel_record.sha256_of(d / "RECORD", relpath) == sha for d in infos)


def listed(root: Path, relpath: str) -> bool:
    """Does any RECORD in `root` list `relpath` (a file some installed distribution owns)? One that
    cannot be read might: True."""
    for d in dist_infos.in_dir(root):
        try:
            if relpath in wheel_record.rows(d / "RECORD"):
                return True
        except (OSError, csv.Error):
            return True
    return False

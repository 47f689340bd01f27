"""Which releases verify found to contain an entry's change, kept beside the cache for `list` and
`status` (which never read the index): one summary per revision of the entry.
"""

from __future__ import annotations

import json
from pathlib import Path

from packaging.version import InvalidVersion, Version

from radpatch.registry.model import Patch
from radpatch.releases.cache import write_json
from radpatch.releases.results import Report


def summary_path(root: Path, patch: Patch) -> Path:
    return root / "summaries" / f"{patch.name}-{patch.digest[:16]}.json"


def remember(report: Report, root: Path) -> None:
    """Keep which releases were found to contain the change (for `list` and `status`, which never
    read the index): every release verified so far for this revision of the entry."""
    path = summary_path(root, report.patch)
    known = read_summary(root, report.patch)
    for r in report.results:
        if r.checks.get("pristine") is not None or r.note:
            known[str(r.version)] = r.obsolete or bool(r.note)
    try:
        write_json(path, {"patch": report.patch.name, "digest": report.patch.digest, "obsolete": known})
    except OSError:
        pass  # a summary that cannot be written only means `list` cannot say obsolete-from


def read_summary(root: Path, patch: Patch) -> dict[str, bool]:
    """Release -> it already contains the change, for the releases verify has proven this entry on."""
    try:
        data = json.loads(summary_path(root, patch).read_text())
        return {str(k): bool(v) for k, v in data["obsolete"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def obsolete_from(root: Path, patch: Patch) -> Version | None:
    """The first release from which every verified release contains the change (None: none does)."""
    known = sorted((v, obs) for key, obs in read_summary(root, patch).items() if (v := _version(key)) is not None)
    first = None
    for v, obs in known:
        if obs and first is None:
            first = v
        elif not obs:
            first = None
    return first


def _version(text: str) -> Version | None:
    """A summary's key as a version; None for one that is not (a damaged cache is no internal error)."""
    try:
        return Version(text)
    except InvalidVersion:
        return None

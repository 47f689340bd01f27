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
    """The first release of the last run of verified releases that contain the change (None: the newest
    verified release does not). Says nothing of releases verify did not read: see obsolete_span."""
    span = obsolete_span(root, patch)
    return None if span is None else span[0]


def obsolete_span(root: Path, patch: Patch) -> tuple[Version, Version] | None:
    """(first, last) of the last run of verified releases that contain the change, the newest verified
    release last; None when that one does not contain it. A later release verify did not read (one
    upstream reverted the change in, say) is not in it."""
    known = _known(root, patch)
    if not known or not known[-1][1]:
        return None
    first = known[-1][0]
    for v, obs in reversed(known):
        if not obs:
            break
        first = v
    return first, known[-1][0]


def obsolete_run(root: Path, patch: Patch, version: Version) -> tuple[Version, Version] | None:
    """(first, last) of the run of verified releases containing the change that `version` is in,
    when verify read `version` and found it contains the change; None otherwise (a release verify did
    not read is judged by its installed file, not by its neighbours)."""
    known = _known(root, patch)
    at = next((i for i, (v, _) in enumerate(known) if v == version), None)
    if at is None or not known[at][1]:
        return None
    first = last = at
    while first > 0 and known[first - 1][1]:
        first -= 1
    while last + 1 < len(known) and known[last + 1][1]:
        last += 1
    return known[first][0], known[last][0]


def obsolete_words(span: tuple[Version, Version]) -> str:
    """The one phrase `status` and `list` say of releases verify found to contain the change:
    "obsolete upstream in X" or "obsolete upstream in X..Y"."""
    return f"obsolete upstream in {span_text(span)}"


def span_text(span: tuple[Version, Version]) -> str:
    """`X` or `X..Y`: the releases verify read that contain the change."""
    first, last = span
    return str(first) if first == last else f"{first}..{last}"


def _known(root: Path, patch: Patch) -> list[tuple[Version, bool]]:
    return sorted((v, obs) for key, obs in read_summary(root, patch).items() if (v := _version(key)) is not None)


def _version(text: str) -> Version | None:
    """A summary's key as a version; None for one that is not (a damaged cache is no internal error)."""
    try:
        return Version(text)
    except InvalidVersion:
        return None

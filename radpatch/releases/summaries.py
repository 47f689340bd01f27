"""Which releases verify found to contain an entry's change, kept beside the cache for `list` and
`status` (which never read the index): one summary per revision of the entry.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from radpatch.install.environment import Installed
from radpatch.prove.refusal import NOT_IN_EFFECT
from radpatch.registry.model import Patch
from radpatch.releases.cache import write_json
from radpatch.releases.results import Report
from radpatch.state.verified import cache_root, installed_differs, not_in_effect, summary_path, verified_code


def remember(report: Report, root: Path, listed: Iterable[Version] = ()) -> None:
    """Keep which releases were found to contain the change (for `list` and `status`, which never
    read the index): every release verified so far for this revision of the entry, and the releases
    the index listed (a listed release verify skipped breaks a run of obsolete ones)."""
    path = summary_path(root, report.patch)
    known = read_summary(root, report.patch)
    held = not_in_effect(root, report.patch)
    code = verified_code(root, report.patch)
    for r in report.results:
        if r.checks.get("pristine") is not None or r.note:
            known[str(r.version)] = r.obsolete or bool(r.note)
            held[str(r.version)] = list(r.not_in_effect)
            code[str(r.version)] = dict(r.code)
    seen = sorted({*_listed(root, report.patch), *(v for v in listed if not v.is_prerelease)})
    data = {
        "patch": report.patch.name,
        "digest": report.patch.digest,
        "obsolete": known,
        "not_in_effect": {v: shas for v, shas in held.items() if shas},
        "code": {v: files for v, files in code.items() if files},
        "listed": [str(v) for v in seen],
    }
    try:
        write_json(path, data)
    except OSError:
        pass  # a summary that cannot be written only means `list` cannot say obsolete-from


def read_summary(root: Path, patch: Patch) -> dict[str, bool]:
    """Release -> it already contains the change, for the releases verify has proven this entry on."""
    try:
        data = json.loads(summary_path(root, patch).read_text())
        return {str(k): bool(v) for k, v in data["obsolete"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def not_in_effect_releases(root: Path, patch: Patch) -> list[Version]:
    """The releases verify found to hold the entry's new code where it may not take effect."""
    found = (_version(k) for k, shas in not_in_effect(root, patch).items() if shas)
    return sorted(v for v in found if v is not None)


def not_in_effect_words(releases: Iterable[Version]) -> str:
    """What `list` says of the releases verify found to hold the new code where it may not take effect."""
    return f"in {', '.join(str(v) for v in releases)}: {NOT_IN_EFFECT}"


@dataclass(frozen=True)
class Run:
    """A run of verified releases that contain the change, no verified release without it among
    them: its pieces (X..Y each, broken where the index listed a release verify did not read) and
    those unread releases."""

    pieces: tuple[tuple[Version, Version], ...]
    skipped: tuple[Version, ...] = ()
    # verified releases among the pieces that do not contain the change (obsolete_all: several runs)
    without: tuple[Version, ...] = ()

    @property
    def first(self) -> Version:
        return self.pieces[0][0]

    @property
    def last(self) -> Version:
        return self.pieces[-1][1]


def obsolete_from(root: Path, patch: Patch) -> Version | None:
    """The first release of the last run of verified releases that contain the change (None: the newest
    verified release does not). Says nothing of releases verify did not read: see obsolete_span."""
    span = obsolete_span(root, patch)
    return None if span is None else span.first


def obsolete_span(root: Path, patch: Patch) -> Run | None:
    """The last run of verified releases that contain the change, the newest verified release last;
    None when that one does not contain it. A later release verify did not read (one upstream
    reverted the change in, say) is not in it, nor one between that verify skipped."""
    known = _known(root, patch)
    if not known or not known[-1][1]:
        return None
    return obsolete_run(root, patch, known[-1][0])


def declare_obsolete_hint(patch: Patch, dist: Installed) -> str | None:
    """The way out when verify read the installed release (`dist`) and found it contains
    the entry's change (its cache, no network): declare the release obsolete, for apply's refused
    plan (commands/change.py) and `status --check` (commands/status.py). None when verify did not,
    or when the installed files are not, as code, the ones verify read (installed_obsolete_run)."""
    if installed_obsolete_run(cache_root(), patch, dist) is None:
        return None
    return (
        f"verify found {dist.name} {dist.version} already contains {patch.name}'s change: "
        f"declare {dist.version} in the entry's `obsolete:` (apply then leaves it alone)"
    )


def installed_obsolete_run(root: Path, patch: Patch, dist: Installed) -> Run | None:
    """obsolete_run of the installed release, when its files the entry rewrites are, as code, the
    ones verify read on that release (a fork, a local build or a patched wheel of the same version
    number may lack the change: the version alone does not tell); None otherwise."""
    if installed_differs(root, patch, dist) != ():
        return None
    return obsolete_run(root, patch, dist.version)


def obsolete_run(root: Path, patch: Patch, version: Version) -> Run | None:
    """The run of verified releases containing the change that `version` is in, when verify read
    `version` and found it contains the change; None otherwise (a release verify did not read is
    judged by its installed file, not by its neighbours)."""
    known = _known(root, patch)
    at = next((i for i, (v, _) in enumerate(known) if v == version), None)
    if at is None or not known[at][1]:
        return None
    first = last = at
    while first > 0 and known[first - 1][1]:
        first -= 1
    while last + 1 < len(known) and known[last + 1][1]:
        last += 1
    read = [v for v, _ in known[first : last + 1]]
    listed = _listed(root, patch)
    pieces: list[tuple[Version, Version]] = []
    skipped: list[Version] = []
    start = read[0]
    for prev, nxt in zip(read, read[1:]):
        between = [v for v in listed if prev < v < nxt]
        if between:
            pieces.append((start, prev))
            skipped += between
            start = nxt
    pieces.append((start, read[-1]))
    return Run(tuple(pieces), tuple(skipped))


def obsolete_all(root: Path, patch: Patch) -> Run | None:
    """Every verified release that contains the change, as pieces X..Y that hold every release the
    index lists between X and Y: broken where verify skipped a listed release (`skipped`) and where
    it read one without the change (`without`); None when verify found none."""
    known = _known(root, patch)
    runs = [r for v, obs in known if obs and (r := obsolete_run(root, patch, v)) is not None and r.first == v]
    if not runs:
        return None
    lo, hi = runs[0].first, runs[-1].last
    without = tuple(v for v, obs in known if not obs and lo < v < hi)
    read = {v for v, _ in known}
    skipped = sorted(
        {*(v for r in runs for v in r.skipped), *(v for v in _listed(root, patch) if lo < v < hi and v not in read)}
    )
    return Run(tuple(p for r in runs for p in r.pieces), tuple(skipped), without)


def obsolete_words(span: tuple[Version, Version] | Run) -> str:
    """The one phrase `status` and `list` say of releases verify found to contain the change:
    "obsolete upstream in X", "obsolete upstream in X..Y", or, where verify skipped a release the
    index lists among them, "obsolete upstream in X, Z..Y (W not verified)", or read one without
    the change, "obsolete upstream in X..Y, Z (not in W)": each X..Y holds every release between."""
    run = span if isinstance(span, Run) else Run((span,))
    text = ", ".join(span_text(p) for p in run.pieces)
    why = [f"{', '.join(str(v) for v in run.skipped)} not verified"] if run.skipped else []
    why += [f"not in {', '.join(str(v) for v in run.without)}"] if run.without else []
    if why:
        text += f" ({'; '.join(why)})"
    return f"obsolete upstream in {text}"


def span_text(span: tuple[Version, Version]) -> str:
    """`X` or `X..Y`: the releases verify read that contain the change."""
    first, last = span
    return str(first) if first == last else f"{first}..{last}"


def _known(root: Path, patch: Patch) -> list[tuple[Version, bool]]:
    return sorted((v, obs) for key, obs in read_summary(root, patch).items() if (v := _version(key)) is not None)


def _listed(root: Path, patch: Patch) -> list[Version]:
    """The releases the index listed when verify ran (pre-releases left out: pip skips them too)."""
    try:
        data = json.loads(summary_path(root, patch).read_text())
        listed = [v for key in data.get("listed", []) if (v := _version(str(key))) is not None]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    return sorted(v for v in listed if not v.is_prerelease)


def _version(text: str) -> Version | None:
    """A summary's key as a version; None for one that is not (a damaged cache is no internal error)."""
    try:
        return Version(text)
    except InvalidVersion:
        return None

"""Verify: prove a patch against every release in a range, from the wheels.

For each release of the patch's distribution in SPEC (default: the patch's `supported` range)
radpatch.releases.wheels reads, with HTTP range requests, just the wheel's central directory, its
dist-info and the modules its `modules:` names pick (cached, content-addressed), and apply's whole pipeline
runs in memory, one check at a time (MEANING below): wheel, module, pristine, match, compile,
names, reverse, idempotent. Pre-releases are verified only when SPEC names one.

When SPEC is the declared range, the nearest releases just outside it (up to 3 on each side,
stopping at the first failure) are checked too, to say whether the range could be widened.
Releases with identical rewritten files are proven once, in $RADPATCH_JOBS worker processes
(default: one per CPU). Exit 1 when a release in the declared range (and in SPEC) fails; releases
outside the declared range are reported, never counted against the patch. Exit 2 when SPEC holds
no release of the declared range: nothing the patch claims was verified.

`--json` prints one object (results.JSON_SCHEMA_VERSION; README.md, "verify --json"), also on exit 1 and 2.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import TextIO

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from radpatch.errors import UsageError
from radpatch.registry import versions as policy
from radpatch.registry.model import Patch
from radpatch.releases import vouched_exec
from radpatch.releases.progress import Progress
from radpatch.releases.results import ReleaseResult, Report
from radpatch.releases.summaries import remember
from radpatch.releases.verifier import Verifier
from radpatch.releases.wheels import Releases

NEIGHBOURS = 3  # releases probed on each side of the declared range


def parse_spec(text: str, option: str = "--versions") -> SpecifierSet:
    """A PEP 440 range; a bare version means exactly that release. `option` is what the user wrote it as."""
    text = text.strip()
    try:
        return SpecifierSet(f"=={Version(text)}")
    except ValueError:  # InvalidVersion, or a number too long to convert
        pass
    try:
        spec = SpecifierSet(text)
        for s in spec:
            s.contains("0", prereleases=True)  # packaging reads each version only when comparing
    except ValueError:  # InvalidSpecifier, or a number too long to convert
        spec = None
    if not text or spec is None:
        raise UsageError(
            f"{option} {text!r} is not a PEP 440 version range", "write e.g. '>=0.22,<0.34', '==0.27.1' or 0.27.1"
        )
    return spec


def verify(
    patch: Patch,
    wanted: SpecifierSet,
    releases: Releases,
    probe: bool = True,
    stream: TextIO | None = None,
    requires: tuple[Patch, ...] = (),
    python: tuple[int, int] | None = None,
) -> Report:
    """verify_entry, with the definitions' libcst trees kept by their text (kept_trees): the
    releases of a range and their bases mostly hold the same definitions, undone and applied
    again release after release."""
    from radpatch.rewrite.ops.common import kept_trees

    with kept_trees():
        return verify_entry(patch, wanted, releases, probe, stream, requires, python)


def verify_entry(
    patch: Patch,
    wanted: SpecifierSet,
    releases: Releases,
    probe: bool = True,
    stream: TextIO | None = None,
    requires: tuple[Patch, ...] = (),
    python: tuple[int, int] | None = None,
) -> Report:
    """`requires`: the entries `patch` requires (transitively, in the order apply runs them): each
    release's files are proven as they leave them (radpatch.registry.series orders them). Those of
    another distribution change none of this one's files: they are not stacked. `python`: the target
    Python's major.minor the proofs judge for (`--python`; default: radpatch's own)."""
    requires = tuple(p for p in requires if canonicalize_name(p.distribution) == canonicalize_name(patch.distribution))
    out = stream or sys.stderr
    found = releases.versions(patch.distribution, wanted)
    if found.offline:
        age = (time.time() - found.listed_at) / 3600
        out.write(f"radpatch: warning: {found.offline}; using the list of releases cached {age:.0f} h ago\n")
    listing = found.versions
    chosen = [v for v in listing if selects(wanted, v)]
    if not chosen:
        near = ", ".join(str(v) for v in listing[-5:]) or "none"
        raise UsageError(
            f"no release of {patch.distribution} on the package index is in {wanted or 'any version'}",
            f"the latest releases are: {near}",
        )
    below: list[Version] = []
    above: list[Version] = []
    if probe:
        others = [v for v in listing if not v.is_prerelease and not policy.allows(patch.supported, v)]
        below = [v for v in reversed(others) if v < chosen[0]][:NEIGHBOURS]
        above = [v for v in others if v > chosen[-1]][:NEIGHBOURS]
    judged = python or (sys.version_info[0], sys.version_info[1])
    verifier = Verifier(patch, releases, Progress(out, patch.distribution), listing, requires, python=judged)
    results = {r.version: r for r in verifier.run([*chosen, *below[:1], *above[:1]])}
    for side in (below, above):  # walk outwards while releases keep passing
        for prev, v in zip(side, side[1:]):
            if not results[prev].ok:
                break
            results.update({r.version: r for r in verifier.run([v])})
    widen = tuple(sorted(v for side in (below, above) for v in _passing_prefix(side, results)))
    ordered = vouched_exec.marked(patch, [results[v] for v in sorted(results)], releases)  # stale items said
    stacked = tuple(p.name for p in requires)
    bases_read = tuple(sorted(v for v in verifier.looked if v not in results))
    report = Report(
        patch, wanted, ordered, widen, str(releases.root), verifier.transfer, stacked, bases_read, judged, bool(python)
    )
    remember(report, releases.root, listing)
    return report


def selects(spec: SpecifierSet, v: Version) -> bool:
    """`v` is in `spec`; a pre-release (or dev release) only when `spec` names one, as pip does."""
    if v.is_prerelease and not any(_is_pre(s.version) for s in spec):
        return False
    return spec.contains(v, prereleases=True)


def _is_pre(text: str) -> bool:
    try:
        return Version(text.rstrip(".*")).is_prerelease
    except ValueError:  # InvalidVersion, or a number too long to convert
        return False


def _passing_prefix(side: list[Version], results: dict[Version, ReleaseResult]) -> Iterator[Version]:
    for v in side:
        if v not in results or not results[v].ok:
            return
        yield v

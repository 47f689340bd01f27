"""The proof of the module a scope moved to (radpatch.releases.moved): verify's proof of the entry
on that module, through the proof cache, and, where a rewrite does not match there, again with the
entry's own releases as bases (the module may hold the change in upstream's layout: obsolete). The
bases are read tier by tier as verify reads them (radpatch.releases.base_search): the BASES of the
declared range nearest the release, then its first, then releases spread over it, up to MOST, until
the proof on a tier is no longer "no base applied" (Cause.NO_BASE: the rewrites apply on none of
them, so whether the module holds the change was not told). The search stopped at the nearest
BASES before (moved38): an entry whose rewrites apply only mid-range was "moved, does not prove"
where the module holds the change."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from radpatch.prove.refusal import Cause, Kind
from radpatch.registry import versions as policy
from radpatch.registry.model import Patch, Rewrite
from radpatch.releases import modules
from radpatch.releases.base_search import search_order
from radpatch.releases.proof_cache import prove_all
from radpatch.releases.proof_job import Checks, File, Job, Layer, ProofBase
from radpatch.releases.remotezip import BadWheel
from radpatch.releases.resolved import requirement_layers, resolve
from radpatch.releases.wheel_records import NoWheel
from radpatch.releases.wheels import Releases


@dataclass(frozen=True)
class Proven:
    """One proof's answer as the moved search reads it."""

    checks: Checks
    error: str | None
    obsolete: bool  # the files already contain the change
    kind: Kind = Kind()  # what the failure is (Cause.NO_BASE: no base read had the rewrites apply)


def prove_cached(
    patch: Patch, files: tuple[File, ...], root: Path, below: tuple[Layer, ...] = (), bases: tuple[ProofBase, ...] = ()
) -> Proven:
    """`prove` of the entry on `files` (on what the requirements' layers `below` leave of them),
    through the proof cache under `root` (as verify's own proofs are): the checks, the failure, and
    whether the files already contain the change (`bases`: releases the entry is written for, to
    read it off in upstream's layout)."""
    job = Job((*below, Layer(patch, files)), bases, searched=bool(bases))
    answer = prove_all(patch, {job.key(): job}, root / "proofs")[job.key()]
    obsolete = answer.checks.get("pristine") is False and answer.kind.cause not in (
        Cause.PART_PRESENT,
        Cause.NOT_IN_EFFECT,
    )
    return Proven(answer.checks, answer.error, obsolete, answer.kind)


def prove_moved(
    patch: Patch,
    there: tuple[File, ...],
    version: Version,
    releases: Releases,
    below: tuple[Layer, ...],
    requires: tuple[Patch, ...] = (),
) -> Proven:
    """The entry (`patch`, its file pointed at the moved module) proven on `there`, `version`'s files,
    stacked on `below` (its requirements' layers, of `requires`); where a rewrite does not match, again
    on the entry's own releases as bases, tier by tier (`tiers`), until one tier's proof is not NO_BASE."""
    got = prove_cached(patch, there, releases.root, below)
    if got.checks.get("match") is not False:
        return got
    tried: tuple[ProofBase, ...] = ()
    for tier in tiers(patch, version, releases):
        bases = written_for(patch, tier, releases, requires if below else ())
        if not bases or bases == tried:
            continue  # nothing read that was not read
        tried = bases
        got = prove_cached(patch, there, releases.root, below, bases)
        if got.kind.cause is not Cause.NO_BASE:
            break
    return got


def tiers(patch: Patch, version: Version, releases: Releases) -> list[list[Version]]:
    """The releases of the entry's declared range but `version` read as bases, tier by tier, as verify
    reads them for a release (base_search.search_order): each tier's first the BASES nearest `version`,
    nearest first, then the rest newest first."""
    listed = releases.versions(patch.distribution, patch.supported).versions
    claimed = [v for v in listed if not v.is_prerelease and v != version and policy.allows(patch.supported, v)][::-1]
    found = search_order(claimed, [version])
    first = found[0] if found else []
    return [[*first, *(v for v in tier if v not in first)] for tier in found]


def written_for(
    patch: Patch, versions: list[Version], releases: Releases, requires: tuple[Patch, ...] = ()
) -> tuple[ProofBase, ...]:
    """`versions`, releases of the entry's declared range, as bases, in order: the files each layer
    picks there, the requirements (`requires`, of its distribution, in apply's order: as
    `requirement_layers` stacks them) and then the entry. A release where one of them names no module
    (or that has no wheel) is no base."""
    out = []
    for b in versions:
        try:
            release = releases.get(patch.distribution, b, modules.needs((*requires, patch)))
        except (NoWheel, BadWheel):  # a broken wheel is no base either
            continue
        below = requirement_layers(requires, patch, b, release)
        files, failure = resolve(patch, b, release)
        if failure is None and below is not None:
            out.append(ProofBase(b, (*(la.files for la in below), files)))
    return tuple(out)


# module-level rewrites that serve the moved code (its imports, its new definitions): they go with it
_SERVING = frozenset({"add_import", "insert_definitions", "create_module"})


def staying(patch: Patch, rewrites: tuple[Rewrite, ...], old: bytes, relpath: str) -> tuple[str, ...]:
    """The module-level rewrites of `rewrites` that change code the old module still holds (each still
    applies there on its own): a move of the scopes to another module would take them away from that
    code, which the old module's other users still read (att51 #2: a `LIMIT` both modules define)."""
    from radpatch.errors import RefusedError
    from radpatch.rewrite.runner import forward

    out = []
    for rw in rewrites:
        if rw.op.scope_name() != "<module>" or rw.op.KEY in _SERVING:
            continue
        try:
            forward(patch, (rw,), old, relpath)
        except RefusedError:
            continue  # not in the old module any more: it moved too (or is gone)
        out.append(rw.id)
    return tuple(out)

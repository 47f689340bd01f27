"""Verify's engine: prove a patch against every release in a range, from the wheels.

For each release of the patch's distribution in SPEC (default: the patch's `supported` range)
radpatch.releases.wheels reads, with HTTP range requests, just the wheel's central directory, its
dist-info and the declared target modules (cached, content-addressed), and apply's whole pipeline
runs in memory, one check at a time (MEANING below): wheel, module, pristine, match, compile,
names, reverse, idempotent. Pre-releases are verified only when SPEC names one.

When SPEC is the declared range, the nearest releases just outside it (up to 3 on each side,
stopping at the first failure) are checked too, to say whether the range could be widened.
Releases with identical target files are proven once, in $RADPATCH_JOBS worker processes
(default: one per CPU). Exit 1 when a release in the declared range (and in SPEC) fails; releases
outside the declared range are reported, never counted against the patch. Exit 2 when SPEC holds
no release of the declared range: nothing the patch claims was verified.

`--json` prints one object (JSON_SCHEMA_VERSION; README.md, "verify --json"), also on exit 1 and 2.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
    wait,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

import radpatch
from radpatch.errors import UsageError
from radpatch.prove.steps import Cause, Kind, Refusal
from radpatch.registry import versions as policy
from radpatch.registry.model import Patch, rewrites_by_file
from radpatch.releases import modules, proof
from radpatch.releases.progress import Progress
from radpatch.releases.wheels import Fetch, NoWheel, Release, Releases, write_json

MEANING = {
    "wheel": "the index has a wheel of the release (this platform's, if there are several)",
    "module": (
        "the version picks exactly one module per target, and the wheel has it as apply resolves it "
        "(an import name: the package's `__init__.py`, else the `.py`); a module the entry creates is "
        "absent (the same module there: obsolete)"
    ),
    **proof.MEANING,
}
CHECKS = tuple(MEANING)
PROOF = proof.PROOF  # the checks that read the modules' text (run in worker processes)
NEIGHBOURS = 3  # releases probed on each side of the declared range
BASES = 4  # releases of the declared range an entry's change is read off (radpatch.releases.carried)
DOWNLOADS = 8  # wheels read at once (a few small range requests each: latency, not bandwidth)
JSON_SCHEMA_VERSION = 1

Checks = proof.Checks


@dataclass(frozen=True)
class ReleaseResult:
    version: Version
    in_range: bool  # in the patch's declared `supported` range
    checks: Checks
    error: str | None  # the first failing check's reason
    modules: tuple[str, ...] = ()
    note: str = ""
    kind: Kind = Kind()  # what the failure is, as code acts on it (not shown: `error` says it)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def obsolete(self) -> bool:
        return self.checks.get("pristine") is False

    def to_json(self) -> dict[str, object]:
        return {
            "version": str(self.version),
            "in_range": self.in_range,
            "ok": self.ok,
            "checks": self.checks,
            "error": self.error,
            "modules": list(self.modules),
            "note": self.note or None,
        }


@dataclass(frozen=True)
class Report:
    patch: Patch
    spec: SpecifierSet
    results: tuple[ReleaseResult, ...]  # ascending by version
    widen: tuple[Version, ...]  # releases outside the declared range that pass, next to it
    cache: str
    fetched: Transfer
    requires: tuple[str, ...] = ()  # the entries proven first on each release (`requires:`, transitively, in order)

    @property
    def spec_text(self) -> str:
        return self.patch.range if self.spec == self.patch.supported else str(self.spec)

    @property
    def claimed(self) -> list[ReleaseResult]:
        """The releases the patch claims (declared range) that were asked for (SPEC)."""
        return [r for r in self.results if r.in_range and r.version in self.spec]

    @property
    def failing(self) -> list[ReleaseResult]:
        return [r for r in self.claimed if not r.ok]

    def to_json(self) -> dict[str, object]:
        return {
            "schema_version": JSON_SCHEMA_VERSION,
            "patch": self.patch.name,
            "distribution": self.patch.distribution,
            "supported": self.patch.range,
            "versions": self.spec_text,
            "registry_digest": self.patch.digest,
            "requires": list(self.requires),
            "results": [r.to_json() for r in self.results],
            "widen": [str(v) for v in self.widen],
            "obsolete": [str(r.version) for r in self.results if r.obsolete],
            "claimed": len(self.claimed),
            "passed": sum(r.ok for r in self.claimed),
            "fetched": self.fetched.to_json(),
        }


@dataclass(frozen=True)
class Transfer:
    """What this run read from the index: releases, bytes received, and the wheels' total size."""

    releases: int = 0
    received: int = 0
    wheel_bytes: int = 0
    whole: int = 0  # wheels downloaded whole (the server ignored range requests)

    def add(self, f: Fetch) -> Transfer:
        return Transfer(self.releases + 1, self.received + f.received, self.wheel_bytes + f.size, self.whole + f.whole)

    def to_json(self) -> dict[str, int]:
        return {
            "releases": self.releases,
            "bytes": self.received,
            "wheel_bytes": self.wheel_bytes,
            "whole_wheels": self.whole,
        }


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
) -> Report:
    """`requires`: the entries `patch` requires (transitively, in the order apply runs them): each
    release's files are proven as they leave them (radpatch.registry.series orders them). Those of
    another distribution change none of this one's files: they are not stacked."""
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
    verifier = _Verifier(patch, releases, Progress(out, patch.distribution), listing, requires)
    results = {r.version: r for r in verifier.run([*chosen, *below[:1], *above[:1]])}
    for side in (below, above):  # walk outwards while releases keep passing
        for prev, v in zip(side, side[1:]):
            if not results[prev].ok:
                break
            results.update({r.version: r for r in verifier.run([v])})
    widen = tuple(sorted(v for side in (below, above) for v in _passing_prefix(side, results)))
    ordered = tuple(results[v] for v in sorted(results))
    stacked = tuple(p.name for p in requires)
    report = Report(patch, wanted, ordered, widen, str(releases.root), verifier.transfer, stacked)
    remember(report, releases.root)
    return report


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


# --- one release -------------------------------------------------------------------------------


File = proof.File  # for radpatch.releases.moved: the proof of a scope found in another module


def prove_cached(
    patch: Patch, files: tuple[File, ...], root: Path, below: tuple[proof.Layer, ...] = ()
) -> tuple[Checks, str | None]:
    """`prove` of the entry on `files` (on what the requirements' layers `below` leave of them),
    through the proof cache under `root` (as verify's own proofs are)."""
    job = proof.Job((*below, proof.Layer(patch, files)))
    answer = _prove_all(patch, {job.key(): job}, root / "proofs")[job.key()]
    return answer.checks, answer.error


def requirement_layers(
    requires: tuple[Patch, ...], patch: Patch, v: Version, release: Release
) -> tuple[proof.Layer, ...] | None:
    """The layers of `patch`'s requirements (of its distribution) on release `v`, as verify stacks
    them; None when one of them names no module there."""
    out = []
    for p in requires:
        if canonicalize_name(p.distribution) != canonicalize_name(patch.distribution):
            continue
        files, why = _resolve(p, v, release)
        if why is not None:
            return None
        out.append(proof.Layer(p, files, version=v))
    return tuple(out)


def stacked(requires: tuple[Patch, ...], patch: Patch, target: str, v: Version, release: Release) -> bytes | None:
    """The target's bytes on release `v` as the requirements leave them (apply's order), or the
    release's own when a requirement does not apply or names no module there."""
    files, why = _resolve(patch, v, release)
    mine = next((f for f in files if f.target == target), None)
    if why is not None or mine is None:
        return None
    layers = requirement_layers(requires, patch, v, release)
    if not layers:
        return mine.data
    from radpatch.errors import RefusedError
    from radpatch.rewrite import runner

    data = {mine.relpath: mine.data}
    for layer in layers:
        if layer.declared_obsolete(v):
            continue
        for f in layer.files:
            if f.relpath in data:
                try:
                    data[f.relpath] = runner.forward(layer.patch, f.rewrites, data[f.relpath], f.relpath)
                except RefusedError:
                    return mine.data
    return data[mine.relpath]


@dataclass
class _Verifier:
    patch: Patch
    releases: Releases
    progress: Progress
    listing: tuple[Version, ...] = ()  # every release on the index (bases are picked from it)
    requires: tuple[Patch, ...] = ()  # the entries it requires, transitively, in the order apply runs them
    needs: frozenset[str] = field(init=False)
    transfer: Transfer = field(default_factory=Transfer)

    def __post_init__(self) -> None:
        self.needs = modules.needs(self.stack)

    @property
    def stack(self) -> tuple[Patch, ...]:
        return (*self.requires, self.patch)

    @property
    def bases(self) -> list[Version]:
        """The releases an entry's change is read off, to tell whether a release already contains it
        in another layout: the newest BASES final releases of the declared range."""
        claimed = [x for x in self.listing if not x.is_prerelease and policy.allows(self.patch.supported, x)]
        return claimed[-BASES:][::-1]

    def run(self, versions: list[Version]) -> list[ReleaseResult]:
        """Each release's result. A release where a rewrite (of the entry or a requirement) does not
        apply is proven again with bases (releases of the declared range, read then): it may
        contain the change in upstream's own layout."""
        fetched = self._fetch(versions)
        results = self._prove(versions, fetched, with_bases=False)
        again = [v for v in versions if results[v].checks.get("match") is False or _requirement_refused(results[v])]
        if again and any(b not in again for b in self.bases):
            fetched = {**fetched, **self._fetch([b for b in self.bases if b not in fetched])}
            results.update(self._prove(again, fetched, with_bases=True))
        return [results[v] for v in versions]

    def _prove(
        self, versions: list[Version], fetched: dict[Version, Release | NoWheel], with_bases: bool
    ) -> dict[Version, ReleaseResult]:
        results: dict[Version, ReleaseResult] = {}
        jobs: dict[str, proof.Job] = {}
        waiting: dict[Version, tuple[str, tuple[str, ...]]] = {}
        for v in versions:
            got = fetched[v]
            if isinstance(got, NoWheel):
                results[v] = self._result(v, {"wheel": False}, f"wheel: {got.message}")
                continue
            files, failure = _resolve(self.patch, v, got)
            names = tuple(f.module for f in files)
            if failure:
                checks: Checks = {"wheel": True, "module": False}
                results[v] = self._result(v, checks, f"module: {failure.why}", names, kind=failure.kind)
                continue
            if self.patch.obsolete is not None and policy.allows(self.patch.obsolete, v):
                note = f"declared obsolete ({self.patch.obsolete}): apply leaves it alone"
                results[v] = self._result(v, {"wheel": True, "module": True}, None, names, note)
                continue
            layers: list[proof.Layer] = []
            for p in self.requires:
                theirs, why = _resolve(p, v, got)
                if why is not None:
                    checks = {"wheel": True, "module": True, "requires": False}
                    results[v] = self._result(v, checks, f"requires: {p.name} (required): {why.why}", names)
                    break
                layers.append(proof.Layer(p, theirs, version=v))
            if v in results:
                continue
            layers.append(proof.Layer(self.patch, files, version=v))
            bases = self._bases(tuple(layers), fetched) if with_bases else ()
            job = proof.Job(tuple(layers), bases)
            jobs.setdefault(job.key(), job)
            waiting[v] = (job.key(), names)
        releases_of: dict[str, list[Version]] = {}
        for v, (key, _) in waiting.items():
            releases_of.setdefault(key, []).append(v)
        proofs = _prove_all(self.patch, jobs, self.releases.root / "proofs", self.progress, releases_of)
        for v, (key, names) in waiting.items():
            answer = proofs[key]
            proven: Checks = {"wheel": True, "module": True, **answer.checks}
            results[v] = self._result(v, proven, answer.error, names, kind=answer.kind)
        return results

    def _bases(
        self, layers: tuple[proof.Layer, ...], fetched: dict[Version, Release | NoWheel]
    ) -> tuple[proof.ProofBase, ...]:
        """The candidate bases for a release whose files are `layers`: each base release whose
        files differ from these (the same files tell nothing the round trip does not) and from
        the bases before it, where every layer picks its modules."""
        out: list[proof.ProofBase] = []
        seen = [tuple(la.files for la in layers)]
        for b in self.bases:
            release = fetched.get(b)
            if not isinstance(release, Release):
                continue
            files = []
            for layer in layers:
                theirs, failure = _resolve(layer.patch, b, release)
                if failure:
                    break
                files.append(theirs)
            else:
                if tuple(files) not in seen:
                    seen.append(tuple(files))
                    out.append(proof.ProofBase(b, tuple(files)))
        return tuple(out)

    def _result(
        self,
        v: Version,
        checks: Checks,
        error: str | None,
        modules: tuple[str, ...] = (),
        note: str = "",
        kind: Kind = Kind(),
    ) -> ReleaseResult:
        full = {c: checks.get(c) for c in CHECKS}
        for p in self.requires:
            error = _relative(p, error, prefix=False)
        in_range = policy.allows(self.patch.supported, v)
        return ReleaseResult(v, in_range, full, _relative(self.patch, error), modules, note, kind)

    def _fetch(self, versions: list[Version]) -> dict[Version, Release | NoWheel]:
        """Each release's files (from the cache, else fetched), or the index's refusal (no wheel) as a value."""
        dist = self.patch.distribution
        out: dict[Version, Release | NoWheel] = {}
        missing = []
        for v in versions:
            hit = self.releases.cached(dist, v, self.needs)
            if hit:
                out[v] = hit
            else:
                missing.append(v)
        if not missing:
            return out
        self.progress.begin(len(missing), self.releases)
        with ThreadPoolExecutor(max_workers=min(DOWNLOADS, len(missing))) as pool:
            futures = {pool.submit(self._fetch_one, v): v for v in missing}
            pending = set(futures)
            try:
                while pending:
                    done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                    for fut in sorted(done, key=futures.__getitem__):
                        got = fut.result()
                        if isinstance(got, Fetch):
                            self.transfer = self.transfer.add(got)
                        out[futures[fut]] = got.release if isinstance(got, Fetch) else got
                        self.progress.step(futures[fut], got if isinstance(got, Fetch) else None)
                    self.progress.tick()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
            finally:
                self.progress.end()
        return out

    def _fetch_one(self, v: Version) -> Fetch | NoWheel:
        self.progress.started(v)
        try:
            return self.releases.fetch(self.patch.distribution, v, self.needs, self.progress.received)
        except NoWheel as exc:
            return exc


def _requirement_refused(r: ReleaseResult) -> bool:
    """A requirement's rewrite did not apply (not: it names no module for the release)."""
    return r.checks.get("requires") is False and r.kind.cause is Cause.REQUIREMENT


def _resolve(patch: Patch, v: Version, release: Release) -> tuple[tuple[File, ...], Refusal | None]:
    """The files apply would change for release `v`, or why it cannot pick them (the `module` check)."""
    by_target = rewrites_by_file(patch, v)
    if not by_target:
        why = f"no rewrite of {patch.name} applies to {patch.distribution} {v}"
        return (), Refusal("module", why, "give a rewrite (or a variant) for this release, or narrow `supported`")
    files: list[File] = []
    for target, rws in by_target.items():
        choice = patch.target(target).module_for(v)
        if choice is None:
            declared = "; ".join(f"{c.module} for {c.versions or 'any version'}" for c in patch.target(target).choices)
            why = f"{patch.name} declares no single module {target!r} for {v} ({declared})"
            hint = "`radpatch port NAME --to VERSION` extends or adds a choice"
            return tuple(files), Refusal("module", why, hint, cause=Cause.UNCOVERED, target=target)
        got = modules.file_of(patch, target, rws, choice, release)
        if isinstance(got, Refusal):
            return tuple(files), got
        files.append(got)
    return tuple(files), None


def _relative(patch: Patch, error: str | None, prefix: bool = True) -> str | None:
    """Messages with the registry file named, not its full path (and without the patch-name prefix)."""
    if error is None:
        return None
    if prefix:
        error = error.replace(f"{patch.name}: ", "", 1)
    return error.replace(str(patch.source), patch.source.name)


def first_failed(r: ReleaseResult) -> str:
    return next((c for c, ok in r.checks.items() if ok is False), "error")


# --- the proofs (in worker processes), and their cache -------------------------------------------


def _prove_all(
    patch: Patch,
    jobs: dict[str, proof.Job],
    cache: Path,
    progress: Progress | None = None,
    versions: dict[str, list[Version]] | None = None,
) -> dict[str, Answer]:
    """Every job's proof: from the proof cache when this radpatch proved the same input before.
    `progress` hears of each proof run (the releases of `versions[key]`) as it ends."""
    names = {key: _proof_name(patch, key) for key in jobs}
    done = {
        key: dataclasses.replace(hit, error=_placed(hit.error, jobs[key], back=True))
        for key in jobs
        if (hit := _cached_proof(cache / names[key])) is not None
    }
    todo = {key: job for key, job in jobs.items() if key not in done}
    workers = _workers(len(todo))
    fresh: dict[str, Answer] = {}
    if progress is not None and todo:
        progress.proving(patch.name, len(todo), len(done), workers)

    def proved(key: str, answer: Answer) -> None:
        fresh[key] = answer
        if progress is not None:
            progress.proved(patch.name, (versions or {}).get(key, []), answer.error)

    if todo:
        # here, not in each worker: forked workers start with libcst and the rewrites loaded
        from radpatch.rewrite import runner  # noqa: F401
    if workers <= 1:
        for key, job in todo.items():
            proved(key, _answer(proof.prove(job)))
    else:
        with _pool(workers) as pool:
            futures: dict[Future[proof.Proof], str] = {pool.submit(proof.prove, job): key for key, job in todo.items()}
            for f in as_completed(futures):
                proved(futures[f], _answer(f.result()))
    if progress is not None and todo:
        progress.proven()
    for key, answer in fresh.items():
        try:
            error = _placed(answer.error, jobs[key], back=False)
            write_json(cache / names[key], {"checks": answer.checks, "error": error, "kind": answer.kind.to_json()})
        except OSError:
            pass  # a cache that cannot be written only costs the next run the proof again
    return {**done, **fresh}


def _placed(error: str | None, job: proof.Job, back: bool) -> str | None:
    """A kept proof's failure names no registry file: each layer's entry file is a placeholder in the
    cache (`back`: put the current run's files in), so a registry moved or checked out elsewhere is
    not pointed at the directory of the run that made the proof."""
    if error is None:
        return None
    sources = sorted(
        ((f"<radpatch:entry-file:{i}>", str(la.patch.source)) for i, la in enumerate(job.layers)),
        key=lambda pair: -len(pair[1]),
    )
    for token, path in sources:
        error = error.replace(path, token) if not back else error.replace(token, path)
    return error


@dataclass(frozen=True)
class Answer:
    """One proof's answer, as verify keeps it: each check's outcome, the failure in words, and what it is."""

    checks: Checks
    error: str | None
    kind: Kind = Kind()


def _answer(p: proof.Proof) -> Answer:
    return Answer(p.checks, p.error, p.refusal.kind if p.refusal is not None else Kind())


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """radpatch's own source, libcst's version and the interpreter: what a proof's answer depends on
    besides its input. A changed radpatch never reuses an old proof."""
    h = hashlib.sha256(f"{sys.version}|{libcst_version()}".encode())
    package = Path(radpatch.__file__).parent
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def libcst_version() -> str:
    try:
        return importlib.metadata.version("libcst")
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _proof_name(patch: Patch, key: str) -> str:
    text = json.dumps([_code_fingerprint(), patch.name, patch.source.name, patch.digest, key])
    return hashlib.sha256(text.encode()).hexdigest() + ".json"


def _cached_proof(path: Path) -> Answer | None:
    try:
        data = json.loads(path.read_text())
        checks = {str(k): v for k, v in data["checks"].items() if v is None or isinstance(v, bool)}
        error = data["error"]
        kind = Kind.from_json(data["kind"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if set(checks) != set(PROOF) or not (error is None or isinstance(error, str)) or kind is None:
        return None
    return Answer(checks, error, kind)


def _workers(jobs: int) -> int:
    raw = os.environ.get("RADPATCH_JOBS", "")
    if raw.isdigit() and int(raw) > 0:
        cpus = int(raw)
    else:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(cpus, jobs)


def _pool(workers: int) -> Executor:
    # fork: the workers start with radpatch, libcst and the patch already loaded (no download
    # thread is alive by now); elsewhere, the platform's default start method.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork") if sys.platform == "linux" and "fork" in methods else None
    return ProcessPoolExecutor(workers, mp_context=context)

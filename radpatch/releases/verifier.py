"""Verify's releases, one run: each release fetched (from the cache, else the index, DOWNLOADS at
once), the files it rewrites resolved as apply would pick them, its requirements stacked below the
entry, and proven (radpatch.releases.proof_cache); a release where a rewrite does not apply is
proven again against bases (releases of the declared range, nearest first: the first where the
rewrites apply is used), which tell whether it already holds the change in upstream's own layout.
The BASES nearest the releases asked are read first (the newest, for releases newer than the
range); where they leave a release undecided, the first release of the range too (the entry was
written for some release of its range: often the one it starts at) and the releases asked for,
then releases spread over the range, bisect-like (base_search.search_order), and no more: a
question about one release reads at most MOST others (`looked` names them).
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from packaging.version import Version

from radpatch.prove.refusal import Cause, Kind
from radpatch.registry import versions as policy
from radpatch.registry.model import Patch
from radpatch.releases import modules, package_files, renamed
from radpatch.releases.base_search import references, search_order
from radpatch.releases.dropped import describe, dropped
from radpatch.releases.progress import Progress
from radpatch.releases.proof_cache import prove_all
from radpatch.releases.proof_job import Checks, File, Job, Layer, ProofBase
from radpatch.releases.remotezip import BadWheel
from radpatch.releases.resolved import resolve, unsupported
from radpatch.releases.results import CHECKS, ReleaseResult, Transfer
from radpatch.releases.wheel_records import Fetch, NoWheel, Release
from radpatch.releases.wheels import Releases
from radpatch.state.verified import code_digest

DOWNLOADS = 8  # wheels read at once (a few small range requests each: latency, not bandwidth)
REFERENCES = 1  # releases the entry claims a release's matches are compared with: the nearest


@dataclass
class Verifier:
    patch: Patch
    releases: Releases
    progress: Progress
    listing: tuple[Version, ...] = ()  # every release on the index (bases are picked from it)
    requires: tuple[Patch, ...] = ()  # the entries it requires, transitively, in the order apply runs them
    needs: frozenset[str] = field(init=False)
    packages: frozenset[str] = field(init=False)  # top-level packages whose .py files the names step reads
    bases: list[Version] = field(init=False, default_factory=list)  # the releases the change is read off now
    looked: set[Version] = field(init=False, default_factory=set)  # every release read as a base, this run
    refs: dict[Version, list[Version]] = field(init=False, default_factory=dict)  # each release's references
    transfer: Transfer = field(default_factory=Transfer)
    python: tuple[int, int] | None = None  # the target Python version judged for (verify --python)

    def __post_init__(self) -> None:
        self.needs = modules.needs(self.stack)
        self.packages = package_files.tops(self.needs) if package_files.wanted((self.patch,)) else frozenset()

    @property
    def stack(self) -> tuple[Patch, ...]:
        return (*self.requires, self.patch)

    @property
    def claimed(self) -> list[Version]:
        """The releases an entry's change may be read off, to tell whether a release already
        contains it in another layout: every final release of the declared range, newest first."""
        return [x for x in self.listing if not x.is_prerelease and policy.allows(self.patch.supported, x)][::-1]

    def run(self, versions: list[Version]) -> list[ReleaseResult]:
        """Each release's result. One whose rewrites match is compared with the claimed release below it
        (releases.surroundings). One where a rewrite does not apply, or that holds part of the entry's code,
        is proven again with bases (releases of the range): it may hold the change in upstream's layout.
        The BASES nearest those asked first; then the range's first release and the asked ones, then
        releases spread over the range (search_order): a bounded search, whatever the range's length."""
        elsewhere, self.releases.say = self.releases.read_elsewhere, self.progress.note
        fetched = self._fetch(versions)
        self.refs = {v: references(self.claimed, v, REFERENCES) for v in versions}
        results = self._prove(versions, fetched, with_bases=False)
        late = [v for v in versions if results[v].checks.get("match") and set(self.refs[v]) - set(fetched)]
        if late:
            fetched = {**fetched, **self._fetch(sorted({r for v in late for r in self.refs[v]} - set(fetched)))}
            results.update(self._prove(late, fetched, with_bases=False))
        replaces = any(r.op.KEY == "replace" for r in self.patch.rewrites)
        # an obsolete verdict on a replace is read against the base too (releases.replaced: its new
        # code may sit under a condition, or the old value be stored again)
        again = [v for v in versions if _read_on_bases(results[v]) or (replaces and results[v].obsolete)]
        for reach in search_order(self.claimed, versions):
            if not again:
                break
            if reach == self.bases or all(b in again for b in reach):
                continue  # nothing to read the change off that was not read
            self.bases = reach
            self.looked.update(reach)
            fetched = {**fetched, **self._fetch([b for b in reach if b not in fetched])}
            results.update(self._prove(again, fetched, with_bases=True))
            again = [v for v in again if _read_on_bases(results[v])]
        # a scope renamed, its old name bound to it, is no "no match": where it is now (releases.renamed)
        told = [renamed.told(self.patch, results[v], self.releases, self.requires) for v in versions]
        more = self.releases.read_elsewhere - elsewhere  # files read past the fetches: a rename's, a store index
        self.transfer = dataclasses.replace(self.transfer, received=self.transfer.received + more)
        return told

    def _prove(
        self, versions: list[Version], fetched: dict[Version, Release | NoWheel], with_bases: bool
    ) -> dict[Version, ReleaseResult]:
        results: dict[Version, ReleaseResult] = {}
        jobs: dict[str, Job] = {}
        waiting: dict[Version, tuple[str, tuple[File, ...]]] = {}
        read: dict[Version, tuple[tuple[str, str], ...]] = {}  # ReleaseResult.code
        chosen: dict[Version, tuple[str, ...]] = {}  # ReleaseResult.chosen
        unread: dict[Version, str] = {}  # why the package's other modules were not read (package_files)
        for v in versions:
            got = fetched[v]
            if isinstance(got, NoWheel):
                results[v] = self._result(v, {"wheel": False}, f"wheel: {got.message}")
                continue
            files, failure = resolve(self.patch, v, got)
            names = tuple(f.module for f in files)
            read[v] = tuple((f.relpath, code_digest(f.data)) for f in files)
            chosen[v] = tuple(f.chosen for f in files if f.chosen)
            if failure:
                checks: Checks = {"wheel": True, "module": False}
                results[v] = self._result(v, checks, f"module: {failure.why}", names, kind=failure.kind)
                continue
            lost = dropped(self.patch, v, self.listing)
            if lost:
                checks = {"wheel": True, "module": False}
                said = f"module: {describe(lost, v)}: widen its `versions:` (`radpatch port` does, where it proves)"
                results[v] = self._result(v, checks, said, names)
                continue
            if self.patch.obsolete is not None and policy.allows(self.patch.obsolete, v):
                note = f"declared obsolete ({self.patch.obsolete}): apply leaves it alone"
                results[v] = self._result(v, {"wheel": True, "module": True}, None, names, note)
                continue
            layers: list[Layer] = []
            for p in self.requires:
                theirs, why = resolve(p, v, got)
                why = why or unsupported(p, v)
                if why is not None:
                    checks = {"wheel": True, "module": True, "requires": False}
                    results[v] = self._result(v, checks, f"requires: {p.name} (required): {why.why}", names)
                    break
                layers.append(Layer(p, theirs, version=v))
            if v in results:
                continue
            if self.packages:
                site = package_files.files(got, self.packages)
                files = tuple(dataclasses.replace(f, site=site) for f in files)
                if site is None:
                    unread[v] = package_files.unread(got, self.packages)
            layers.append(Layer(self.patch, files, version=v))
            bases = self._bases(tuple(layers), fetched) if with_bases else ()
            refs = self._bases(tuple(layers), fetched, self.refs.get(v, []))
            job = Job(tuple(layers), bases, searched=with_bases, python=self.python, reference=refs)
            jobs.setdefault(job.key(), job)
            waiting[v] = (job.key(), files)
        releases_of: dict[str, list[Version]] = {}
        for v, (key, _) in waiting.items():
            releases_of.setdefault(key, []).append(v)
        proofs = prove_all(self.patch, jobs, self.releases.root / "proofs", self.progress, releases_of)
        for v, (key, files) in waiting.items():
            answer = proofs[key]
            proven: Checks = {"wheel": True, "module": True, **answer.checks}
            names = tuple(f.module for f in files)
            # the release's file whose new code may not take effect (status and apply know it by its bytes)
            held = tuple(
                code_digest(f.data)
                for f in files
                if answer.kind.cause is Cause.NOT_IN_EFFECT and f.file == answer.kind.file
            )
            result = self._result(v, proven, answer.error, names, kind=answer.kind)
            result = dataclasses.replace(result, not_checked=_why_unread(answer.not_checked, unread.get(v)))
            results[v] = dataclasses.replace(result, not_in_effect=held) if held else result
        results = {v: dataclasses.replace(r, chosen=chosen[v]) if chosen.get(v) else r for v, r in results.items()}
        return {v: dataclasses.replace(r, code=read[v]) if read.get(v) else r for v, r in results.items()}

    def _bases(
        self, layers: tuple[Layer, ...], fetched: dict[Version, Release | NoWheel], among: list[Version] | None = None
    ) -> tuple[ProofBase, ...]:
        """The candidate bases for a release whose files are `layers` (of `among`, default: the bases
        read now): each base release whose files differ from these (the same files tell nothing the
        round trip does not) and from the bases before it, where every layer picks its modules."""
        out: list[ProofBase] = []
        seen = [tuple(la.files for la in layers)]
        for b in self.bases if among is None else among:
            release = fetched.get(b)
            if not isinstance(release, Release):
                continue
            files = []
            for layer in layers:
                theirs, failure = resolve(layer.patch, b, release)
                if failure:
                    break
                files.append(theirs)
            else:
                if tuple(files) not in seen:
                    seen.append(tuple(files))
                    out.append(ProofBase(b, tuple(files)))
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
            if hit and self.packages:
                more = package_files.members(hit, self.packages)
                hit = self.releases.cached(dist, v, self.needs | more) if more else hit
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
            got = self.releases.fetch(self.patch.distribution, v, self.needs, self.progress.received)
            more = package_files.members(got.release, self.packages) if self.packages else None
            if not more:
                return got
            again = self.releases.fetch(self.patch.distribution, v, self.needs | more, self.progress.received)
            return Fetch(again.release, got.received + again.received, again.size, got.whole or again.whole)
        except NoWheel as exc:
            return exc
        except BadWheel as exc:  # that release's wheel is broken: its `wheel` check fails, the others are read
            return NoWheel(exc.message)


def _why_unread(not_checked: tuple[str, ...], why: str | None) -> tuple[str, ...]:
    """The names step's reads of the package left unchecked, each with why the package was not read
    (so "needs an installed target" is not the only reason given where verify chose not to read it)."""
    if why is None:
        return not_checked
    return tuple(f"{w}: {why}" if "names:" in w and "package" in w else w for w in not_checked)


def _read_on_bases(r: ReleaseResult) -> bool:
    """A result that the entry's change read off a base may turn into obsolete: a rewrite of the
    entry did not match, a requirement's rewrite did not apply (not: it names no module for the
    release), or the release holds some of the rewrites' code already (all of it, in upstream's
    layout, may be there: a deletion does not match then)."""
    if r.kind.cause is Cause.OTHER_CODE:  # the rewrites apply: the change is not there in another layout
        return False
    if r.checks.get("match") is False or r.kind.cause is Cause.PART_PRESENT:
        return True
    return r.checks.get("requires") is False and r.kind.cause is Cause.REQUIREMENT


def _relative(patch: Patch, error: str | None, prefix: bool = True) -> str | None:
    """Messages with the registry file named, not its full path (and without the patch-name prefix)."""
    if error is None:
        return None
    if prefix:  # `NAME: ` where a message starts, or its step's words do (`match: NAME: rewrite ...`)
        step, sep, rest = error.partition(": ")
        if error.startswith(f"{patch.name}: "):
            error = error[len(patch.name) + 2 :]
        elif sep and step in CHECKS and rest.startswith(f"{patch.name}: "):
            error = step + sep + rest[len(patch.name) + 2 :]
    return error.replace(str(patch.source), patch.source.name)

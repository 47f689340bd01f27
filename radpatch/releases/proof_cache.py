"""Verify's proofs: run in worker processes ($RADPATCH_JOBS, default one per CPU), each kept in
the proof cache under a name made of its input and radpatch's own code, so a changed radpatch
never reuses an old proof.
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
from concurrent.futures import (
    Executor,
    Future,
    ProcessPoolExecutor,
    as_completed,
)
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

import radpatch
from radpatch.prove.refusal import Kind
from radpatch.registry.model import Patch
from radpatch.releases import proof
from radpatch.releases.cache import write_json
from radpatch.releases.progress import Progress
from radpatch.releases.proof_job import Checks, Job, Proof
from radpatch.releases.results import PROOF


def prove_all(
    patch: Patch,
    jobs: dict[str, Job],
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
            futures: dict[Future[Proof], str] = {pool.submit(proof.prove, job): key for key, job in todo.items()}
            for f in as_completed(futures):
                proved(futures[f], _answer(f.result()))
    if progress is not None and todo:
        progress.proven()
    for key, answer in fresh.items():
        try:
            error = _placed(answer.error, jobs[key], back=False)
            kept = {"checks": answer.checks, "error": error, "kind": answer.kind.to_json()}
            write_json(cache / names[key], {**kept, "not_checked": list(answer.not_checked)})
        except OSError:
            pass  # a cache that cannot be written only costs the next run the proof again
    return {**done, **fresh}


def _placed(error: str | None, job: Job, back: bool) -> str | None:
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
    not_checked: tuple[str, ...] = ()  # what needs an installed target (Proof.not_checked)


def _answer(p: Proof) -> Answer:
    return Answer(p.checks, p.error, p.refusal.kind if p.refusal is not None else Kind(), p.not_checked)


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
        not_checked = tuple(str(x) for x in data.get("not_checked", ()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if set(checks) != set(PROOF) or not (error is None or isinstance(error, str)) or kind is None:
        return None
    return Answer(checks, error, kind, not_checked)


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

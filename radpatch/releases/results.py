"""What verify found, as records: each release's result, the run's report, what it read from the
index, and what each check means (MEANING: the columns of verify's table, README.md's "verify --json").
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.prove.refusal import Cause, Kind
from radpatch.registry.model import Patch
from radpatch.releases import proof, vouched_exec
from radpatch.releases.proof_job import Checks
from radpatch.releases.wheel_records import Fetch

MEANING = {
    "wheel": (
        "the index has a wheel of the release (this platform's, if there are several), and it reads as one "
        "(a truncated or damaged file fails here, naming it)"
    ),
    "module": (
        "the version picks exactly one module per target, and the wheel has it as apply resolves it "
        "(an import name: the package's `__init__.py`, else the `.py`); a module the entry creates is "
        "absent (the same module there: obsolete)"
    ),
    **proof.MEANING,
}
CHECKS = tuple(MEANING)
PROOF = proof.PROOF  # the checks that read the modules' text (run in worker processes)
JSON_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ReleaseResult:
    version: Version
    in_range: bool  # in the patch's declared `supported` range
    checks: Checks
    error: str | None  # the first failing check's reason
    modules: tuple[str, ...] = ()
    note: str = ""
    kind: Kind = Kind()  # what the failure is, as code acts on it (not shown: `error` says it)
    # the code digests (state.verified.code_digest) of the release's files whose new code may not take
    # effect (prove.refusal.NOT_IN_EFFECT)
    not_in_effect: tuple[str, ...] = ()
    # what apply checks that verify could not, without an installed target (prove.unchecked): never a silent pass
    not_checked: tuple[str, ...] = ()
    # (relpath, code digest) of each file of the release the entry rewrites, as verify read it: `status`
    # tells by it whether an installed release is the one verify found to contain the change
    code: tuple[tuple[str, str], ...] = ()
    # how a module was picked where the `versions:` table does not decide (its choices overlap there, or
    # a pre-release): apply's own choice by the modules' code (install.locate.pick), in words
    chosen: tuple[str, ...] = ()
    # (index, why) of each `vouched_exec:` item that matches no call in the release (stale: att52 #3)
    stale: tuple[tuple[int, str], ...] = ()
    # the index of each `vouched_exec:` item whose file the release does not have (not stale: vouch2 #2)
    absent: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def obsolete(self) -> bool:
        """The release already contains the entry's change: the whole of it (a release that holds
        only some rewrites' code fails `pristine` without being obsolete: the rest is still needed)."""
        return self.checks.get("pristine") is False and self.kind.cause not in (Cause.PART_PRESENT, Cause.NOT_IN_EFFECT)

    def to_json(self) -> dict[str, object]:
        return {
            "version": str(self.version),
            "in_range": self.in_range,
            "ok": self.ok,
            "checks": self.checks,
            "error": self.error,
            "modules": list(self.modules),
            "note": self.note or None,
            "not_checked": list(self.not_checked),
            "chosen": list(self.chosen),
            "stale_vouched_exec": [{"item": i, "why": why} for i, why in self.stale],
            "absent_vouched_exec": list(self.absent),
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
    # releases of the declared range read only as bases (radpatch.releases.base_search.search_order),
    # to tell whether a release whose rewrites do not apply already holds the change
    bases_read: tuple[Version, ...] = ()
    python: tuple[int, int] | None = None  # the target Python version judged for
    python_given: bool = False  # by --python (else: radpatch's own)

    @property
    def python_words(self) -> str:
        """Which Python the proofs judge version tests for, and whence (verify's output says it)."""
        if self.python is None:
            return ""
        there = f"Python {self.python[0]}.{self.python[1]}"
        return (
            f"{there} (--python)" if self.python_given else f"{there} (radpatch's own; --python X.Y to judge another)"
        )

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
            # exec/eval calls the entry vouches store no renamed name: what a rename it followed assumed
            "vouched_exec": [vouched_exec.to_json(v) for v in self.patch.vouched_exec],
            "results": [r.to_json() for r in self.results],
            "widen": [str(v) for v in self.widen],
            "obsolete": [str(r.version) for r in self.results if r.obsolete],
            "claimed": len(self.claimed),
            "passed": sum(r.ok for r in self.claimed),
            "fetched": self.fetched.to_json(),
            "bases_read": [str(v) for v in self.bases_read],
            "python": None if self.python is None else f"{self.python[0]}.{self.python[1]}",
            "python_from": "--python" if self.python_given else "radpatch",
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


def first_failed(r: ReleaseResult) -> str:
    return next((c for c, ok in r.checks.items() if ok is False), "error")

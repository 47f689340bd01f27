"""Issue 22 (F6): what a release's failure is reaches the code that acts on it as a typed value
(prove.refusal.Kind: the cause, the target, the rewrite), never read back from its words; a kept proof
keeps it. The words are unchanged: they are what the user reads."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.commands.verify import _all_hint
from radpatch.prove.refusal import Cause
from radpatch.registry.loader import load_patch
from radpatch.releases import moved
from radpatch.releases.pipconf import read_settings
from radpatch.releases.results import ReleaseResult
from radpatch.releases.verify import verify
from radpatch.releases.wheels import Releases
from tests.lib.registry import write_entry
from tests.lib.toy_releases import DIST, RELEASES, entry


def _results(patch: Any, cache: Path) -> dict[Version, ReleaseResult]:
    report = verify(patch, SpecifierSet(">=2.0,<2.3"), Releases(cache, read_settings()), stream=io.StringIO())
    return {r.version: r for r in report.results}


def test_each_failure_says_what_it_is_and_a_kept_proof_says_it_again(loopback: Any, tmp_path: Path) -> None:
    loopback(DIST, RELEASES)
    patch = load_patch(write_entry(tmp_path / "reg", "cap", entry(">=1.0,<2")))
    fresh = _results(patch, tmp_path / "cache")
    gone, rewritten, no_file = fresh[Version("2.0")], fresh[Version("2.1")], fresh[Version("2.2")]
    # 2.0: core.py no longer defines size() (it moved to planning.py)
    assert (gone.kind.cause, gone.kind.file, gone.kind.rewrite) == (Cause.SCOPE_GONE, "planner", "cap")
    assert "defines no function or class 'size'" in (gone.error or "")
    # 2.1: size() is there, its code is not what `find` says: a rewrite that does not match, the scope is not gone
    assert (rewritten.kind.cause, rewritten.kind.rewrite) == (None, "cap") and rewritten.error
    # 2.2: the wheel has no core.py at all
    assert (no_file.kind.cause, no_file.kind.file) == (Cause.NO_MODULE, "planner")
    assert [moved.scope_gone(r.kind) for r in (gone, rewritten, no_file)] == [True, False, True]
    assert "`radpatch port NAME --to VERSION` adds a moved module" in _all_hint(
        [rewritten, no_file], "the index", "radpatch verify --all"
    )
    assert "radpatch port" not in _all_hint(
        [gone, rewritten], "the index", "radpatch verify --all"
    )  # `verify --all` suggests port only for a missing module
    kinds = [json.loads(f.read_text())["kind"] for f in (tmp_path / "cache" / "proofs").glob("*.json")]
    assert {"cause": "scope gone", "target": "planner", "rewrite": "cap"} in kinds
    kept = _results(patch, tmp_path / "cache")  # the proofs are read from the cache this time
    assert {v: (r.kind, r.error) for v, r in kept.items()} == {v: (r.kind, r.error) for v, r in fresh.items()}

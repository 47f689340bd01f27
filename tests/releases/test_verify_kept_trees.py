"""verify keeps the definitions' libcst trees by their text while it proves an entry's releases
(releases.verify.verify: rewrite.ops.common.kept_trees; the releases and their bases mostly hold the
same definitions): every release's result is what verify_entry, which keeps none, finds. Generated
over the toy releases (tests/lib/toy_releases: a moved, a rewritten, a missing module; obsolete,
in and out of range) and declared ranges."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.registry.loader import load_patch
from radpatch.releases.pipconf import read_settings
from radpatch.releases.verify import verify, verify_entry
from radpatch.releases.wheels import Releases
from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.toy_releases import DIST, RELEASES, entry

SUPPORTED = [">=1.0,<2", ">=1.0,<2.3", ">=2.0,<2.3"]
WANTED = [">=1.0,<2.3", ">=2.0,<2.3", "==1.0"]
CASES = sample([(s, w) for s in SUPPORTED for w in WANTED])


@pytest.mark.parametrize(("supported", "wanted"), CASES, ids=[f"{s}|{w}" for s, w in CASES])
def test_verify_with_trees_kept_finds_what_verify_without_finds(
    loopback: Any, tmp_path: Path, supported: str, wanted: str
) -> None:
    loopback(DIST, RELEASES)
    patch = load_patch(write_entry(tmp_path / "reg", "cap", entry(supported)))
    reports = [
        run(patch, SpecifierSet(wanted), Releases(tmp_path / f"cache{i}", read_settings()), stream=io.StringIO())
        for i, run in enumerate((verify, verify_entry))
    ]
    kept, fresh = (
        [(r.version, r.checks, r.error, r.kind, r.note, r.not_in_effect, r.code) for r in x.results] for x in reports
    )
    assert kept and kept == fresh

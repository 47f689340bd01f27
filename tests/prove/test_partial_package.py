"""A module that takes a name from its own parent package while the package's `__init__` is still
running is refused like a direct self-import: `pp/__init__.py` imports `pp.mod` (directly, or
through a sibling) before it binds EXTRA, and the patch makes `pp/mod.py` do `from pp import EXTRA`.

Generated: package `__init__` shapes times how the patch takes the name. Each patched package is
imported by this interpreter in a subprocess: the proof must refuse exactly those that fail."""

from __future__ import annotations

import itertools
import sys
import sysconfig
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import names, names_check, refusal
from tests.lib import partial_package
from tests.lib.generated import sample
from tests.lib.partial_package import INITS, ORIGINAL, fails

TAKES = {
    "absolute": "from pp import EXTRA\n",
    "relative": "from . import EXTRA\n",
    "in-function": "def later():\n    from pp import EXTRA\n    return EXTRA\n",
}


def build(root: Path, init: str, take: str | None) -> Path:
    return partial_package.build(root, init, (TAKES[take] if take else "") + ORIGINAL)


ALL_CASES = list(itertools.product(INITS, TAKES))
# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample(ALL_CASES)


@pytest.mark.parametrize(("init", "take"), CASES, ids=[f"{i}-{t}" for i, t in CASES])
def test_a_name_from_a_parent_package_still_being_imported_is_refused(init: str, take: str, tmp_path: Path) -> None:
    root = tmp_path / "site"
    env = PythonEnv(sys.executable, (root, Path(sysconfig.get_paths()["stdlib"])), root, sys.version_info[:2])
    mod = build(root, init, None)
    before = mod.read_bytes()
    assert not fails(root)
    build(root, init, take)
    after = mod.read_bytes()
    truth = fails(root)
    mod.write_bytes(before)  # the proof reads the package as installed, before the patch is written
    refused = names_check.names_refusal(before, after, str(mod), env, "pp.mod")
    assert (refused is not None) == truth, (init, take, refused)
    if refused is not None:
        assert "`EXTRA` (line 1, at module level) is taken from package pp while its __init__" in refused.why
        assert "pp/__init__.py:" in refused.why and refused.hint == refusal.PARTIAL_PACKAGE_HINT
        assert names.PARTIAL_PACKAGE in names.PER_USE


def test_both_outcomes_are_generated() -> None:
    assert any(i in ("from-module", "through-sibling") for i, _ in ALL_CASES)
    assert any(i == "bound-before" for i, _ in ALL_CASES)

"""Where did the code go: the search for a moved scope (radpatch.releases.moved).

On real wheels from a loopback index: a module that already held a copy of the scope where the entry
was written (a namesake: another model's copy of the code) is never taken for its new home; a module
that became a package is searched in its new submodules. And the search's budget is spent on the
modules whose path is most like the scope, not on the alphabet's first ones.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from radpatch.releases import search_order
from tests.lib.index_server import IndexServer
from tests.lib.registry import write_entry
from tests.lib.toy_releases import DIST, GOOD, PKG, entry

RELEASES: dict[str, dict[str, str | bytes]] = {
    "1.0": {f"{PKG}/core.py": GOOD, f"{PKG}/twin.py": GOOD},  # twin: a copy of size() all along
    "2.0": {f"{PKG}/core.py": "from rptoy.sizes import size\n", f"{PKG}/twin.py": GOOD},
}
SPLIT: dict[str, dict[str, str | bytes]] = {
    "1.0": {f"{PKG}/core.py": GOOD},
    "3.0": {f"{PKG}/core/__init__.py": "from rptoy.core.sizing import size\n", f"{PKG}/core/sizing.py": GOOD},
}


@pytest.fixture
def index(loopback: Any) -> IndexServer:
    return loopback(DIST, RELEASES)  # type: ignore[no-any-return]


def test_a_namesake_is_not_where_the_code_went(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("cap", entry("==1.0"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 1, r.out
    assert (reg / "cap.yaml").read_bytes() == before
    assert f"{PKG}.twin define(s) the scope but did already where the entry was written" in r.out
    assert "moved" not in r.out.split("2.0:", 1)[1].splitlines()[0]


def test_a_module_that_became_a_package_is_searched_in_it(loopback: Any, write_registry: Any, radpatch: Any) -> None:
    loopback(DIST, SPLIT)
    reg = write_registry("cap", entry("==1.0"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "3.0")
    assert r.code == 0, r.out + r.err
    assert f"module: {PKG}.core.sizing" in (reg / "cap.yaml").read_text()


def test_the_budget_is_spent_on_the_modules_most_like_the_scope_first() -> None:
    rng = random.Random(1)
    declared = "pkg/renderers/chat_utils.py"
    target = "pkg/v1/attention/ops/rocm_paged_mxfp4_indexer.py"
    words = ["api", "router", "serve", "generate", "scoring", "entry", "util", "config", "models", "layers"]
    noise = {f"pkg/a{i:04d}/{rng.choice(words)}_{rng.choice(words)}.py" for i in range(3 * search_order.MAX_FILES)}
    files = [(name, 1000) for name in sorted(noise | {target, "pkg/renderers/other.py"})]
    read = [name for tier in search_order.tiers(declared, files, ("rocm_mxfp4_indexer_k_store",)) for name in tier]
    assert target in read  # alphabetically it is past the budget; by its name it comes first
    assert len(read) == search_order.MAX_FILES and read[0] == "pkg/renderers/other.py"  # the own package first
    assert target not in [n for t in search_order.tiers(declared, files) for n in t]  # the alphabet alone misses it


# --- a kept proof names the registry file of the run that reads it -----------------------------------


def test_a_kept_proof_names_the_entry_file_where_it_is_now(loopback: Any, tmp_path: Any, radpatch: Any) -> None:
    from tests.lib.toy_releases import RELEASES as TOY

    loopback(DIST, TOY)
    first, second = tmp_path / "first", tmp_path / "second"
    second.mkdir()
    write_entry(first, "cap", entry("==1.0"))
    r = radpatch("--registry", str(first), "verify", "cap", "--versions", "==2.1", "--json")
    (fresh,) = json.loads(r.out)["results"]
    assert "cap.yaml" in fresh["error"]  # the failure names the entry's file
    (first / "cap.yaml").rename(second / "cap.yaml")
    first.rmdir()
    r = radpatch("--registry", str(second), "verify", "cap", "--versions", "==2.1", "--json")
    (kept,) = json.loads(r.out)["results"]
    assert kept["error"] == fresh["error"] and str(first) not in r.out + r.err
    moved_out = radpatch("--registry", str(second), "port", "cap", "--to", "2.1")
    assert str(first) not in moved_out.out + moved_out.err


# --- candidates in several tiers: a new test double beside the declared module, the real home further --

DOUBLE = "# a test double of size()\n" + GOOD
OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # size() too, where the rewrite does not match
TIERS: dict[str, dict[str, str | bytes]] = {
    "1.0": {f"{PKG}/sub/core.py": GOOD},
    "1.1": {f"{PKG}/runtime/planning.py": GOOD, f"{PKG}/sub/fake.py": DOUBLE},  # both prove
    "1.2": {f"{PKG}/runtime/planning.py": GOOD, f"{PKG}/sub/fake.py": OTHER},  # only the far one proves
    "1.3": {f"{PKG}/runtime/planning.py": GOOD},  # the only home: port takes it
}
SUB = entry("==1.0", f"  planner: {PKG}.sub.core\n")


@pytest.mark.parametrize("version", ["1.1", "1.2"])
def test_a_candidate_in_the_nearer_tier_does_not_hide_one_further_away(
    loopback: Any, write_registry: Any, radpatch: Any, no_shipped: None, version: str
) -> None:
    loopback(DIST, TIERS)
    reg = write_registry("cap", SUB)
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", version)
    assert r.code == 1, r.out + r.err
    assert (reg / "cap.yaml").read_bytes() == before  # which one the program calls cannot be told
    line = next(x for x in r.out.splitlines() if x.strip().startswith(f"{version}:"))
    assert f"{PKG}.sub.fake" in line and f"{PKG}.runtime.planning" in line, r.out
    m = radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0", "--json")
    (row,) = (e for e in json.loads(m.out)["matrix"] if e["patch"] == "cap")
    (cell,) = (c for c in row["cells"] if c["version"] == version)
    assert cell["module"] is None  # not `out (moved: ...)`: port would not carry it
    assert {f"{PKG}.sub.fake", f"{PKG}.runtime.planning"} <= set(cell["also"]), cell
    text = radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0").out
    note = next(x for x in text.splitlines() if x.startswith(f"cap {version}: "))
    assert f"{PKG}.sub.fake" in note and f"{PKG}.runtime.planning" in note, text


def test_a_single_candidate_further_away_is_taken(loopback: Any, write_registry: Any, radpatch: Any) -> None:
    loopback(DIST, {v: TIERS[v] for v in ("1.0", "1.3")})
    reg = write_registry("cap", SUB)
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.3")
    assert r.code == 0, r.out + r.err
    assert f"module: {PKG}.runtime.planning" in (reg / "cap.yaml").read_text()

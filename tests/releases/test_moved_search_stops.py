"""The moved search stops near a candidate (issue 23, gy23): once a tier holds a module where the
rewrites prove, it reads on only up to the package above that tier, and there only the modules new
since the entry's own release (where a test double or the real home beside a near candidate would
have appeared); it no longer spends its whole budget on the package's old modules. Two candidates are
still both named (tests/releases/test_moved_search.py: a new test double beside the declared module
and the real home a package away)."""

from __future__ import annotations

from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.registry.loader import load_patch
from radpatch.releases import moved
from radpatch.releases.wheels import Releases
from tests.lib.registry import write_entry
from tests.lib.toy_releases import DIST, GOOD, PKG, entry

OLD = {f"{PKG}/other/m{i:02d}.py": f"def f{i}():\n    return {i}\n" for i in range(30)}
RELEASES: dict[str, dict[str, str | bytes]] = {
    "1.0": {f"{PKG}/sub/core.py": GOOD, f"{PKG}/sub/util.py": "X = 1\n", **OLD},
    # size() moved beside the declared module; one unrelated module is new in the package above
    "1.1": {f"{PKG}/sub/planning.py": GOOD, f"{PKG}/sub/util.py": "X = 1\n", f"{PKG}/other/new.py": "Y = 2\n", **OLD},
    # ... and a second copy is new a package away: both are named
    "1.2": {f"{PKG}/sub/planning.py": GOOD, f"{PKG}/other/copy.py": GOOD, **OLD},
}


def test_a_near_candidate_stops_the_search_past_the_old_modules(loopback: Any, tmp_path: Any, no_shipped: None) -> None:
    loopback(DIST, RELEASES)
    patch = load_patch(write_entry(tmp_path / "reg", "cap", entry("==1.0", f"  planner: {PKG}.sub.core\n")))
    releases = Releases.from_env()
    releases.versions(DIST, SpecifierSet(">=1.0"))  # the list verify reads first
    found = moved.find_moved(patch, "planner", Version("1.1"), releases)
    assert isinstance(found, moved.Moved), found
    assert (found.module, found.proven, found.also) == (f"{PKG}.sub.planning", True, ())
    # the own package (planning.py, util.py), then the package above: only other/new.py is new there
    assert found.searched == 3, found
    two = moved.find_moved(patch, "planner", Version("1.2"), releases)
    assert isinstance(two, moved.Moved), two
    assert {two.module, *two.also} == {f"{PKG}.sub.planning", f"{PKG}.other.copy"}, two

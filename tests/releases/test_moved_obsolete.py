"""A release whose scope moved to another module that already contains the change (upstream moved
the code, then took the change there) is `obsolete` in the matrix, naming the module, not `moved
(FAIL)`; `port` claims none of it and ports the releases before it (the module variant for the move).
The change is read off the entry's own releases as bases (radpatch.releases.moved_proof.written_for):
in radpatch's layout or in upstream's own spelling.

Generated: the change in radpatch's layout or upstream's spelling; the scope moved to a sibling
module or into a new subpackage; a release between with the moved code still without the change, or
none (the move and the change in one release)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, TO, UPSTREAM, assert_ported_past_obsolete, entry

TOOK = {"radpatch's layout": PATCHED, "upstream's spelling": UPSTREAM}


@pytest.mark.parametrize(
    ("took", "to", "between"), sample([(t, m, b) for t in TOOK for m in TO for b in (True, False)])
)
def test_a_moved_scope_that_took_the_change_is_obsolete(
    loopback: Any, write_registry: Any, radpatch: Any, took: str, to: str, between: bool
) -> None:
    relpath, module = TO[to]
    releases = {"1.0": {f"{PKG}/core.py": GOOD}}
    if between:
        releases["1.1"] = {relpath: GOOD}
    last = "1.2" if between else "1.1"
    releases[last] = {relpath: TOOK[took]}
    loopback("radpatch-toy", releases)
    # outside the range, or (the entry claiming what follows it, no release between failing) in it
    for supported, cell in (("==1.0", "out of range"), *([] if between else [(">=1.0", "obsolete")])):
        reg = write_registry("cap", entry("A toy patch written for 1.0.", supported))
        grid = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0", "--json").out)
        cells = {c["version"]: c for c in grid["matrix"][0]["cells"]}
        assert cells[last]["cell"] == cell, cells[last]
        assert f"{module}, which already contains the change" in cells[last]["detail"], cells[last]
    reg = write_registry("cap", entry("A toy patch written for 1.0.", "==1.0"))
    assert_ported_past_obsolete(radpatch, reg, last, module, between)

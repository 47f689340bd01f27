"""The matrix cell of a release outside the entry's range, where its scope moved and a required entry
names no module (port37, issue 23): the cell said only "module fails", though the search had found
the module and why the rewrites do not prove there. Now the cell (and its note) names the requirement,
its words, and what to do: `radpatch port` the requirement to the release first, then this entry.

Generated: the required entry covers only the old layout in three ways (one module for every
release, a choice ending before the move, a choice naming a module the wheel lacks); the entry's
range one release or two below the move."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, MOVED_WHEELS, first_entry, second_entry
from tests.lib.wheels import Wheels

FIRST_MODULES = {
    "one module": "  core: rptoy.core\n",
    "choice ends": '  core:\n    - {versions: "<2", module: rptoy.core}\n',
    "choice names a missing module": (
        '  core:\n    - {versions: "<2", module: rptoy.core}\n    - {versions: ">=2", module: rptoy.gone}\n'
    ),
}
WHEELS: Wheels = {"1.0": MOVED_WHEELS["1.0"], "1.5": MOVED_WHEELS["1.0"], "2.0": MOVED_WHEELS["2.0"]}


@pytest.mark.parametrize(("first", "supported"), sample([(f, s) for f in FIRST_MODULES for s in ("<1.5", "<2")]))
def test_an_out_of_range_move_blocked_by_a_requirement_says_which_and_what_to_do(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any, first: str, supported: str
) -> None:
    loopback(DIST, WHEELS)
    write_registry("first", first_entry("Written for the old layout only.", ">=1.0", FIRST_MODULES[first]))
    reg = write_registry("second", second_entry("Written on the first entry's result.", f">=1.0,{supported}"))
    r = radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0")
    note = next((ln for ln in r.out.splitlines() if ln.startswith("second 2.0: out of range: ")), None)
    assert note is not None, r.out
    assert "moved: rptoy.core -> rptoy.planning" in note and "requires: first (required): " in note, note
    assert note.endswith("run `radpatch port first --to 2.0` first, then port this entry"), note

"""A moved module is proven, and a no-match's nearest candidate read, on what the entry's
requirements leave of the release's files (as verify proves the entry), not on the bare release.
Real wheels on the loopback index."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, MOVED_WHEELS, first_entry, second_entry
from tests.lib.wheels import Wheels

FIRST = first_entry(
    "Moves with the code (a choice per layout).",
    ">=1.0,<3",
    '  core:\n    - {versions: "<2", module: rptoy.core}\n    - {versions: ">=2", module: rptoy.planning}\n',
)
SECOND = second_entry("Written on the first entry's result; declares only the old module.", ">=1.0,<3")


def test_a_moved_module_is_proven_on_the_requirements_result(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, MOVED_WHEELS)
    write_registry("first", FIRST)
    reg = write_registry("second", SECOND)
    r = radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0,<3")
    assert "second 2.0: moved: rptoy.core -> rptoy.planning (the rewrites prove there)" in r.out, r.out


def test_the_nearest_candidate_is_read_from_the_stacked_module(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, {"1.0": MOVED_WHEELS["1.0"]})
    write_registry(
        "first", FIRST.replace('find: n = len(items), with: "n = len(items) + 1"', "find: return n, with: return n + 1")
    )
    reg = write_registry(
        "second",
        SECOND.replace(
            'insert_after: {scope: size, find: "n = len(items) + 1", code: "n = min(n, 4)"}',
            "replace: {scope: size, find: return n + 2, with: return 4}",
        ),
    )
    r = radpatch("--registry", str(reg), "verify", "--all", "--versions", "==1.0")
    table = r.out.split("\n\n")[0].splitlines()
    rows = {ln.split()[0]: ln.split()[1:] for ln in table if ln.startswith(("first ", "second "))}
    assert rows == {"first": ["pass"], "second": ["no", "match"]}, r.out
    line = next(ln for ln in r.out.splitlines() if ln.startswith("second 1.0: no match"))
    assert line.endswith("return n + 1"), line  # the code as the first entry leaves it (not the release's `return n`)

"""revert lifts an applied entry stacked above a named one (takes it off, then puts it on again);
when another named entry is stacked above the lifted one, that one must come off first: each
comes off the file its own record left, newest first across named and lifted alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lib.overlaps import toy_with_entries
from tests.lib.site import Site

SRC = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n"
ENTRIES = {
    "a": '  - insert_before: {scope: f, find: return 1, code: "x = 1"}\n',
    "b": '  - insert_before: {scope: g, find: return 2, code: "x = 2"}\n',
    "c": '  - insert_before: {scope: h, find: return 3, code: "x = 3"}\n',
}


def test_reverting_the_lowest_and_the_highest_lifts_the_middle_one(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path
) -> None:
    reg, core = toy_with_entries(site, write_registry, tmp_path, SRC, ENTRIES)
    for name in ENTRIES:  # a, then b on it, then c on both
        assert radpatch("--registry", str(reg), "apply", name).code == 0
    r = radpatch("--registry", str(reg), "revert", "a", "c")
    assert r.code == 0, r.out + r.err
    assert core.read_text() == SRC.replace("    return 2", "    x = 2\n    return 2")
    assert radpatch("--registry", str(reg), "status", "--check").code == 0
    assert radpatch("--registry", str(reg), "revert", "b").code == 0
    assert core.read_text() == SRC

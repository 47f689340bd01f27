"""An entry never applied, on a file only radpatch's other entries changed (att23c N2): it reads
not applied, never drifted (nobody else changed the file), and apply's refusal names the entry
whose change is in the way instead of advising to restore the file (which would undo it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lib.overlaps import toy_with_entries
from tests.lib.site import Site

SRC = "import os\nimport sys\n\nLIMIT = 3\n\n\ndef helper(a):\n    return a + LIMIT\n"
ENTRIES = {
    "const_enc": '  - set_constant: {name: enc, value: "None"}\n',
    "imp_json": "  - add_import: {import: from json import dumps as enc}\n",
    "const_sys": '  - set_constant: {name: sys, value: "None"}\n',  # refused on the wheel's file too
}


def _states(radpatch: Any, reg: Path) -> dict[str, str]:
    r = radpatch("--registry", str(reg), "status")
    assert r.code == 0, r.out + r.err
    return {cols[0]: cols[1] for cols in (line.split() for line in r.out.splitlines()[1:]) if cols[0] in ENTRIES}


def test_a_never_applied_entry_reads_not_applied_and_apply_names_the_one_in_its_way(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path
) -> None:
    reg, core = toy_with_entries(site, write_registry, tmp_path, SRC, ENTRIES)
    assert set(_states(radpatch, reg).values()) == {"not-applied"}
    assert radpatch("--registry", str(reg), "apply", "const_enc").code == 0
    assert _states(radpatch, reg) == {"const_enc": "applied", "imp_json": "not-applied", "const_sys": "not-applied"}
    patched = core.read_bytes()
    r = radpatch("--registry", str(reg), "apply", "imp_json")
    assert r.code == 1, r.out + r.err
    # both bind `enc`: the overlap refusal names both (kz23); before it, the clash named const_enc
    assert "const_enc" in r.err and "imp_json" in r.err and "both bind" in r.err, r.err
    assert "restore" not in r.err and "drifted" not in r.err and "Traceback" not in r.err, r.err
    assert core.read_bytes() == patched
    r = radpatch("--registry", str(reg), "apply", "const_sys")  # refused by itself: the other is not in its way
    assert r.code == 1 and "const_enc" not in r.err, r.err
    assert radpatch("--registry", str(reg), "status", "--check").code == 0
    assert radpatch("--registry", str(reg), "revert", "const_enc").code == 0
    assert core.read_text() == SRC

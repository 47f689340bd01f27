"""Bytes of a patch file that are not UTF-8, where they are not code (fix63 leftovers, issue 20): in the
patch file's name, in its Subject, before its first header. The entry's summary and description held
them as surrogates, which no YAML reader takes back ("found invalid Unicode character escape code"):
the import's dry run refused its own entry (exit 1). Now they are written as `\\xHH`, and an undecodable
first line is skipped as GNU patch skips it; the entry applies and gives GNU patch's result."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lib.importing import PACKAGE, Venv, gnu_diff

pytestmark = pytest.mark.wheel

REL = f"{PACKAGE}/std_textwrap.py"
CASES = {  # case -> (the patch file's name as bytes, what goes before the diff, the summary expected)
    "name": (b"fix\xff.patch", b"", "Imported from fix\\xff.patch"),
    "subject": (b"s.patch", b"Subject: [PATCH] caf\xe9 \xff fix\n\n", "caf\\xe9 \\xff fix"),
    "first line": (b"f.patch", b"\xff", "Imported from f.patch"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bytes_that_are_not_utf8_outside_the_code_import_and_apply(venv: Venv, tmp_path: Path, case: str) -> None:
    name, before, summary = CASES[case]
    original = (venv.site / REL).read_text()
    after = original.replace("        self.width = width\n", "        self.width = width + 0\n", 1)
    diff = gnu_diff(tmp_path / "d", REL, original, after).stdout
    patch = Path(os.fsdecode(bytes(tmp_path) + b"/" + name))
    try:
        patch.write_bytes(before + diff)
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system takes no such name")
    reg = tmp_path / "reg"
    out = venv.radpatch("import", "-p1", "--out", str(reg), str(patch))
    assert out.returncode == 0, out.stderr
    (entry,) = reg.glob("*.yaml")
    text = entry.read_text(encoding="utf-8")
    assert text.startswith(f"summary: {summary}\n"), text
    applied = venv.radpatch("--registry", str(reg), "apply", entry.stem)
    assert applied.returncode == 0, applied.stderr
    assert (venv.site / REL).read_text() == after

"""The diff `port` shows (and the one `radpatch diff` and the SBOM's `pedigree.patches[].diff` carry:
state.recorded_diffs.file_diff) is a unified diff GNU `patch` applies back to the file it
describes: a last line without a newline is followed by `\\ No newline at end of file` (it ran into
the next line of the diff: `-supported: ">=1.0,<1.1"+supported: ...`), and lines split at newlines
only (a form feed or U+2028 inside a Python line is no line break for `patch`).

Generated: the key the registry file ends with (`supported:`, `modules:`, the rewrites), with or
without its last newline, LF or CRLF, ported to a release where it still proves or where its scope
moved; and texts with a form feed, U+2028, no last newline, changed at their end or elsewhere."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from radpatch.state.recorded_diffs import file_diff
from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, PKG, REWRITES

PATCH = shutil.which("patch")
pytestmark = pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")

SUPPORTED = 'supported: ">=1.0,<1.1"   # written for 1.0\n'
MODULES = f"modules:\n  planner: {PKG}.core\n"
LAST = {
    "supported": (MODULES + REWRITES, SUPPORTED),
    "modules": (SUPPORTED + REWRITES, MODULES),
    "rewrites": (SUPPORTED + MODULES, REWRITES),
}


def _patched(before: bytes, diff: str, tmp: Path) -> bytes:
    """What GNU patch makes of `before` with `diff` (it refuses a diff it cannot read)."""
    target = tmp / "target"
    target.write_bytes(before)
    done = subprocess.run(
        [str(PATCH), "--quiet", "--batch", "--binary", str(target)], input=diff.encode(), capture_output=True
    )
    assert done.returncode == 0, (done.stdout + done.stderr).decode() + diff
    return target.read_bytes()


@pytest.mark.parametrize(
    ("last", "newline", "eol", "to"),
    sample([(k, n, e, t) for k in LAST for n in (True, False) for e in ("\n", "\r\n") for t in ("1.1", "2.0")]),
)
def test_the_diff_port_shows_applies_to_the_file_it_edits(
    index: IndexServer, write_registry: Any, radpatch: Any, tmp_path: Path, last: str, newline: bool, eol: str, to: str
) -> None:
    head, tail = LAST[last]
    text = f"summary: s\ndescription: d\ndistribution: {DIST}\n{head}{tail}"
    text = (text if newline else text.rstrip("\n")).replace("\n", eol)
    reg = write_registry("cap", text)
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", to)
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_bytes()
    assert after != before
    diff = r.out[r.out.index("--- a/cap.yaml") :]
    diff = diff[: diff.index("\n  supported: ") + 1]  # the diff, up to the lines that say what changed
    assert _patched(before, diff, tmp_path) == after


TEXTS = {
    "plain": "import os\n\ndef f():\n    return 1\n",
    "form feed": "import os\n\x0c\ndef f():  # \x0c inside\n    return 1\n",
    "u2028": 'import os\nS = "a\u2028b"\ndef f():\n    return 1\n',
}
EDITS = {"the last line": ("return 1", "return 2"), "the first line": ("import os", "import sys")}


@pytest.mark.parametrize(
    ("text", "edit", "newline"),
    sample([(t, e, n) for t in TEXTS for e in EDITS for n in ("before", "after", "both", "neither")]),
)
def test_a_file_diff_applies_back(tmp_path: Path, text: str, edit: str, newline: str) -> None:
    old, new = EDITS[edit]
    before, after = TEXTS[text], TEXTS[text].replace(old, new)
    if newline in ("after", "neither"):
        before = before.rstrip("\n")
    if newline in ("before", "neither"):
        after = after.rstrip("\n")
    diff = "".join(file_diff(before.encode(), after.encode(), "m.py"))
    assert _patched(before.encode(), diff, tmp_path) == after.encode()

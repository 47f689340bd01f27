"""An image ran `patch -p1` with two patch files that change one module, the second on top of the
first; `radpatch import` of both writes entries a and b (b requires a). `apply a b` on that image must
adopt both (the file already carries b's result on top of a's), `status` reads both applied, and
`revert b` then `revert a` gives RECORD's bytes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import PACKAGE, Venv, gnu_patched_pair

pytestmark = pytest.mark.wheel

REL = f"{PACKAGE}/std_textwrap.py"


# (what the first patch changes, into what; then what the second changes in that, into what)
EDITS = {
    "apart": (
        ("        self.width = width\n", "        self.width = width + 0\n"),
        ("        self.tabsize = tabsize\n", "        self.tabsize = tabsize or 8\n"),
    ),
    "same-line": (
        ("        self.width = width\n", "        self.width = width + 0\n"),
        ("        self.width = width + 0\n", "        self.width = width + 1\n"),
    ),
    "on-inserted": (
        ("        self.width = width\n", "        self.width = width\n        self.rp_extra = 1\n"),
        ("        self.rp_extra = 1\n", "        self.rp_extra = 2\n"),
    ),
    "adjacent": (
        ("        self.width = width\n", "        self.width = width + 0\n"),
        ("        self.initial_indent = initial_indent\n", "        self.initial_indent = initial_indent or ''\n"),
    ),
}


@pytest.mark.parametrize("shape", sorted(EDITS))
def test_a_stacked_series_gnu_patch_already_applied_is_adopted_whole(
    venv: Venv, corpus_wheel: Path, tmp_path: Path, shape: str
) -> None:
    (old1, new1), (old2, new2) = EDITS[shape]
    pristine = (venv.site / REL).read_bytes()
    first = pristine.decode().replace(old1, new1, 1)
    second = first.replace(old2, new2, 1)
    assert pristine.decode() != first != second
    reg = gnu_patched_pair(venv, tmp_path, REL, pristine, first, second)
    carried = (venv.site / REL).read_bytes()

    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), "a", "b")

    assert applied.returncode == 0, applied.stderr
    assert (venv.site / REL).read_bytes() == carried
    status = venv.radpatch("--registry", str(reg), "status", "--check", "a", "b")
    assert status.returncode == 0, status.stdout + status.stderr
    states = {ln.split()[0]: ln.split()[1] for ln in status.stdout.splitlines()[1:] if ln.strip()}
    assert states == {"a": "applied", "b": "applied"}, status.stdout
    for name in ("b", "a"):
        reverted = venv.radpatch("--registry", str(reg), "revert", name)
        assert reverted.returncode == 0, reverted.stderr
    assert (venv.site / REL).read_bytes() == pristine

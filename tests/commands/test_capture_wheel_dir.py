"""`capture --wheel` takes a directory of wheels, as apply and restore do (issue 20, imp53 #2):
it took a wheel FILE only (click refused a directory). The installed version's wheel is chosen from
the directory; several builds of it: the one the installed WHEEL file's tags name; none, or several
and none built as installed: a refusal of one line and its hint, naming the directory and what to
give instead, exit code not 70, no traceback, the edited file and the registry left alone.

For each way of giving --wheel, toypkg 1.0 installed from its wheel (built by tests/lib/wheels),
offline, core.py edited by hand, then `capture`. The oracle: capture succeeds exactly when one
wheel of the installed name and version (or the one of the installed build) is among those given;
then the entry reads applied and its revert puts RECORD's bytes back."""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site, recorded_sha256
from tests.lib.toy import ORIGINAL
from tests.lib.wheels import build_wheel

CORE = "toypkg/core.py"
EXIT_INTERNAL = 70
FORMS = {  # form: whether the installed version's wheel can be told among those given
    "the wheel": True,
    "its directory": True,
    "a directory with another version too": True,
    "a directory with another build of the version too": True,
    "a directory with two builds of the version, neither as installed": False,
    "a directory of another version only": False,
    "a directory of no wheel": False,
}


def _given(tmp: Path, installed: Path, form: str) -> Path:
    """The --wheel argument of `form`, built under `tmp`."""
    if form == "the wheel":
        return installed
    folder = tmp / "given"
    folder.mkdir()
    if form in (
        "its directory",
        "a directory with another version too",
        "a directory with another build of the version too",
    ):
        shutil.copy(installed, folder)
    if form in ("a directory with another version too", "a directory of another version only"):
        build_wheel(folder, "toypkg", "1.1", ORIGINAL)
    if form == "a directory with another build of the version too":
        shutil.copy(installed, folder / "toypkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl")
    if form == "a directory with two builds of the version, neither as installed":
        shutil.copy(installed, folder / "toypkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl")
        shutil.copy(installed, folder / "toypkg-1.0-py311-none-any.whl")
    return folder


@pytest.mark.parametrize("form", sample(list(FORMS)))
def test_capture_takes_a_directory_of_wheels(
    site: Site, radpatch: Any, write_registry: Callable[..., Path], tmp_path: Path, offline: None, form: str
) -> None:
    wheel = build_wheel(tmp_path / "wheels", "toypkg", "1.0", ORIGINAL)
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site.root)
    given = _given(tmp_path, wheel, form)
    edited = ORIGINAL[CORE].decode() + "\nEXTRA = 1\n"
    (site.root / CORE).write_text(edited)
    out = tmp_path / "registry"
    done = radpatch("capture", "hand_fix", "--out", str(out), "--wheel", str(given), CORE)
    assert "Traceback" not in done.err and done.code != EXIT_INTERNAL, done.err
    if not FORMS[form]:
        assert done.code != 0
        lines = [line for line in done.err.splitlines() if line.strip()]
        assert len(lines) <= 2 and str(given) in lines[0], done.err
        assert (site.root / CORE).read_text() == edited and not (out / "hand_fix.yaml").exists()
        return
    assert done.code == 0, done.err
    assert radpatch("--registry", str(out), "status", "--check").code == 0
    assert radpatch("--registry", str(out), "revert", "hand_fix").code == 0
    record = recorded_sha256(site.root / "toypkg-1.0.dist-info" / "RECORD", CORE)
    assert hashlib.sha256((site.root / CORE).read_bytes()).hexdigest() == record

"""What `radpatch import --out` writes, as files a user writes: each entry and payload gets the mode
`open()` gives a new file under the caller's umask (mkstemp's 0600 before, att45 #7), and a file
where a directory of the entries must go (`--out` itself, OUT/NAME for the payloads) is a usage
error naming it, with nothing written (OUT/NAME a file: a NotADirectoryError traceback, exit 70,
before).

Generated over the umask and over where a file is in the way; the oracle for the mode is a file the
same process creates with `open()`, for "nothing written" the directory's listing before and after."""

from __future__ import annotations

import itertools
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import PACKAGE, Venv, clean_env

pytestmark = pytest.mark.wheel

NEW = f"{PACKAGE}/rp_new.py"  # a new module: its content is a payload under OUT/NAME
NEW_MODULE = f"--- /dev/null\n+++ b/{NEW}\n@@ -0,0 +1,2 @@\n+def rp_added(text):\n+    return text.strip()\n"
UMASKS = (0o022, 0o077, 0o002)
IN_THE_WAY = ("nothing", "out", "out/NAME")
CASES = sample(itertools.product(UMASKS, IN_THE_WAY))


def _listing(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _run(venv: Venv, umask: int, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "radpatch", "--python", str(venv.python), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=clean_env(), umask=umask, timeout=600, check=False)


def _open_mode(tmp: Path, umask: int) -> int:
    """The mode `open()` gives a new file under `umask`, asked of a process run with it."""
    probe = tmp / "probe"
    code = f"open({str(probe)!r}, 'w').close()"
    subprocess.run([sys.executable, "-c", code], umask=umask, check=True, timeout=60)
    return stat.S_IMODE(probe.stat().st_mode)


@pytest.mark.parametrize(("umask", "in_the_way"), CASES)
def test_import_out_writes_files_as_the_user_would_or_names_what_is_in_the_way(
    venv: Venv, tmp_path: Path, umask: int, in_the_way: str
) -> None:
    patch = tmp_path / "0001-add.patch"
    patch.write_text(NEW_MODULE)
    outs = tmp_path / "outs"
    outs.mkdir()
    out = outs / "reg"
    blocker = {"nothing": None, "out": out, "out/NAME": out / "added"}[in_the_way]
    if blocker is not None:
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_text("not a directory\n")
    before = _listing(outs)
    got = _run(venv, umask, "import", str(patch), "-p1", "--out", str(out), "--name", "added")
    if blocker is None:
        assert got.returncode == 0, got.stdout + got.stderr
        written = [p for p in out.rglob("*") if p.is_file()]
        assert any(p.suffix == ".yaml" for p in written) and any(p.suffix == ".py" for p in written), written
        want = _open_mode(tmp_path, umask)
        assert {str(p.relative_to(out)): stat.S_IMODE(p.stat().st_mode) for p in written} == {
            str(p.relative_to(out)): want for p in written
        }
        # the command it prints next runs on the same environment as printed (att54 #4: it left out --python,
        # and run so it said the distribution is not installed); a dry run, as the venv is shared
        printed = shlex.split(got.stdout.rsplit("try: ", 1)[1])
        assert printed[:3] == ["radpatch", "--python", str(venv.python)], got.stdout
        followed = subprocess.run(
            [sys.executable, "-m", "radpatch", *printed[1:], "--dry-run"],
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=600,
            check=False,
        )
        assert followed.returncode == 0, followed.stdout + followed.stderr
        return
    said = got.stdout + got.stderr
    assert got.returncode == 2, said
    assert f"{blocker}" in said and "is a file" in said and "Traceback" not in said, said
    assert _listing(outs) == before  # nothing written
    assert os.path.isfile(blocker)

"""End to end on a real installed distribution: rpdemo built as a wheel, pip-installed into a venv,
patched by the installed radpatch (`python -m radpatch --python <venv>/bin/python`)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.site import recorded_sha256
from tests.lib.venvs import Venv

pytestmark = pytest.mark.wheel

BEHAVIOUR = "from rpdemo.core import describe; from rpdemo.util import scale; print(describe([2, 5]), scale(2))"


def radpatch(venv: Venv, registry: Path, *argv: str, fault: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RADPATCH_REGISTRY", "RADPATCH_FAULT", "PYTHONPATH")}
    if fault:
        env["RADPATCH_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "radpatch", "--python", str(venv.python), "--registry", str(registry), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def wheel_record_sha256(venv: Venv, relpath: str) -> str | None:
    """The sha256 (hex) pip wrote into RECORD for `relpath`."""
    return recorded_sha256(venv.site / "rpdemo-1.0.0.dist-info" / "RECORD", relpath)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


MODULES = ("rpdemo/core.py", "rpdemo/util.py")


def test_status_apply_diff_check_revert(rpdemo_venv: Venv, rpdemo_registry: Path) -> None:
    assert rpdemo_venv.run(BEHAVIOUR) == "group size 4 4\n"
    originals = {rel: (rpdemo_venv.site / rel).read_bytes() for rel in MODULES}
    assert all(sha256(rpdemo_venv.site / rel) == wheel_record_sha256(rpdemo_venv, rel) for rel in MODULES)

    status = radpatch(rpdemo_venv, rpdemo_registry, "status", "rpdemo_tune")
    assert (status.returncode, status.stdout) == (
        0,
        "PATCH        STATE        INSTALLED     SUPPORTS  DETAIL\nrpdemo_tune  not-applied  rpdemo 1.0.0  >=1.0,<2\n",
    )
    assert radpatch(rpdemo_venv, rpdemo_registry, "status", "--check", "rpdemo_tune").returncode == 3

    applied = radpatch(rpdemo_venv, rpdemo_registry, "apply", "rpdemo_tune")
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == "rpdemo_tune: applied to rpdemo 1.0.0 (rpdemo.core, rpdemo.util)\n"
    assert rpdemo_venv.run(BEHAVIOUR) == "group size 15 6\n"  # max(2, 5) * 3, and 2 * 3

    diff = radpatch(rpdemo_venv, rpdemo_registry, "diff", "rpdemo_tune")
    assert diff.returncode == 0, diff.stderr
    assert "+++ b/rpdemo/core.py\n" in diff.stdout and "+++ b/rpdemo/util.py\n" in diff.stdout
    added = [ln[1:] for ln in diff.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    removed = [ln[1:] for ln in diff.stdout.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    assert "    group = _rp_pick(sizes, group)" in added and "def _rp_pick(sizes, upstream):" in added
    assert removed == ["    return x * 2"] and "    return x * 3" in added

    check = radpatch(rpdemo_venv, rpdemo_registry, "status", "--check", "rpdemo_tune")
    assert check.returncode == 0, check.stderr
    assert radpatch(rpdemo_venv, rpdemo_registry, "status", "--check").returncode == 0  # the recorded patches

    info = json.loads(radpatch(rpdemo_venv, rpdemo_registry, "status", "--json", "rpdemo_tune").stdout)[0]
    assert (info["state"], info["installed_version"]) == ("applied", "1.0.0")
    assert [f["wheel_record_match"] for f in info["files"]] == [False, False]

    reverted = radpatch(rpdemo_venv, rpdemo_registry, "revert", "rpdemo_tune")
    assert reverted.returncode == 0, reverted.stderr
    for rel in MODULES:
        assert sha256(rpdemo_venv.site / rel) == wheel_record_sha256(rpdemo_venv, rel)
        assert (rpdemo_venv.site / rel).read_bytes() == originals[rel]
    assert rpdemo_venv.run(BEHAVIOUR) == "group size 4 4\n"
    info = json.loads(radpatch(rpdemo_venv, rpdemo_registry, "status", "--json", "rpdemo_tune").stdout)[0]
    assert info["state"] == "not-applied" and [f["wheel_record_match"] for f in info["files"]] == [True, True]


def test_second_apply_writes_nothing(rpdemo_venv: Venv, rpdemo_registry: Path) -> None:
    assert radpatch(rpdemo_venv, rpdemo_registry, "apply", "rpdemo_tune").returncode == 0
    files = [rpdemo_venv.site / rel for rel in MODULES]
    stamps = [(p.stat().st_mtime_ns, p.read_bytes()) for p in files]
    again = radpatch(rpdemo_venv, rpdemo_registry, "apply", "rpdemo_tune")
    assert again.returncode == 0, again.stderr
    assert "rpdemo_tune: already applied to rpdemo 1.0.0; nothing to do" in again.stdout
    assert [(p.stat().st_mtime_ns, p.read_bytes()) for p in files] == stamps


def test_version_out_of_range_is_refused(rpdemo_venv: Venv, rpdemo_future_registry: Path) -> None:
    future = rpdemo_future_registry
    before = {
        rel: ((rpdemo_venv.site / rel).read_bytes(), (rpdemo_venv.site / rel).stat().st_mtime_ns) for rel in MODULES
    }
    refused = radpatch(rpdemo_venv, future, "apply", "rpdemo_future")
    assert refused.returncode == 1
    assert "rpdemo 1.0.0 is installed; rpdemo_future supports >=2.0" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert {
        rel: ((rpdemo_venv.site / rel).read_bytes(), (rpdemo_venv.site / rel).stat().st_mtime_ns) for rel in MODULES
    } == before
    status = radpatch(rpdemo_venv, future, "status", "rpdemo_future")
    assert status.stdout.splitlines()[1].split("  ")[:4] == ["rpdemo_future", "incompatible", "rpdemo 1.0.0", ">=2.0"]


def _same_size_same_mtime(path: Path, new: bytes) -> None:
    """Make `path` hold `new` (same length) while keeping its mtime: a same-second edit."""
    st = path.stat()
    assert len(new) == st.st_size
    if path.read_bytes() != new:
        path.write_bytes(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_no_stale_bytecode_after_a_same_size_same_second_edit(
    rpdemo_venv: Venv, rpdemo_venv_copy, rpdemo_registry: Path, tmp_path: Path
) -> None:
    util = rpdemo_venv.site / "rpdemo" / "util.py"
    patched = util.read_bytes().replace(b"x * 2", b"x * 3")
    assert rpdemo_venv.run(BEHAVIOUR) == "group size 4 4\n"  # pip's timestamp .pyc files are in place

    # control: the same edit made by hand is invisible to Python, because the old .pyc still matches
    control = rpdemo_venv_copy(tmp_path / "control")
    _same_size_same_mtime(control.site / "rpdemo" / "util.py", patched)
    assert control.run(BEHAVIOUR).split()[-1] == "4"

    mtime = util.stat().st_mtime_ns
    assert radpatch(rpdemo_venv, rpdemo_registry, "apply", "rpdemo_tune").returncode == 0
    assert util.read_bytes() == patched
    os.utime(util, ns=(mtime, mtime))  # as if radpatch had written within the original's second
    source_hash = importlib.util.source_hash(patched)
    pycs = {pyc: pyc.read_bytes() for pyc in (rpdemo_venv.site / "rpdemo" / "__pycache__").glob("util.*.pyc")}
    assert pycs, "apply wrote no bytecode for the patched module"
    for pyc, data in pycs.items():
        flags = int.from_bytes(data[4:8], "little")
        assert flags & 0b01, f"{pyc.name} is a timestamp .pyc: it cannot tell this edit from the original"
        assert data[8:16] == source_hash, f"{pyc.name} was compiled from other source"
    assert rpdemo_venv.run(BEHAVIOUR) == "group size 15 6\n"
    # the interpreter took radpatch's bytecode as valid: one it rejected (magic, flags, hash) it
    # would have compiled again and rewritten as a timestamp .pyc
    assert {pyc: pyc.read_bytes() for pyc in pycs} == pycs


def test_a_killed_apply_is_rolled_back_on_the_next_run(rpdemo_venv: Venv, rpdemo_registry: Path) -> None:
    originals = {rel: (rpdemo_venv.site / rel).read_bytes() for rel in MODULES}
    killed = radpatch(rpdemo_venv, rpdemo_registry, "apply", "rpdemo_tune", fault="after-file:1")
    assert killed.returncode == -9
    assert (rpdemo_venv.site / "rpdemo/core.py").read_bytes() != originals["rpdemo/core.py"]  # died half way
    nxt = radpatch(rpdemo_venv, rpdemo_registry, "apply", "rpdemo_tune")
    assert nxt.returncode == 0, nxt.stderr
    assert f"recovered from an interrupted run: restored {rpdemo_venv.site / 'rpdemo/core.py'}" in nxt.stdout
    assert rpdemo_venv.run(BEHAVIOUR) == "group size 15 6\n"
    assert radpatch(rpdemo_venv, rpdemo_registry, "revert", "rpdemo_tune").returncode == 0
    assert {rel: (rpdemo_venv.site / rel).read_bytes() for rel in MODULES} == originals

"""capture after radpatch's own run was interrupted (att40 #8): the files that run wrote were read as
hand edits, and capture's internal apply then completed the journal mid-command and refused. Now
capture refuses first, naming the interrupted run and what completes it, and writes no entry.

Generated: where the run was killed (after the first file, before its record)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_PATCH, Env

pytestmark = pytest.mark.wheel


@pytest.mark.parametrize("fault", ["after-file:1", "before-record:1"])
def test_capture_refuses_while_a_run_is_pending_and_writes_nothing(demo_env: Env, tmp_path: Path, fault: str) -> None:
    killed = demo_env.run("apply", DEMO_PATCH, fault=fault)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    out = tmp_path / "out"

    r = demo_env.run("capture", "mine", "--out", str(out), "--distribution", "rphard-demo")

    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert "a radpatch run was interrupted" in r.stderr and "then capture again" in r.stderr, r.stderr
    assert not out.exists() or not any(out.iterdir())
    assert (demo_env.state_dir / "journal").is_dir()  # left for the apply or revert that completes it
    done = demo_env.run("apply", DEMO_PATCH)
    assert done.returncode == 0, done.stdout + done.stderr

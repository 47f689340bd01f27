"""Running a command as the tests do: captured, bounded by a timeout, and asserted on unless told not to."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path


def run(
    *argv: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """`argv` run with this environment plus `env`; with check, a failure shows its output."""
    done = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=1800, env={**os.environ, **(env or {})}, cwd=cwd
    )
    if check:
        assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without radpatch's own settings (RADPATCH_*) and the test run's bytecode ones
    (a PYTHONPYCACHEPREFIX makes pip list each .pyc under the prefix by the venv's own path in RECORD,
    so a reinstall is another install), plus `extra`."""
    drop = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_") and k not in drop}
    env.update(extra)
    return env


def running(pid: int) -> bool:
    """Is process `pid` alive (not gone, not a zombie waiting to be reaped)? Reads /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat.rpartition(b")")[2].split()[0] != b"Z"


@contextlib.contextmanager
def pid_directory(where: Path) -> Iterator[Path]:
    """A directory the test's processes write their pids into (one empty file each); whatever
    outlived the test (a check that failed to kill it) is killed at the end, not left to run on."""
    where.mkdir()
    yield where
    for f in where.iterdir():
        if running(int(f.name)):
            os.kill(int(f.name), signal.SIGKILL)

"""Running a command as the tests do: captured, bounded by a timeout, and asserted on unless told not to."""

from __future__ import annotations

import os
import subprocess
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
    """This environment without radpatch's own settings (RADPATCH_*), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env

"""Venvs the tests install into: made without pip (a few files, quick to copy), with pip run from
this interpreter acting on them (pip >= 22.3's --python)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.lib.processes import clean_env, run
from tests.lib.tier import needs


def make_venv(dest: Path) -> Path:
    """A bare venv (no pip inside; pip runs from radpatch's interpreter with --python); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True, capture_output=True)
    return dest / "bin" / "python"


def _pip_runner() -> Path | None:
    """This interpreter's pip's `__pip-runner__.py` (pip >= 22.3), which runs that pip under another
    interpreter; None when pip is not laid out as files (a zipapp)."""
    spec = importlib.util.find_spec("pip")
    runner = Path(spec.origin).parent / "__pip-runner__.py" if spec and spec.origin else None
    return runner if runner is not None and runner.is_file() else None


def pip(python: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """pip acting on `python`'s environment: what `pip --python` does (this pip, run by `python`
    through pip's runner), without the first pip process that only starts the second."""
    needs("wheel", "runs pip on a venv")
    runner = _pip_runner()
    if runner is not None:
        cmd = [str(python), str(runner), "--disable-pip-version-check", *args]
    else:
        cmd = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=clean_env())
    if out.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out


def site_packages(venv: Path) -> Path:
    """The venv's site-packages, for this interpreter's version."""
    return venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


@dataclass(frozen=True)
class Venv:
    """A venv with a distribution pip-installed from its wheel (tests/fixtures/rpdemo)."""

    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site(self) -> Path:
        (site,) = self.root.glob("lib/python*/site-packages")
        return site

    def run(self, code: str) -> str:
        """Run `code` in this venv's interpreter (a fresh process: real imports, real bytecode)."""
        return run(self.python, "-c", code).stdout

"""Fixtures of the import tests; the helpers they use are tests/lib/importing.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.importing import DIST, Venv, clean_env, corpus_files
from tests.lib.wheels import build_wheel


@pytest.fixture(scope="session")
def corpus_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"), DIST, "1.0.0", corpus_files())


@pytest.fixture
def venv(tmp_path: Path, corpus_wheel: Path) -> Venv:
    """A fresh venv with the corpus wheel installed by pip (real dist-info, RECORD written by pip)."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, capture_output=True)
    v = Venv(root)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(v.python),
            "--disable-pip-version-check",
            "install",
            "--no-deps",
            "--no-index",
            "--no-compile",
            str(corpus_wheel),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return v

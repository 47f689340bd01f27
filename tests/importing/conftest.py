"""Fixtures of the import tests; the helpers they use are tests/lib/importing.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import DIST, Venv, corpus_files, pip_install
from tests.lib.wheels import build_wheel


@pytest.fixture(scope="session")
def corpus_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"), DIST, "1.0.0", corpus_files())


@pytest.fixture
def venv(tmp_path: Path, corpus_wheel: Path) -> Venv:
    """A fresh venv with the corpus wheel installed by pip (real dist-info, RECORD written by pip)."""
    return pip_install(tmp_path / "venv", corpus_wheel)

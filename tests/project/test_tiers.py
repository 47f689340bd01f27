"""The tiers hold: a helper that pip-installs into a venv fails a test that is not in the real tier
(tests/lib/tier.py), so the fast tier, run under every interpreter, stays in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.tier import needs
from tests.lib.venvs import make_venv, pip


def test_a_fast_test_that_would_pip_install_fails_naming_the_marker(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"runs pip on a venv: mark it @pytest.mark.wheel"):
        pip(tmp_path / "no-venv" / "bin" / "python", "install", "nothing")
    assert not (tmp_path / "no-venv").exists()


@pytest.mark.wheel
def test_a_test_in_the_real_tier_may(tmp_path: Path) -> None:
    needs("wheel", "pip-installs")
    python = make_venv(tmp_path / "venv")
    assert "pip" in pip(python, "--version").stdout

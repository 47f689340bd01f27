"""Build the rpdemo fixture wheel and pip-install it into a venv, once per session.

Each test gets its own copy of that venv (a venv without pip is a few files; a copy works because
its python finds pyvenv.cfg beside itself), so tests may patch it freely.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def _run(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done


def _project(dest: Path) -> Path:
    """Copy the fixture project; build it with hatchling if present here, else with setuptools."""
    project = dest / "rpdemo"
    shutil.copytree(FIXTURES / "rpdemo", project)
    if importlib.util.find_spec("hatchling") is None and importlib.util.find_spec("setuptools") is not None:
        toml = project / "pyproject.toml"
        text = toml.read_text().replace('requires = ["hatchling"]', 'requires = ["setuptools>=61"]')
        text = text.replace('build-backend = "hatchling.build"', 'build-backend = "setuptools.build_meta"')
        toml.write_text(text.replace("[tool.hatch.build.targets.wheel]", "[tool.setuptools]"))
    return project


def _build_wheel(project: Path, out: Path) -> Path:
    offline = importlib.util.find_spec("hatchling") or importlib.util.find_spec("setuptools")
    isolation = ["--no-build-isolation"] if offline else []  # else pip fetches the backend from the index
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "--quiet", "--wheel-dir", out, project)
    (wheel,) = out.glob("rpdemo-1.0.0-*.whl")
    return wheel


@dataclass(frozen=True)
class Venv:
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
        return _run(self.python, "-c", code).stdout


@pytest.fixture(scope="session")
def installed_template(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    base = tmp_path_factory.mktemp("rpdemo-build")
    wheel = _build_wheel(_project(base), base / "dist")
    venv = Venv(base / "venv")
    _run(sys.executable, "-m", "venv", "--without-pip", venv.root)
    _run(sys.executable, "-m", "pip", "--python", venv.python, "install", "--no-deps", "--no-index", "--quiet", wheel)
    assert (venv.site / "rpdemo-1.0.0.dist-info" / "RECORD").is_file()
    return venv


@pytest.fixture
def venv_copy(installed_template: Venv):  # type: ignore[no-untyped-def]
    """venv_copy(dest) -> a private copy of the venv with rpdemo 1.0.0 installed from its wheel."""

    def copy(dest: Path) -> Venv:
        shutil.copytree(installed_template.root, dest, symlinks=True)
        return Venv(dest)

    return copy


@pytest.fixture
def venv(venv_copy, tmp_path: Path) -> Venv:  # type: ignore[no-untyped-def]
    return venv_copy(tmp_path / "venv")  # type: ignore[no-any-return]


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    """The registry holding rpdemo_tune (a copy: registry paths appear in messages only)."""
    return Path(shutil.copytree(FIXTURES / "registry", tmp_path / "registry"))


@pytest.fixture
def future_registry(tmp_path: Path) -> Path:
    """The same patch as rpdemo_future, supported only from rpdemo 2.0."""
    return Path(shutil.copytree(FIXTURES / "registry_future", tmp_path / "future"))

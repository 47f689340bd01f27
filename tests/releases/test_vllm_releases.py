"""`radpatch verify` against the real vLLM wheels on the package index.

The first run reads, with HTTP range requests through this machine's pip settings, each
release's central directory, dist-info and target modules (well under 1 MiB of a ~300 MB
wheel) into RADPATCH_CACHE (default ~/.cache/radpatch/releases); later runs, and CI's second
run, read only the cache.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib import REPO
from tests.lib.registry import shipped_range, write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]


RANGE = [
    "0.12.0",
    "0.13.0",
    "0.14.0",
    "0.14.1",
    "0.15.0",
    "0.15.1",
    "0.16.0",
    "0.17.0",
    "0.17.1",
    "0.18.0",
    "0.18.1",
    "0.19.0",
    "0.19.1",
    "0.20.0",
    "0.20.1",
    "0.20.2",
    "0.21.0",
    "0.22.0",
    "0.22.1",
    "0.23.0",
    "0.24.0",
    "0.25.0",
    "0.25.1",
    "0.26.0",
    "0.27.0",
    "0.27.1",
    "0.28.0",
    "0.29.0",
    "0.30.0",
    "0.31.0",
    "0.32.0",
    "0.33.0",
    "0.34.0",
]
PLANNING = RANGE[RANGE.index("0.33.0") :]  # the planner in vllm/v1/core/kv_cache_planning.py
BEFORE_027 = RANGE[RANGE.index("0.22.0") : RANGE.index("0.27.0")]  # the WRONG registry's range starts at 0.22
FROM_027 = RANGE[RANGE.index("0.27.0") : RANGE.index("0.33.0")]


def verify_json(radpatch: Any, *argv: str) -> tuple[int, dict[str, Any], str]:
    r = radpatch(*argv, "--json")
    return r.code, json.loads(r.out), r.err


def test_flagship_passes_on_every_release_in_its_range(radpatch: Any) -> None:
    code, data, err = verify_json(radpatch, "verify", "kv_group_size")
    assert code == 0, err
    results = {x["version"]: x for x in data["results"]}
    assert [v for v, x in results.items() if x["in_range"]] == RANGE
    for v in RANGE:
        assert results[v]["ok"] and all(results[v]["checks"].values()), (v, results[v]["error"])
    assert all(results[v]["modules"] == ["vllm.v1.core.kv_cache_planning"] for v in PLANNING)
    before = RANGE[: RANGE.index("0.33.0")]
    assert {m for v in before for m in results[v]["modules"]} == {"vllm.v1.core.kv_cache_utils"}
    # just below the range: 0.11 has no heuristic after `group_size = min_num_layers`
    assert results["0.11.2"]["checks"]["match"] is False
    assert "choose-size-heuristic-1.25" in results["0.11.2"]["error"]
    assert data["obsolete"] == []
    # releases after the range that pass (0.34.0 once it was published) are offered, nothing else
    assert all(not results[v]["in_range"] and results[v]["ok"] for v in data["widen"]), data["widen"]
    assert "0.11.2" not in data["widen"]


def test_a_warm_run_reads_nothing_from_the_index(radpatch: Any) -> None:
    first = radpatch("verify", "kv_group_size")  # warms the cache if the test above did not
    assert first.code == 0, first.err
    code, data, err = verify_json(radpatch, "verify", "kv_group_size")
    assert code == 0, err
    assert data["fetched"] == {"releases": 0, "bytes": 0, "wheel_bytes": 0, "whole_wheels": 0}
    assert "read" not in err


def test_a_cold_run_reads_under_one_percent_of_the_wheels(
    radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Range requests against the real index: two releases (one per target module) from an empty cache.
    A release whose rewrites match is compared with the claimed release just below it
    (releases.surroundings), so a cold run reads that one too, and only that one."""
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cold"))
    code, data, err = verify_json(radpatch, "verify", "kv_group_size", "--versions", "0.27.1")
    assert code == 0, err
    fetched = data["fetched"]
    below = RANGE[RANGE.index("0.27.1") - 1]
    assert fetched["releases"] == 2 and fetched["whole_wheels"] == 0, err
    assert f"vllm {below}:" in err and "vllm 0.27.1:" in err, err
    assert 0 < fetched["bytes"] < fetched["wheel_bytes"] / 100
    code, data, err = verify_json(radpatch, "verify", "kv_group_size", "--versions", "0.33.0")
    assert code == 0 and data["results"][0]["modules"] == ["vllm.v1.core.kv_cache_planning"], err
    assert 0 < data["fetched"]["bytes"] < data["fetched"]["wheel_bytes"] / 100


WRONG = f"""\
summary: kv_group_size as written for 0.27, claimed for every release in the old module (wrong on purpose)
description: The 0.27 rewrite applied to 0.22-0.26 too, and kv_cache_utils named for 0.33.0.
distribution: vllm
supported: ">=0.22.0,<0.34"
modules:
  planner: vllm.v1.core.kv_cache_utils
rewrites:
  - id: inject-selector
    insert_definitions:
      payload: {REPO / "patches" / "kv_group_size" / "payload.py"}
      before: _get_kv_cache_groups_uniform_page_size
  - id: planner-takes-config
    add_parameter:
      function: _get_kv_cache_groups_uniform_page_size
      name: vllm_config
      default: None
  - id: caller-passes-config
    replace:
      scope: get_kv_cache_groups
      find: _get_kv_cache_groups_uniform_page_size(filtered_spec)
      with: _get_kv_cache_groups_uniform_page_size(filtered_spec, vllm_config)
  - id: choose-size
    insert_after:
      scope: _get_kv_cache_groups_uniform_page_size
      find: |
        if max_num_layers < min_num_layers * 1.5:
            group_size = max_num_layers
      code: |
        group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, vllm_config)
"""


def test_verify_catches_a_027_patch_claimed_for_every_release(radpatch: Any, tmp_path: Path) -> None:
    write_entry(tmp_path / "wrong", "kv_group_size_027_everywhere", WRONG)
    code, data, err = verify_json(
        radpatch, "--registry", str(tmp_path / "wrong"), "verify", "kv_group_size_027_everywhere"
    )
    assert code == 1
    results = {x["version"]: x for x in data["results"]}
    for v in BEFORE_027:  # anchors all found, compiles, but reads names 0.22-0.26 do not have
        assert results[v]["checks"]["match"] and results[v]["checks"]["compile"], v
        assert results[v]["checks"]["names"] is False, v
        error = results[v]["error"]
        assert error.startswith("names: the patched vllm/v1/core/kv_cache_utils.py would use undefined names: "), v
        for name in ("layer_buckets", "spec_buckets"):
            assert (
                f"`{name}` (line " in error
                and "in _get_kv_cache_groups_uniform_page_size()) is defined nowhere" in error
            ), v
    for v in FROM_027:
        assert results[v]["ok"], (v, results[v]["error"])
    moved = results["0.33.0"]  # the code moved to kv_cache_planning.py
    assert moved["checks"]["match"] is False
    assert "top-level definition '_get_kv_cache_groups_uniform_page_size' not found" in moved["error"]
    failing = ", ".join(f"{v} (names)" for v in BEFORE_027) + ", 0.33.0 (match)"
    # stderr carries the progress lines first; the error is the one summary line after them
    errors = [ln for ln in err.splitlines() if ln.startswith("radpatch: error:")]
    assert errors == [
        f"radpatch: error: kv_group_size_027_everywhere: 8 of 15 releases of vllm in >=0.22.0,<0.34 fail: {failing}"
    ]
    lines = err.splitlines()
    assert lines.index(errors[0]) > max(
        (i for i, ln in enumerate(lines) if ln.startswith("radpatch: [")), default=-1
    ), "the error must follow the progress lines"


def test_exit_codes_when_nothing_claimed_is_verified(radpatch: Any) -> None:
    """0.11.2 is a real release, but outside the declared range: reported, and exit 2 (nothing claimed)."""
    code, data, err = verify_json(radpatch, "verify", "kv_group_size", "--versions", "0.11.2")
    assert code == 2
    assert [(x["version"], x["in_range"], x["ok"]) for x in data["results"]] == [("0.11.2", False, False)]
    assert (data["claimed"], data["passed"], data["schema_version"]) == (0, 0, 1)
    assert err.splitlines()[-2] == (
        "radpatch: error: kv_group_size: none of the releases verified (0.11.2) is in the declared "
        f"range {shipped_range()}: nothing the patch claims was verified"
    )
    none = radpatch("verify", "kv_group_size", "--versions", ">=99")
    assert none.code == 2 and none.err.startswith(
        "radpatch: error: no release of vllm on the package index is in >=99\n"
    )

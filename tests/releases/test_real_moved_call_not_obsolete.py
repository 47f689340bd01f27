"""A deletion is not obsolete on a release that still makes the deleted call elsewhere (issue 23,
F2 of its attack): vLLM 0.33.0 moved `_warn_if_unannotated_eagle_mamba(...)` out of
`get_kv_cache_groups` into `get_global_kv_cache_groups`, with other arguments. Range reads of the
real 0.32.0/0.33.0 wheels (cached after the first run)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = [pytest.mark.network, pytest.mark.vllm]

NOEAGLE = """\
summary: do not warn about unannotated eagle mamba groups
description: silences the eagle annotation and warning in get_kv_cache_groups
distribution: vllm
supported: ">=0.32.0,<0.34"
modules:
  kv:
    - {versions: "<0.33", module: vllm.v1.core.kv_cache_utils}
    - {versions: ">=0.33", module: vllm.v1.core.kv_cache_planning}
rewrites:
  - id: no-eagle
    delete:
      scope: get_kv_cache_groups
      find: |
        _annotate_eagle_groups(
            vllm_config,
            kv_cache_spec,
            groups,
            use_trailing_layer_fallback=_uses_trailing_mtp_layers(vllm_config),
        )
        _warn_if_unannotated_eagle_mamba(vllm_config, groups)
"""


def test_a_deleted_call_moved_into_a_caller_upstream_is_not_obsolete(radpatch: Any, write_registry: Any) -> None:
    reg = write_registry("noeagle", NOEAGLE)
    r = radpatch("--registry", str(reg), "verify", "noeagle", "--versions", ">=0.32,<0.34", "--json")
    data = json.loads(r.out)
    results = {x["version"]: x for x in data["results"]}
    assert results["0.32.0"]["ok"], results["0.32.0"]["error"]
    assert data["obsolete"] == []
    assert results["0.33.0"]["checks"]["pristine"] is True, results["0.33.0"]["error"]
    assert "already contains" not in (results["0.33.0"]["error"] or "")

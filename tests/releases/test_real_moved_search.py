"""Against real vLLM releases (range reads of the index's wheels): a deletion upstream only moved into a
helper is not obsolete, a namesake in another model is not where the code went, and a module that
became a package is searched in it. Each fact is read from the real wheels, not typed in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.releases import moved
from radpatch.releases.wheels import Releases
from tests.lib.registry import write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels

GC = """\
summary: do not freeze the GC heap after warm-up
description: deletes the freeze_gc_heap() call
distribution: vllm
supported: "==0.32.0"
upstream: [https://github.com/vllm-project/vllm/pull/99999]
modules:
  w: vllm.v1.worker.gpu_worker
rewrites:
  - delete: {scope: Worker.compile_or_warm_up_model, find: freeze_gc_heap()}
"""
COHERE = """\
summary: Cohere2 MoE RMSNorm in float32
description: compute cohere2_moe's RMSNorm in float32
distribution: vllm
supported: "==0.32.0"
modules:
  m: vllm.model_executor.models.cohere2_moe
rewrites:
  - replace:
      scope: RMSNorm.forward
      find: rms_norm_func(hidden_states, self.weight, self.variance_epsilon)
      with: rms_norm_func(hidden_states.float(), self.weight, self.variance_epsilon).to(hidden_states.dtype)
"""
CHAT = """\
summary: read chat templates as utf-8
description: test
distribution: vllm
supported: "==0.32.0"
modules:
  cu: vllm.renderers.chat_utils
rewrites:
  - replace: {scope: _load_chat_template, find: open(chat_template), with: 'open(chat_template, encoding="utf-8")'}
"""


def read(version: str, relpath: str) -> bytes | None:
    return Releases.from_env().get("vllm", Version(version), frozenset({relpath})).read(relpath)


def test_a_deletion_upstream_moved_into_a_helper_is_not_obsolete(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    write_entry(tmp_path, "gc", GC)
    r = radpatch("--registry", str(tmp_path), "verify", "gc", "--versions", "==0.33.0", "--json")
    source = read("0.33.0", "vllm/v1/worker/gpu_worker.py")
    assert source is not None and b"freeze_gc_heap()" in source  # 0.33.0 still runs it (in a helper)
    assert json.loads(r.out)["obsolete"] == [], r.out


def test_a_namesake_in_another_model_is_not_where_the_code_went(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    write_entry(tmp_path, "cohere", COHERE)
    twin = read("0.32.0", "vllm/model_executor/models/commandr.py")
    assert twin is not None and moved.defines(twin, "RMSNorm.forward")  # the copy was there already
    r = radpatch("--registry", str(tmp_path), "port", "cohere", "--to", "0.33.0")
    assert r.code == 1 and (tmp_path / "cohere.yaml").read_text() == COHERE
    assert "-> vllm.model_executor.models.commandr" not in r.out, r.out


def test_a_module_that_became_a_package_is_found_in_it(real_index: None, radpatch: Any, tmp_path: Path) -> None:
    write_entry(tmp_path, "chat", CHAT)
    assert read("0.33.0", "vllm/renderers/chat_utils.py") is None  # a package in 0.33.0
    r = radpatch("--registry", str(tmp_path), "port", "chat", "--to", "0.33.0", "--dry-run")
    assert "0.33.0: moved: vllm.renderers.chat_utils -> vllm.renderers.chat_utils." in r.out, r.out

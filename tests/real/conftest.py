"""Transitional: tests/real/ now holds only the flagship's real tests (test_kv_group_size.py), which
move to tests/flagship/ on another branch. The fixtures that lived here are in tests/conftest.py
(radpatch_wheel, radpatch_cmd, vllm_env) and their helpers in tests/lib/; the names below are
re-exported only for the flagship's files, which import `run` from here and load this file by
path. Delete this file once those import tests.lib.processes.run and use the root fixtures."""

from __future__ import annotations

from tests.conftest import radpatch_cmd, radpatch_wheel, vllm_env
from tests.lib.processes import run
from tests.lib.vllm_release import VllmEnv

__all__ = ["VllmEnv", "radpatch_cmd", "radpatch_wheel", "run", "vllm_env"]

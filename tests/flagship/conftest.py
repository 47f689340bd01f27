"""The flagship patch's tests (kv_group_size): fast unit tests of its payload beside real-tier
tests that run vLLM's own planning functions on the CPU.

The real-tier fixtures (radpatch built into a wheel and pip-installed, pristine copies of
provisioned vLLM releases) are tests/real's: they are imported here so both tiers of the
flagship's tests share one set-up. Tests that need vLLM carry ``@pytest.mark.real``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_REAL = Path(__file__).resolve().parents[1] / "real" / "conftest.py"
_spec = importlib.util.spec_from_file_location("_radpatch_real_conftest", _REAL)
assert _spec is not None and _spec.loader is not None
_real = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _real  # dataclasses look their module up there
_spec.loader.exec_module(_real)

# pytest registers the fixtures it finds in this module's namespace
radpatch_wheel = _real.radpatch_wheel
radpatch_cmd = _real.radpatch_cmd
vllm_env = _real.vllm_env
VllmEnv = _real.VllmEnv

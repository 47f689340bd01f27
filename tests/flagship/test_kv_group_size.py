"""kv_group_size on real vLLM releases, through the installed `radpatch` command.

Every number is computed by vLLM's own get_kv_cache_groups / get_kv_cache_config_from_groups /
get_max_concurrency_for_kv_cache_config on real FullAttentionSpec / MambaSpec /
SlidingWindowSpec objects (harness/kv_probe.py), and compared with what the issue claims.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.kv_probe import BUILTIN_LAYOUTS, DEFAULTS
from tests.lib.registry import shipped_range

pytestmark = pytest.mark.real

REPO = Path(__file__).resolve().parents[2]

SEED = "qwen38_dflash"  # 48 GDN + 16 full + 5 DFlash drafter sliding-window layers, 10,412 pages
INFO_LINE = "[radiance] kv cache groups: size 8, 9 groups, 382 blocks/request (upstream would pick size 5)"
# one release per shape of the target code: 1.25 heuristic (0.12-0.17), `return planner(spec)`
# caller (0.18-0.21, first and last), same_type_layers (0.22-0.26), layer_buckets (0.27-0.32),
# kv_cache_planning.py (0.33, and 0.34, the newest release); `radpatch verify` covers every other release
SUPPORTED = ["0.17.1", "0.18.0", "0.21.0", "0.22.0", "0.26.0", "0.27.1", "0.32.0", "0.33.0", "0.34.0"]
OUT_OF_RANGE = "0.11.0"  # no heuristic after `group_size = min_num_layers`: out of scope


def knob_default(name: str) -> str:
    """A knob's default, read from the shipped registry entry."""
    text = (REPO / "registry" / "kv_group_size.yaml").read_text()
    found = re.search(rf"{name}:\s*\n\s*default:\s*\"([^\"]*)\"", text)
    assert found, name
    return found.group(1)


def upstream_numbers(r: dict[str, Any]) -> tuple[int, int, int, int]:
    return r["num_groups"], r["group_size"], r["blocks_per_request"], r["tokens"]


def messages(r: dict[str, Any]) -> list[str]:
    return [rec["message"] for rec in r["log_records"]]


@pytest.mark.parametrize("version", SUPPORTED)
def test_apply_raises_capacity_then_revert_restores_the_wheel(vllm_env, version: str) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env(version)
    status = env.status()
    assert (status["state"], status["installed_version"]) == ("not-applied", version)
    (file,) = status["files"]
    assert file["wheel_record_match"] is True
    target = env.target()
    original = target.read_bytes()

    # 1. upstream vLLM: 15 groups of 5, 738 blocks per request, 739,544 tokens
    (before,) = env.probe({"layout": SEED})
    assert upstream_numbers(before) == (15, 5, 738, 739_544)
    assert before["num_blocks"] == 2082

    # 2. apply through the installed command
    applied = env.radpatch("apply", "kv_group_size")
    assert f"kv_group_size: applied to vllm {version}" in applied.stdout
    default, off, forced, capped, tolerant = env.probe(
        {"layout": SEED},
        {"layout": SEED, "env": {"RADIANCE_KV_GROUP_OPT": "0"}},
        {"layout": SEED, "env": {"RADIANCE_KV_GROUP_SIZE": "16"}},
        {"layout": SEED, "env": {"RADIANCE_KV_GROUP_MAX_GROUPS": "8"}},
        {"layout": SEED, "env": {"RADIANCE_KV_GROUP_TOLERANCE": "3"}},
    )
    assert upstream_numbers(default) == (9, 8, 382, 892_799)
    assert default["num_blocks"] == 1301
    assert sorted(default["group_sizes"]) == [5] + [8] * 8  # 6 GDN + 2 full groups of 8, the drafter padded
    assert INFO_LINE in messages(default)
    assert len(default["drafter_groups"]) == 1

    # 3. the knobs, read at serve time
    assert upstream_numbers(off) == upstream_numbers(before)  # OPT=0: upstream's choice
    assert (forced["group_size"], forced["num_groups"]) == (16, 5)  # SIZE=16: 3 GDN + 1 full + 1 drafter
    assert capped["num_groups"] <= 8 < default["num_groups"]  # MAX_GROUPS=8 excludes size 8's 9 groups
    assert len(capped["drafter_groups"]) == 1
    assert capped["tokens"] > before["tokens"]
    # TOLERANCE=3: size 16 (5 groups) is within 3% of size 8's capacity, as vLLM plans both
    loss = 1 - forced["tokens"] / default["tokens"]
    assert 0 < loss < 0.03
    assert upstream_numbers(tolerant) == upstream_numbers(forced)
    assert any("[RADIANCE_KV_GROUP_TOLERANCE=3%: 5 groups instead of 9 (size 8)" in m for m in messages(tolerant))

    # 4. idempotent; status --check passes (named, and from the record)
    mtime = target.stat().st_mtime_ns
    again = env.radpatch("apply", "kv_group_size")
    assert "already applied" in again.stdout
    assert target.stat().st_mtime_ns == mtime
    env.radpatch("status", "--check", "kv_group_size")
    env.radpatch("status", "--check")
    assert env.status()["state"] == "applied"

    # 5. revert: byte for byte the wheel's file (RECORD's sha256); upstream's 15 groups return
    env.radpatch("revert", "kv_group_size")
    restored = target.read_bytes()
    assert restored == original
    assert hashlib.sha256(restored).hexdigest() == file["wheel_record_sha256"]
    (after,) = env.probe({"layout": SEED})
    assert upstream_numbers(after) == upstream_numbers(before)
    assert env.status()["state"] == "not-applied"
    assert env.radpatch("status", "--check", "kv_group_size", check=False).returncode == 3


def test_out_of_range_release_is_refused_and_untouched(vllm_env) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env(OUT_OF_RANGE)
    status = env.status()
    assert status["state"] == "incompatible"
    site = env.python.parent.parent
    (target,) = site.glob("lib/python*/site-packages/vllm/v1/core/kv_cache_utils.py")
    original = target.read_bytes()
    done = env.radpatch("apply", "kv_group_size", check=False)
    assert done.returncode == 1
    assert f"vllm {OUT_OF_RANGE} is installed; kv_group_size supports {shipped_range()}" in done.stderr
    assert "Traceback" not in done.stderr
    assert target.read_bytes() == original
    assert not list(target.parent.parent.parent.parent.glob(".radpatch/journal"))


def _without_speculation() -> dict[str, Any]:
    """The seed layout with no speculative config: the 5 drafter-shaped layers are ordinary."""
    layout = copy.deepcopy(BUILTIN_LAYOUTS[SEED])
    layout["speculative"] = None
    for bucket in layout["buckets"]:
        if bucket["kind"] == "mamba":
            bucket["num_speculative_blocks"] = 7  # same per-group cost as with the drafter
    return layout


@pytest.mark.parametrize("version", ["0.27.1"])
def test_drafter_is_never_split_even_where_capacity_would_gain(vllm_env, version: str) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env(version)
    env.radpatch("apply", "kv_group_size")
    # no cap, and the most capacity (size 1 is only 0.8% above size 8, which the default
    # model gives up for its 60 fewer groups)
    no_cap = {"RADIANCE_KV_GROUP_MAX_GROUPS": "100", "RADIANCE_KV_GROUP_OBJECTIVE": "capacity"}
    free, constrained = env.probe(
        {"layout": _without_speculation(), "env": no_cap},
        {"layout": SEED, "env": no_cap},
    )
    # Without a drafter, no cap: size 1 (69 groups) has the most capacity; it would put the
    # 5 drafter-shaped layers in 5 different groups.
    assert free["group_size"] == 1 and len(free["drafter_groups"]) == 5
    # With the DFlash drafter declared, the same objective never splits it.
    assert len(constrained["drafter_groups"]) == 1
    assert constrained["group_size"] >= 5
    assert constrained["tokens"] > 739_544


def test_container_build_flow(vllm_env, radpatch_wheel, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """RUN pip install radpatch && radpatch apply kv_group_size && radpatch status --check kv_group_size"""
    import subprocess
    import sys

    from tests.lib.processes import run

    env = vllm_env("0.33.0")
    pip = (sys.executable, "-m", "pip", "--python", env.python)
    run(*pip, "install", "--quiet", "--disable-pip-version-check", radpatch_wheel)
    radpatch = env.python.parent / "radpatch"
    cwd = tmp_path / "build-context"
    cwd.mkdir()
    run(radpatch, "apply", "kv_group_size", cwd=cwd)
    run(radpatch, "status", "--check", "kv_group_size", cwd=cwd)
    listing = json.loads(run(radpatch, "status", "--json", cwd=cwd).stdout)
    assert [(e["patch"], e["state"]) for e in listing] == [("kv_group_size", "applied")]
    (result,) = env.probe({"layout": SEED})
    assert upstream_numbers(result) == (9, 8, 382, 892_799)
    assert subprocess.run([str(radpatch), "revert", "kv_group_size"], cwd=cwd, check=False).returncode == 0


# ----------------------------------------------------------------------------- the tolerance

HARNESS_TOP_KEYS = set(DEFAULTS) | {"max_in_flight_tokens", "num_hidden_layers", "buckets"}
NUM_PAGES = 2**18  # an input: enough pages that vLLM's integer rounding is ~1e-5 of capacity
ROUNDING = 1e-4  # vLLM's num_blocks // and int(tokens) vs the patch's exact objective


def bench_layout(name: str) -> dict[str, Any]:
    """A benchmark layout (benchmarks/layouts/NAME.json) as a harness layout."""
    raw = json.loads((REPO / "benchmarks" / "layouts" / f"{name}.json").read_text())
    layout = {k: v for k, v in raw.items() if k in HARNESS_TOP_KEYS}
    layout["num_pages"] = NUM_PAGES
    return layout


def expected_choice(
    sweep: list[dict[str, Any]], upstream: dict[str, Any], tolerance: float, cap: int
) -> dict[str, Any]:
    """The rule, applied to vLLM's own plans of every size: admissible sizes keep the drafter
    in one group, have at most `cap` groups and no less capacity than upstream; take the one
    with the fewest groups within `tolerance` percent of the most capacity."""
    ok = [
        r
        for r in sweep
        if len(r["drafter_groups"]) <= 1
        and r["num_groups"] <= cap
        and r["tokens"] >= upstream["tokens"] * (1 - ROUNDING)
    ]
    best = max(r["tokens"] for r in ok)
    near = [r for r in ok if r["tokens"] >= best * (1 - tolerance / 100) * (1 - ROUNDING)]
    return min(near, key=lambda r: (r["num_groups"], -r["tokens"]))


@pytest.mark.parametrize("layout_name", ["06_gemma3_27b", "07_mimo_v2_flash_mtp"])
def test_floor_tolerance_takes_fewer_groups_as_vllm_plans_them(vllm_env, layout_name: str) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env("0.33.0")
    layout = bench_layout(layout_name)
    (upstream,) = env.probe({"layout": layout})
    env.radpatch("apply", "kv_group_size")
    cap = int(knob_default("RADIANCE_KV_GROUP_MAX_GROUPS"))
    default_tolerance = float(knob_default("RADIANCE_KV_GROUP_TOLERANCE"))
    tolerances = sorted({0.0, default_tolerance, 3.0, 8.0})
    # the capacity tolerance of old: never below upstream, no step cost
    floor = {"RADIANCE_KV_GROUP_OBJECTIVE": "upstream-floor", "RADIANCE_KV_GROUP_STEP_COST": "0"}
    # vLLM's plan at every size the allocator can produce (RADIANCE_KV_GROUP_SIZE forces it), and the
    # patch's choice at each tolerance: one probe process
    forced = sweep_scenarios(layout)
    probed = env.probe(
        *forced, *({"layout": layout, "env": {**floor, "RADIANCE_KV_GROUP_TOLERANCE": f"{t:g}"}} for t in tolerances)
    )
    sweep, results = sweep_from(probed[: len(forced)]), probed[len(forced) :]
    picked = {}
    for t, got in zip(tolerances, results):
        want = expected_choice(sweep, upstream, t, cap)
        assert (got["group_size"], got["num_groups"], got["tokens"]) == (
            want["group_size"],
            want["num_groups"],
            want["tokens"],
        ), t
        assert got["tokens"] >= upstream["tokens"]  # never below upstream
        assert len(got["drafter_groups"]) <= 1  # never splits the drafter
        picked[t] = got
    # the knob really trades: more tolerance, fewer groups, never more capacity
    groups = [picked[t]["num_groups"] for t in tolerances]
    assert groups == sorted(groups, reverse=True) and groups[0] > groups[-1]
    # the INFO line names the tolerance exactly when it changed the choice
    for t in tolerances:
        changed = picked[t]["group_size"] != picked[0.0]["group_size"]
        named = any("RADIANCE_KV_GROUP_TOLERANCE=" in m for m in messages(picked[t]))
        assert named == changed, t


# ------------------------------------------------------------------ the model, as vLLM plans it

EXPLOSIONS = [  # issue 24's rows whose upstream plan is above the group cap
    "11_qwen36_27b_dflash_full_drafter",
    "12_qwen36_35b_a3b_dflash_issue_geometry",
    "13_flash_next_like_singleton",
]


def issue_layout(name: str) -> dict[str, Any]:
    """A benchmark layout in its own geometry (issue 24's: 10,412 pages), as a harness layout."""
    raw = json.loads((REPO / "benchmarks" / "layouts" / f"{name}.json").read_text())
    return {k: v for k, v in raw.items() if k in HARNESS_TOP_KEYS}


def drafter_buckets(layout: dict[str, Any]) -> int:
    return sum(1 for b in layout["buckets"] if b.get("draft"))


def model_choice(sweep: list[dict[str, Any]], layout: dict[str, Any], cap: int, step_cost: float) -> dict[str, Any]:
    """The default objective applied to vLLM's own plans of every size: among plans that keep
    the drafter in one group per drafter bucket and have at most `cap` groups, the most
    tokens / (1 + step_cost% x groups); ties to fewer groups."""
    ok = [r for r in sweep if len(r["drafter_groups"]) <= max(drafter_buckets(layout), 1) and r["num_groups"] <= cap]
    return max(ok, key=lambda r: (r["tokens"] / (1 + step_cost / 100 * r["num_groups"]), -r["num_groups"]))


def sweep_scenarios(layout: dict[str, Any]) -> list[dict[str, Any]]:
    """vLLM's plan at every size its allocator can produce (RADIANCE_KV_GROUP_SIZE sets it): the
    scenarios, to probe in one process with the test's others (each probe process imports vLLM)."""
    largest = max(int(b["count"]) for b in layout["buckets"])
    return [{"layout": layout, "env": {"RADIANCE_KV_GROUP_SIZE": str(g)}} for g in range(1, largest + 1)]


def sweep_from(forced: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The distinct plans of a sweep's results (sweep_scenarios), one per group size."""
    assert all("error" not in r for r in forced)
    return list({r["group_size"]: r for r in forced}.values())


def test_explosion_rows_come_within_the_cap(vllm_env) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env("0.33.0")
    layouts = [issue_layout(n) for n in EXPLOSIONS]
    upstream = env.probe(*({"layout": lay} for lay in layouts))
    env.radpatch("apply", "kv_group_size")
    cap = int(knob_default("RADIANCE_KV_GROUP_MAX_GROUPS"))
    step_cost = float(knob_default("RADIANCE_KV_GROUP_STEP_COST"))
    # every layout's three objectives and its sweep in one probe process (each process imports vLLM)
    asked = [
        [
            {"layout": layout},
            {"layout": layout, "env": {"RADIANCE_KV_GROUP_OBJECTIVE": "upstream-floor"}},
            {"layout": layout, "env": {"RADIANCE_KV_GROUP_OBJECTIVE": "capacity"}},
            *sweep_scenarios(layout),
        ]
        for layout in layouts
    ]
    probed = iter(env.probe(*(sc for scenarios in asked for sc in scenarios)))
    answers = [[next(probed) for _ in scenarios] for scenarios in asked]
    for name, layout, up, answer in zip(EXPLOSIONS, layouts, upstream, answers):
        default, floor, most = answer[:3]
        sweep = sweep_from(answer[3:])
        # upstream: size 1, one group per layer, above the cap
        assert up["group_size"] == 1 and up["num_groups"] > cap, name
        # the default: the model's choice over vLLM's own plans, within the cap
        want = model_choice(sweep, layout, cap, step_cost)
        assert (default["group_size"], default["num_groups"], default["tokens"]) == (
            want["group_size"],
            want["num_groups"],
            want["tokens"],
        ), name
        assert default["num_groups"] <= cap
        assert len(default["drafter_groups"]) <= max(drafter_buckets(layout), 1)
        # below upstream's capacity, and the INFO line says so with both token counts (per GiB
        # of KV cache: their ratio is vLLM's tokens ratio, up to vLLM's integer rounding)
        assert default["tokens"] < up["tokens"]
        (line,) = [m for m in messages(default) if "[radiance]" in m]
        found = re.search(
            r"below upstream's capacity: ([\d,]+) instead of ([\d,]+) KV tokens per "
            rf"GiB of KV cache .* because upstream's {up['num_groups']} groups are "
            rf"above the cap of {cap}",
            line,
        )
        assert found, line
        mine, theirs = (int(found.group(i).replace(",", "")) for i in (1, 2))
        assert abs(mine / theirs - default["tokens"] / up["tokens"]) < 0.01
        # never below upstream: no size within the cap reaches it -> upstream's plan, unchanged
        assert upstream_numbers(floor) == upstream_numbers(up)
        # the most capacity within the cap: at least the default's tokens, within the cap
        assert most["num_groups"] <= cap and most["tokens"] >= default["tokens"]
        assert most["tokens"] == max(
            r["tokens"]
            for r in sweep
            if r["num_groups"] <= cap and len(r["drafter_groups"]) <= max(drafter_buckets(layout), 1)
        )


def test_the_flagship_keeps_its_numbers_under_the_model(vllm_env) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env("0.33.0")
    env.radpatch("apply", "kv_group_size")
    layout = copy.deepcopy(BUILTIN_LAYOUTS[SEED])
    default, *forced = env.probe({"layout": layout}, *sweep_scenarios(layout))
    sweep = sweep_from(forced)
    cap = int(knob_default("RADIANCE_KV_GROUP_MAX_GROUPS"))
    step_cost = float(knob_default("RADIANCE_KV_GROUP_STEP_COST"))
    want = model_choice(sweep, layout, cap, step_cost)
    assert upstream_numbers(default) == upstream_numbers(want)
    assert upstream_numbers(default) == (9, 8, 382, 892_799)  # issue 24: keep them
    assert [m for m in messages(default) if "[radiance]" in m] == [INFO_LINE]
    # the decision's margin, from vLLM's plans: size 16 (5 groups) overtakes size 8 once a
    # group costs more than the break-even share of a step, above the default
    sixteen = next(r for r in sweep if r["group_size"] == 16)
    k8, k16 = default["tokens"], sixteen["tokens"]
    n8, n16 = default["num_groups"], sixteen["num_groups"]
    break_even = 100 * (k8 - k16) / (k16 * n8 - k8 * n16)
    assert step_cost < break_even


def test_packed_path_says_the_patch_is_out_of_play(vllm_env) -> None:  # type: ignore[no-untyped-def]
    """vLLM 0.33.0 packs mixed page sizes itself on a block-outermost KV cache layout
    (_get_packed_kv_cache_groups): the plan is vLLM's, unchanged, and one INFO line says so.
    MiMo-V2-Flash's full and sliding-window layers have different page sizes."""
    env = vllm_env("0.33.0")
    mimo = issue_layout("07_mimo_v2_flash_mtp")
    mimo["num_pages"] = 20000
    packed = {**mimo, "kv_cache_layout": "BLNHC"}
    seed_packed = {**copy.deepcopy(BUILTIN_LAYOUTS[SEED]), "kv_cache_layout": "BLNHC"}
    before_packed, before_flat = env.probe({"layout": packed}, {"layout": mimo})
    env.radpatch("apply", "kv_group_size")
    after_packed, after_flat, seed_after, seed_flat = env.probe(
        {"layout": packed}, {"layout": mimo}, {"layout": seed_packed}, {"layout": SEED}
    )
    assert all("error" not in r for r in (before_packed, after_packed, seed_after))
    # vLLM packed: its groups are UniformTypeKVCacheSpecs mixing page sizes, and the patched
    # install plans exactly what the pristine one does
    assert set(after_packed["group_kinds"]) == {"UniformTypeKVCacheSpecs"}
    for key in ("num_groups", "group_sizes", "num_blocks", "tokens"):
        assert after_packed[key] == before_packed[key], key
    lines = [m for m in messages(after_packed) if "[radiance]" in m]
    assert lines == [
        (
            "[radiance] kv cache groups: kv_group_size is not in effect for this engine: vLLM packed "
            f"the layers into {after_packed['num_groups']} groups itself (KV cache layout BLNHC is "
            "block-outermost and the layers have 2 page sizes: _get_packed_kv_cache_groups), so the "
            "group size kv_group_size chooses is never used"
        )
    ]
    # the same model on the default layout: the patch chooses, and says so its usual way
    assert any(m.startswith("[radiance] kv cache groups: size") for m in messages(after_flat))
    assert not any("not in effect" in m for m in messages(after_flat))
    assert before_flat["num_groups"] > 0
    # block-outermost with one page size (the flagship: GDN state padded to the attention
    # page): vLLM does not pack, the patch is in effect, the same plan as the default layout
    assert upstream_numbers(seed_after) == upstream_numbers(seed_flat)
    assert [m for m in messages(seed_after) if "[radiance]" in m] == [INFO_LINE]

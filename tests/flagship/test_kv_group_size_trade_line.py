"""Adversarial checks of kv_group_size's issue-24 promises on layouts not in benchmarks/layouts.

Found: when upstream's size splits a one-bucket drafter (a bucket smaller than the drafter makes
upstream pick a size below the drafter's length), the plan below upstream's capacity is forced
by the drafter, yet the INFO line gave the cap or "N fewer groups" (even a negative N) as the
reason and advised RADIANCE_KV_GROUP_OBJECTIVE=upstream-floor, which gives the very same plan.
The fast tests check the chooser and the line in process; the real one confirms it on vLLM
0.33.0's own planning functions.
"""

from __future__ import annotations

import logging
import re
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patches.kv_group_size import payload as P
from tests.lib.generated import examples

CAP = 24
PAGE_AND_LEN = (1648 * 2 * 2 * 256 * 2, 262144)  # any page and length: the line's counts only


def upstream_size(sizes: list[int]) -> int:
    """vLLM 0.18+'s heuristic (kv_cache_planning._get_kv_cache_groups_uniform_page_size)."""
    lo, hi = min(sizes), max(sizes)
    return hi if hi < lo * 1.5 else lo


class Spec:
    """A KV cache spec as the payload reads it: a page size and a per-request byte count."""

    def __init__(self, blocks: int) -> None:
        self.page_size_bytes = PAGE_AND_LEN[0]
        self.bytes = blocks * PAGE_AND_LEN[0]

    def max_memory_usage_bytes(self, vllm_config: object) -> int:
        return self.bytes


class ModelConfig:
    def __init__(self, num_layers: int) -> None:
        self.num_layers = num_layers
        self.max_model_len = PAGE_AND_LEN[1]

    def get_total_num_hidden_layers(self) -> int:
        return self.num_layers


def line_suffix(sizes: list[int], costs: list[int], drafters: dict[int, list[int]]) -> tuple[Any, str]:
    """The default plan and its INFO line's suffix, through the payload's own planning entry
    (drafter recognised from layer names numbered after the target's, as vLLM names them)."""
    num_target = sum(sizes) - sum(len(p) for p in drafters.values())
    target, draft = iter(range(num_target)), iter(range(num_target, sum(sizes)))
    layers = [
        [f"model.layers.{next(draft) if p in drafters.get(b, []) else next(target)}.attn" for p in range(size)]
        for b, size in enumerate(sizes)
    ]
    config = SimpleNamespace(model_config=ModelConfig(num_target), speculative_config=SimpleNamespace())
    *chosen, note = P._radiance_plan(layers, [[Spec(c)] for c in costs], upstream_size(sizes), config)
    return tuple(chosen), note


def check_suffix(sizes: list[int], costs: list[int], drafters: dict[int, list[int]]) -> None:
    """Every promise the trade suffix makes must hold."""
    up = upstream_size(sizes)
    chosen, note = line_suffix(sizes, costs, drafters)
    if not note:
        return
    # (c) both token counts
    assert re.search(r"[\d,]+ instead of [\d,]+ KV tokens per GiB", note), note
    # a count of fewer groups is a positive number of groups upstream really has more of
    fewer = re.search(r"because (-?\d+) fewer groups", note)
    if fewer:
        up_groups = P._radiance_group_stats(sizes, costs, up)[0]
        assert int(fewer.group(1)) == up_groups - chosen[1] > 0, note
    # the advice is true: upstream-floor keeps upstream's capacity
    if "upstream-floor keeps upstream's capacity" in note:
        floor = P._radiance_choose_group_size(sizes, costs, up, drafters=drafters, objective="upstream-floor")
        assert P._radiance_objective(sizes, costs, floor[0]) <= P._radiance_objective(sizes, costs, up), note


def test_drafter_split_by_upstream_is_the_reason_not_the_cap() -> None:
    # 48 GDN, 16 full, one target layer of its own spec, a 5-layer sliding-window drafter:
    # upstream picks size 1 (70 groups) and splits the drafter over 5 groups
    sizes, costs, drafters = [48, 16, 1, 5], [9, 160, 8, 8], {3: [0, 1, 2, 3, 4]}
    assert not P._radiance_keeps_drafters(sizes, drafters, upstream_size(sizes))
    chosen, note = line_suffix(sizes, costs, drafters)
    floor = P._radiance_choose_group_size(sizes, costs, 1, drafters=drafters, objective="upstream-floor")
    assert floor[0] == chosen[0]  # upstream-floor gives the same plan ...
    assert "upstream-floor keeps" not in note  # ... so the line must not advise it
    assert "splits the drafter" in note
    check_suffix(sizes, costs, drafters)


def test_negative_fewer_groups_never_printed() -> None:
    # upstream (size 20) splits the drafter at positions 19 and 44 of the 64-layer bucket;
    # the default takes 12 groups where upstream has 8
    sizes, costs, drafters = [20, 60, 64], [320, 9, 9], {2: [19, 44]}
    chosen, note = line_suffix(sizes, costs, drafters)
    assert chosen[1] > P._radiance_group_stats(sizes, costs, 20)[0] and note
    assert not re.search(r"-\d+ fewer groups", note), note
    check_suffix(sizes, costs, drafters)


@settings(max_examples=examples(400), deadline=None)
@given(
    st.lists(st.integers(1, 70), min_size=2, max_size=5),
    st.lists(st.sampled_from([1, 7, 8, 9, 16, 64, 160, 320]), min_size=5, max_size=5),
    st.data(),
)
def test_trade_line_promises_hold_on_generated_layouts(sizes: list[int], costs: list[int], data: st.DataObject) -> None:
    costs = costs[: len(sizes)]
    b = data.draw(st.integers(0, len(sizes) - 1))
    contiguous = data.draw(st.booleans())
    if contiguous:  # a drafter registered after the target: the end of its bucket
        k = data.draw(st.integers(1, min(8, sizes[b])))
        positions = list(range(sizes[b] - k, sizes[b]))
    else:  # drafter layers of two specs merged into a target bucket
        positions = data.draw(st.lists(st.integers(0, sizes[b] - 1), min_size=1, max_size=8, unique=True))
    check_suffix(sizes, costs, {b: sorted(positions)})


def split_drafter_layout() -> dict[str, Any]:
    """Flagship geometry (block 1648, 256k context, 10,412 pages, GDN in align mode), but the
    64th target layer is a full-attention layer of its own spec (a bucket of one), so upstream
    picks size 1 and splits the 5-layer sliding-window drafter over 5 groups."""
    gdn = {
        "kind": "mamba",
        "count": 48,
        "prefix": "model.layers.{i}.linear_attn",
        "layer_ids": {"start": 0, "stop": 64, "mod": 4, "keep": [0, 1, 2]},
        "shapes": [[3, 64], [16, 128, 128]],
        "dtypes": ["bfloat16", "bfloat16"],
        "page_size_padded": "full",
        "mamba_type": "GDN_ATTN",
    }
    full = {
        "kind": "full",
        "count": 15,
        "prefix": "model.layers.{i}.self_attn.attn",
        "layer_ids": {"start": 0, "stop": 60, "mod": 4, "keep": [3]},
    }
    single = {
        "kind": "full",
        "count": 1,
        "prefix": "model.layers.{i}.self_attn.attn",
        "layer_ids": [63],
        "num_kv_heads": 4,
        "head_size": 128,
    }
    draft = {
        "kind": "sliding_window",
        "count": 5,
        "draft": True,
        "prefix": "model.layers.{i}.self_attn.attn",
        "layer_ids": {"start": 64, "stop": 69},
        "sliding_window": 2048,
    }
    return {
        "block_size": 1648,
        "num_kv_heads": 2,
        "head_size": 256,
        "dtype": "bfloat16",
        "max_model_len": 262144,
        "max_num_batched_tokens": 8192,
        "max_in_flight_tokens": 8192,
        "num_pages": 10412,
        "mamba_cache_mode": "align",
        "model_type": "qwen3_next",
        "speculative": {"method": "dflash", "num_speculative_tokens": 7},
        "num_hidden_layers": 64,
        "buckets": [gdn, full, single, draft],
    }


@pytest.mark.real
def test_split_drafter_line_on_vllm_033(vllm_env) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env("0.33.0")
    env.radpatch("apply", "kv_group_size")
    layout = split_drafter_layout()
    off, default, floor = env.probe(
        *(
            {"layout": layout, "env": knobs}
            for knobs in ({"RADIANCE_KV_GROUP_OPT": "0"}, {}, {"RADIANCE_KV_GROUP_OBJECTIVE": "upstream-floor"})
        )
    )
    # upstream: one group per layer, the drafter over several groups (it cannot serve)
    assert off["group_size"] == 1 and len(off["drafter_groups"]) > 1
    # the default keeps the drafter in one group, within the cap, below upstream's capacity
    assert len(default["drafter_groups"]) == 1 and default["num_groups"] <= CAP
    assert default["tokens"] < off["tokens"]
    # upstream-floor gives the very same plan, so the line must not point at it
    assert (floor["num_groups"], floor["tokens"]) == (default["num_groups"], default["tokens"])
    (line,) = [rec["message"] for rec in default["log_records"] if "[radiance]" in rec["message"]]
    assert re.search(r"[\d,]+ instead of [\d,]+ KV tokens per GiB", line), line
    assert "because upstream's size splits the drafter" in line and "upstream-floor keeps" not in line, line


def test_forced_plan_below_upstream_states_both_counts(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    sizes, costs = [48, 16, 5], [9, 160, 8]  # the flagship's buckets, no drafter
    layers = [[f"model.layers.{i + 100 * b}.attn" for i in range(n)] for b, n in enumerate(sizes)]
    config = SimpleNamespace(model_config=ModelConfig(400), speculative_config=None)
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", "48")  # 3 groups, far below upstream's capacity
    assert P._radiance_objective(sizes, costs, 48) > P._radiance_objective(sizes, costs, 5)
    with caplog.at_level(logging.INFO):
        assert P._radiance_kv_group_size(layers, [[Spec(c)] for c in costs], 5, config) == 48
    (line,) = [r.getMessage() for r in caplog.records if "[radiance]" in r.getMessage()]
    assert "[forced by RADIANCE_KV_GROUP_SIZE; below upstream's capacity: " in line, line
    assert re.search(r"[\d,]+ instead of [\d,]+ KV tokens per GiB", line), line


@pytest.mark.parametrize("forced", [1, 5])  # at or above upstream's capacity (upstream picks 5)
def test_forced_plan_not_below_upstream_says_forced_only(
    forced: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    sizes, costs = [48, 16, 5], [9, 160, 8]
    layers = [[f"model.layers.{i + 100 * b}.attn" for i in range(n)] for b, n in enumerate(sizes)]
    config = SimpleNamespace(model_config=ModelConfig(400), speculative_config=None)
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", str(forced))
    assert P._radiance_objective(sizes, costs, forced) <= P._radiance_objective(sizes, costs, 5)
    with caplog.at_level(logging.INFO):
        assert P._radiance_kv_group_size(layers, [[Spec(c)] for c in costs], 5, config) == forced
    (line,) = [r.getMessage() for r in caplog.records if "[radiance]" in r.getMessage()]
    assert line.endswith("[forced by RADIANCE_KV_GROUP_SIZE]") and "instead of" not in line, line


def generated_layouts(seed: int, count: int) -> list[dict[str, Any]]:
    """Hybrid layouts unlike benchmarks/layouts: GDN, full attention, sliding windows of several
    sizes, an optional one-layer bucket of its own spec and a 1-8 layer drafter; target layers
    interleaved at random; several context lengths and pool sizes."""
    import random

    rng = random.Random(seed)
    base = split_drafter_layout()
    gdn = base["buckets"][0]
    layouts = []
    for k in range(count):
        kinds: list[tuple[str, int, dict[str, Any]]] = []
        if rng.random() < 0.8:
            kinds.append(("mamba", rng.choice([3, 12, 24, 30, 36, 45, 48, 60, 96, 120]), {}))
        kinds.append(("full", rng.choice([1, 2, 4, 5, 8, 10, 12, 15, 16, 20, 40]), {}))
        for window in rng.sample([128, 512, 1024, 2048, 4096, 8192], rng.randint(0, 3)):
            kinds.append(("sliding_window", rng.choice([1, 2, 3, 5, 6, 12, 24, 39]), {"sliding_window": window}))
        if rng.random() < 0.4:
            kinds.append(("full", 1, {"num_kv_heads": 4, "head_size": 128}))
        total = sum(n for _, n, _ in kinds)
        ids = list(range(total))
        rng.shuffle(ids)
        buckets, start = [], 0
        for kind, n, extra in kinds:
            bucket = dict(gdn) if kind == "mamba" else {"kind": kind, "prefix": "model.layers.{i}.self_attn.attn"}
            bucket.update(count=n, layer_ids=sorted(ids[start : start + n]), **extra)
            buckets.append(bucket)
            start += n
        layout = {
            **base,
            "num_hidden_layers": total,
            "speculative": None,
            "max_model_len": rng.choice([32768, 131072, 262144]),
            "num_pages": rng.choice([3000, 10412, 40000]),
        }
        if rng.random() < 0.75:
            d = rng.randint(1, 8)
            draft: dict[str, Any] = {
                "kind": "sliding_window",
                "count": d,
                "draft": True,
                "sliding_window": 2048,
                "prefix": "model.layers.{i}.self_attn.attn",
                "layer_ids": list(range(total, total + d)),
            }
            buckets.append(draft)
            layout["speculative"] = {"method": "dflash", "num_speculative_tokens": 7}
        layout["buckets"] = buckets
        layout["title"] = f"attack24 generated {seed}/{k}"
        layouts.append(layout)
    return layouts


@pytest.mark.real
def test_promises_on_generated_layouts_on_vllm_033(vllm_env) -> None:  # type: ignore[no-untyped-def]
    env = vllm_env("0.33.0")
    env.radpatch("apply", "kv_group_size")
    knobs = [
        {"RADIANCE_KV_GROUP_OPT": "0"},
        {},
        {"RADIANCE_KV_GROUP_OBJECTIVE": "capacity"},
        {"RADIANCE_KV_GROUP_OBJECTIVE": "upstream-floor"},
    ]
    layouts = generated_layouts(24, 12)
    results = env.probe(*({"layout": layout, "env": k} for layout in layouts for k in knobs))
    for i, layout in enumerate(layouts):
        off, default, capacity, floor = results[4 * i : 4 * i + 4]
        sizes = [b["count"] for b in layout["buckets"]]
        drafters = {b: list(range(n["count"])) for b, n in enumerate(layout["buckets"]) if n.get("draft")}
        within = any(
            P._radiance_keeps_drafters(sizes, drafters, g)
            and P._radiance_group_stats(sizes, [0] * len(sizes), g)[0] <= CAP
            for g in range(1, max(sizes) + 1)
        )
        lines = {
            name: [rec["message"] for rec in r["log_records"] if "[radiance]" in rec["message"]]
            for name, r in (("off", off), ("default", default))
        }
        where = f"{layout['title']} {sizes}"
        assert all("error" not in r for r in (off, default, capacity, floor)), where  # (e) never raises
        assert within  # every generated layout has a size within the cap that keeps the drafter
        for r in (default, capacity, floor):  # (a) within the cap, (e) drafter in one group
            assert r["num_groups"] <= CAP or r is floor, where
            assert len(r["drafter_groups"]) <= 1 or r is floor, where
        if default["tokens"] < off["tokens"]:  # (c) both token counts
            assert re.search(r"[\d,]+ instead of [\d,]+ KV tokens", lines["default"][0]), where
        assert lines["off"] == [
            "[radiance] kv cache groups: optimisation disabled by RADIANCE_KV_GROUP_OPT=0; "
            f"keeping upstream size {off['group_size']}"
        ], where  # (d)
        assert capacity["tokens"] >= default["tokens"], where  # (d) the most capacity within the cap
        if len(off["drafter_groups"]) <= 1:  # (d) never below upstream, unless upstream cannot serve
            assert floor["tokens"] >= off["tokens"], where

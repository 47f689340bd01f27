"""Unit tests of the kv_group_size payload (pure Python; no vLLM needed).

The payload's definitions are later injected into vLLM's planning module; here they are
exercised as an ordinary module, plus once executed in a bare namespace that stands in for
vLLM's module (no imports, no `from __future__`).
"""

import ast
import builtins
import inspect
import logging
import symtable
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from patches.kv_group_size import payload as P
from tests.lib.generated import examples

SEED_SIZES = [48, 16, 5]  # GDN, full attention, drafter sliding window
SEED_COSTS = [9, 160, 8]  # blocks/request per group
SEED_PAGES = 10412
MAX_MODEL_LEN = 262144
PAGE = 1648 * 2 * 2 * 256 * 2  # any positive page size; the tests only need ratios
KNOBS = (
    "RADIANCE_KV_GROUP_OPT",
    "RADIANCE_KV_GROUP_SIZE",
    "RADIANCE_KV_GROUP_MAX_GROUPS",
    "RADIANCE_KV_GROUP_TOLERANCE",
    "RADIANCE_KV_GROUP_OBJECTIVE",
    "RADIANCE_KV_GROUP_STEP_COST",
)
# the knobs' defaults as the registry documents them; the payload must agree
_REGISTRY = yaml.safe_load((Path(__file__).resolve().parents[2] / "registry" / "kv_group_size.yaml").read_text())[
    "knobs"
]
DEFAULT_TOLERANCE = float(_REGISTRY["RADIANCE_KV_GROUP_TOLERANCE"]["default"])
DEFAULT_STEP_COST = float(_REGISTRY["RADIANCE_KV_GROUP_STEP_COST"]["default"])
DEFAULT_OBJECTIVE = _REGISTRY["RADIANCE_KV_GROUP_OBJECTIVE"]["default"]
DEFAULT_CAP = int(_REGISTRY["RADIANCE_KV_GROUP_MAX_GROUPS"]["default"])
SEED_DRAFTER = {2: [0, 1, 2, 3, 4]}
SEED_LINE = "[radiance] kv cache groups: size 8, 9 groups, 382 blocks/request (upstream would pick size 5)"


@pytest.fixture(autouse=True)
def _clean_knobs(monkeypatch: pytest.MonkeyPatch) -> None:
    for knob in KNOBS:
        monkeypatch.delenv(knob, raising=False)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def tokens(g: int, bpr: int) -> int:
    """vLLM's "KV cache size" in tokens: int(concurrency * max_model_len)."""
    return int((SEED_PAGES // g) / bpr * MAX_MODEL_LEN)


def upstream_size(sizes: list[int]) -> int:
    """vLLM 0.18+'s heuristic."""
    lo, hi = min(sizes), max(sizes)
    return hi if hi < lo * 1.5 else lo


def vllm_split(bucket_len: int, g: int) -> list[list[int]]:
    """vLLM's split of one bucket's positions: layers[i::num_groups] for group i."""
    positions = list(range(bucket_len))
    num_groups = cdiv(bucket_len, g)
    return [positions[i::num_groups] for i in range(num_groups)]


def allocator_size(sizes: list[int], g: int) -> int:
    """The group size vLLM's allocator derives from the groups: max(len(group))."""
    return max(len(group) for size in sizes for group in vllm_split(size, g))


def drafter_groups(bucket_len: int, positions: list[int], g: int) -> set[int]:
    groups = vllm_split(bucket_len, g)
    return {i for i, group in enumerate(groups) for p in positions if p in group}


# --------------------------------------------------------------------------- the table


@pytest.mark.parametrize(
    ("g", "groups", "blocks", "bpr", "toks"),
    [
        (5, 15, 2082, 738, 739_544),
        (8, 9, 1301, 382, 892_799),
        (1, 69, 10412, 3032, 900_212),
    ],
)
def test_seed_table(g: int, groups: int, blocks: int, bpr: int, toks: int) -> None:
    assert P._radiance_group_stats(SEED_SIZES, SEED_COSTS, g) == (groups, bpr)
    assert SEED_PAGES // g == blocks
    assert tokens(g, bpr) == toks


def test_padding_is_not_the_objective() -> None:
    # sizes 3, 6 and 8 all pad 3 slots, yet give different capacities
    got = {}
    for g in (3, 6, 8):
        num_groups, bpr = P._radiance_group_stats(SEED_SIZES, SEED_COSTS, g)
        assert num_groups * g - sum(SEED_SIZES) == 3
        got[g] = tokens(g, bpr)
    assert got == {3: 812_178, 6: 812_178, 8: 892_799}
    assert round(892_799 / 739_544 - 1, 3) == 0.207


def test_upstream_heuristic_picks_5_on_seed() -> None:
    assert upstream_size(SEED_SIZES) == 5


def test_chooser_picks_8_on_seed() -> None:
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5) == (8, 9, 382, "optimised")


def test_seed_size_4_ties_8_and_fewer_groups_wins() -> None:
    g4 = P._radiance_group_stats(SEED_SIZES, SEED_COSTS, 4)
    g8 = P._radiance_group_stats(SEED_SIZES, SEED_COSTS, 8)
    assert 4 * g4[1] == 8 * g8[1] and g4[0] > g8[0]
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5)[0] == 8


def test_tie_goes_to_fewer_groups() -> None:
    # g=1: 4 groups x 4 blocks = 4; g=2: 2 groups, 2*2 = 4
    assert P._radiance_choose_group_size([2, 2], [1, 1], 1) == (2, 2, 2, "optimised")
    # and reversed bucket order does not change it
    assert P._radiance_choose_group_size([2, 2], [1, 1], 2)[0] == 2


def test_max_groups_cap() -> None:
    # most capacity: size 1 (69 groups) past a cap of 100, size 16 under a cap of 8
    most = {"objective": "capacity"}
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, max_groups=100, **most)[0] == 1
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, max_groups=8, **most) == (
        16,
        5,
        195,
        "optimised",
    )
    # the default model: size 1's 60 more groups cost more than its 0.8% capacity buys
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, max_groups=100)[0] == 8
    # a cap below the number of buckets leaves nothing: upstream
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, max_groups=2) == (
        5,
        15,
        738,
        "no-candidate",
    )


def test_disabled_and_forced() -> None:
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, enabled=False) == (
        5,
        15,
        738,
        "disabled",
    )
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, forced=6) == (
        6,
        12,
        560,
        "forced",
    )
    # a forced size ignores the cap ...
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, forced=1)[:2] == (1, 69)
    # ... and is reported as the size vLLM's allocator will derive (9 splits like 8)
    assert P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, forced=9)[0] == 8
    assert allocator_size(SEED_SIZES, 9) == 8
    # disabled wins over forced
    got = P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, forced=6, enabled=False)
    assert got[0] == 5


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bucket_sizes": [], "bucket_costs": []},
        {"bucket_sizes": [4, 0], "bucket_costs": [1, 1]},
        {"bucket_sizes": [4, 2], "bucket_costs": [1]},
        {"bucket_sizes": [4, 2], "bucket_costs": [1, -1]},
        {"max_groups": 0},
        {"forced": 0},
        {"drafters": {3: [0]}},
        {"drafters": {2: [5]}},
        {"drafters": {2: [1, 1]}},
        {"drafters": {2: []}},
        {"objective": "fastest"},
        {"step_cost": -1.0},
        {"step_cost": 100.0},
        {"tolerance": 100.0},
    ],
)
def test_chooser_rejects_bad_input(kwargs: dict) -> None:
    args = {"bucket_sizes": SEED_SIZES, "bucket_costs": SEED_COSTS, "upstream_size": 5}
    args.update(kwargs)
    with pytest.raises(ValueError):
        P._radiance_choose_group_size(**args)


# --------------------------------------------------------------------------- the drafter


def test_drafter_never_split_where_objective_would_split_it() -> None:
    # most capacity, no cap: size 1 (69 groups) puts the 5 drafter layers in 5 groups
    free = P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, max_groups=100, objective="capacity")
    assert free[0] == 1 and len(drafter_groups(5, list(range(5)), 1)) == 5
    kept = P._radiance_choose_group_size(
        SEED_SIZES,
        SEED_COSTS,
        5,
        max_groups=100,
        objective="capacity",
        drafters=SEED_DRAFTER,
    )
    assert kept == (8, 9, 382, "optimised")


def test_drafter_constraint_within_default_cap() -> None:
    # 12/4/5 with costs 9/160/8: size 1 has the most capacity (788 vs 796 for size 2) with
    # 21 <= 24 groups, splitting the 5 drafter layers; kept together the best is 5.
    sizes, costs = [12, 4, 5], [9, 160, 8]
    assert P._radiance_choose_group_size(sizes, costs, 4, objective="capacity") == (1, 21, 788, "optimised")
    for objective in ("capacity", "throughput"):
        kept = P._radiance_choose_group_size(sizes, costs, 4, drafters={2: [0, 1, 2, 3, 4]}, objective=objective)
        assert kept[0] == 5 and kept[3] == "optimised"
        assert len(drafter_groups(5, [0, 1, 2, 3, 4], kept[0])) == 1


def test_drafter_sharing_a_bucket_with_target_layers() -> None:
    # EAGLE/DFlash drafter with the target's full-attention spec: bucket of 16 target + 5
    # drafter layers (positions 16..20). For capacity, 3 wins (23 groups) and strides the
    # bucket into 7 groups; the drafter needs that bucket to stay one group -> 21.
    sizes, costs, drafter = [48, 21], [9, 160], [16, 17, 18, 19, 20]
    free = P._radiance_choose_group_size(sizes, costs, 21, objective="capacity")
    assert free[0] == 3 and len(drafter_groups(21, drafter, 3)) > 1
    kept = P._radiance_choose_group_size(sizes, costs, 21, drafters={1: drafter})
    assert kept[0] == 21
    assert len(drafter_groups(21, drafter, 21)) == 1


def test_drafter_over_two_buckets_stays_in_one_group_per_bucket() -> None:
    # a DFlash head of five sliding-window layers and one full-attention layer of its own
    # spec: two buckets, so at best two drafter groups; no size may split either
    sizes, costs = [48, 16, 5, 1], [9, 160, 8, 160]
    drafters = {2: [0, 1, 2, 3, 4], 3: [0]}
    for objective in ("throughput", "capacity", "upstream-floor"):
        size, groups, _, reason = P._radiance_choose_group_size(sizes, costs, 1, drafters=drafters, objective=objective)
        if reason == "no-candidate":
            continue
        assert size >= 5 and groups <= DEFAULT_CAP
        assert P._radiance_keeps_drafters(sizes, drafters, size)


def test_strided_drafter_may_share_a_group_count_above_one() -> None:
    # positions 1 and 3 of a bucket of 4: size 2 gives 2 groups [0, 2], [1, 3] -> together
    assert P._radiance_keeps_drafter(4, [1, 3], 2)
    assert not P._radiance_keeps_drafter(4, [1, 2], 2)
    assert not P._radiance_keeps_drafter(6, [0, 3, 5], 2)  # 3 layers never fit size 2


def test_forced_size_that_splits_drafter_falls_back() -> None:
    got = P._radiance_choose_group_size(SEED_SIZES, SEED_COSTS, 5, forced=4, drafters=SEED_DRAFTER)
    assert got == (5, 15, 738, "forced-splits-drafter")


def test_upstream_floor_and_no_candidate() -> None:
    # the drafter constrained to one group of a 40-layer bucket and the cap at 3: only sizes
    # >= 100 remain; size 100 (3 groups) has less capacity than upstream's 40 (6 groups)
    sizes, costs, drafters = [40, 200], [1, 1], {0: [0, 1]}
    assert objective(sizes, costs, 100) > objective(sizes, costs, 40)
    # the default takes it (upstream's plan is above the cap) ...
    got = P._radiance_choose_group_size(sizes, costs, 40, drafters=drafters, max_groups=3)
    assert got == (100, 3, 3, "optimised")
    # ... never below upstream keeps upstream's plan
    got = P._radiance_choose_group_size(sizes, costs, 40, drafters=drafters, max_groups=3, objective="upstream-floor")
    assert got == (40, 6, 6, "no-candidate")
    # 40 + 210 layers, the big bucket dear: size 105 (3 groups) beats upstream under any objective
    for mode in ("throughput", "capacity", "upstream-floor"):
        got = P._radiance_choose_group_size([40, 210], [1, 10], 40, drafters=drafters, max_groups=3, objective=mode)
        assert got == (105, 3, 21, "optimised")
    assert 105 * 21 < 40 * P._radiance_group_stats([40, 210], [1, 10], 40)[1]
    # a cap below the bucket count leaves nothing: upstream
    got = P._radiance_choose_group_size(sizes, costs, 40, drafters=drafters, max_groups=1)
    assert got == (40, 6, 6, "no-candidate")


# --------------------------------------------------------------------------- the reference


def reference(
    sizes: list[int],
    costs: list[int],
    up: int,
    drafters: dict[int, list[int]],
    cap: int,
    mode: str,
    step_cost: float,
    tolerance: float = 0.0,
) -> tuple[int, str]:
    """The objective restated on vLLM's split (layers[i::n]), by brute force, in rationals."""
    from fractions import Fraction

    def groups_of(g: int) -> int:
        return sum(len(vllm_split(s, g)) for s in sizes)

    def obj(g: int) -> int:
        return allocator_size(sizes, g) * sum(len(vllm_split(s, g)) * c for s, c in zip(sizes, costs))

    def keeps(g: int) -> bool:
        return all(len(drafter_groups(sizes[b], pos, g)) == 1 for b, pos in drafters.items())

    options = [
        g for g in range(1, max(sizes) + 1) if allocator_size(sizes, g) == g and keeps(g) and groups_of(g) <= cap
    ]
    if mode == "upstream-floor":
        up_keeps = keeps(allocator_size(sizes, up))
        if len(drafters) != 1 or up_keeps or any(obj(g) <= obj(up) for g in options):
            options = [g for g in options if obj(g) <= obj(up)]
    if not options:
        return up, "no-candidate"
    r = Fraction(0) if mode == "capacity" else Fraction(str(step_cost))

    def score(g: int) -> Fraction:
        return obj(g) * (100 + r * groups_of(g))

    best = min(options, key=lambda g: (score(g), groups_of(g), obj(g), g))
    near = [g for g in options if score(g) * (100 - Fraction(str(tolerance))) <= score(best) * 100]
    taken = min(near, key=lambda g: (groups_of(g), score(g), obj(g), g))
    return taken, "optimised" if taken == best else "tolerance"


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.integers(1, 64), min_size=1, max_size=5),
    st.lists(st.integers(0, 400), min_size=5, max_size=5),
    st.integers(1, 40),
    st.sampled_from(["throughput", "capacity", "upstream-floor"]),
    st.sampled_from([0.0, 0.42, 1.0, 3.5]),
    st.data(),
)
def test_chooser_matches_the_reference(
    sizes: list[int],
    costs: list[int],
    cap: int,
    mode: str,
    step_cost: float,
    data: st.DataObject,
) -> None:
    costs = costs[: len(sizes)]
    up = upstream_size(sizes)
    buckets = data.draw(st.lists(st.integers(0, len(sizes) - 1), unique=True, max_size=2))
    drafters = {b: data.draw(st.lists(st.integers(0, sizes[b] - 1), min_size=1, unique=True)) for b in buckets}
    tolerance = data.draw(st.sampled_from([0.0, 0.0, 2.0, 10.0]))
    size, num_groups, bpr, reason = P._radiance_choose_group_size(
        sizes,
        costs,
        up,
        drafters=drafters,
        max_groups=cap,
        objective=mode,
        step_cost=step_cost,
        tolerance=tolerance,
    )
    assert (size, reason) == reference(sizes, costs, up, drafters, cap, mode, step_cost, tolerance)
    if reason == "no-candidate":
        # only when no size within the cap keeps the drafter together (or, never below
        # upstream, reaches upstream's capacity)
        return
    assert allocator_size(sizes, size) == size
    assert num_groups == sum(len(vllm_split(s, size)) for s in sizes) <= cap
    assert bpr == sum(cdiv(s, size) * c for s, c in zip(sizes, costs))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.integers(1, 64), min_size=2, max_size=5),
    st.lists(st.integers(1, 400), min_size=5, max_size=5),
    st.data(),
)
def test_default_never_keeps_an_explosion_when_a_size_within_the_cap_exists(
    sizes: list[int], costs: list[int], data: st.DataObject
) -> None:
    # generated layouts with a one-layer bucket (a drafter's own full-attention layer, a
    # singleton state cache): upstream's heuristic then picks size 1
    sizes = [*sizes, 1]
    costs = costs[: len(sizes) - 1] + [costs[-1]]
    up = upstream_size(sizes)
    drafted = data.draw(st.booleans())
    drafters = {len(sizes) - 1: [0]} if drafted else {}
    size, num_groups, _, reason = P._radiance_choose_group_size(sizes, costs, up, drafters=drafters)
    within = [g for g in range(1, max(sizes) + 1) if sum(cdiv(s, g) for s in sizes) <= DEFAULT_CAP]
    if within:  # a one-layer drafter bucket never constrains: every size keeps it
        assert reason == "optimised" and num_groups <= DEFAULT_CAP
    else:
        assert (size, reason) == (up, "no-candidate")
    # and the plan is on the front: no size within the cap has at least its capacity with
    # fewer groups
    if reason == "optimised":
        mine = objective(sizes, costs, size)
        for g in within:
            if allocator_size(sizes, g) != g:
                continue
            fewer = sum(cdiv(s, g) for s in sizes) < num_groups
            assert not (fewer and objective(sizes, costs, g) <= mine)


@given(st.integers(1, 40), st.integers(1, 40), st.data())
def test_keeps_drafter_matches_vllm_assignment(bucket_len: int, g: int, data: st.DataObject) -> None:
    positions = data.draw(st.lists(st.integers(0, bucket_len - 1), min_size=1, unique=True))
    expected = len(drafter_groups(bucket_len, positions, g)) == 1
    assert P._radiance_keeps_drafter(bucket_len, positions, g) == expected


# --------------------------------------------------------------------------- the model

# Published layouts' buckets and per-group costs as vLLM 0.33.0 hands them to the patch
# (benchmarks/results/capacity.md: "vLLM's layer buckets"); upstream's size from vLLM's heuristic.
GEMMA3_27B = ([52, 10], [577, 8192])
MIMO_V2_FLASH = ([9, 40], [8192, 521])


def objective(sizes: list[int], costs: list[int], g: int) -> int:
    return allocator_size(sizes, g) * sum(cdiv(s, g) * c for s, c in zip(sizes, costs))


def gap(sizes: list[int], costs: list[int], best: int, other: int) -> float:
    """How much less capacity (percent) size `other` has than size `best`."""
    return 100 * (1 - objective(sizes, costs, best) / objective(sizes, costs, other))


def break_even(sizes: list[int], costs: list[int], a: int, b: int) -> float:
    """The step cost (percent per group) at which sizes a and b model the same throughput:
    obj_a * (1 + r n_a) = obj_b * (1 + r n_b)."""
    oa, ob = objective(sizes, costs, a), objective(sizes, costs, b)
    na, nb = (sum(cdiv(s, g) for s in sizes) for g in (a, b))
    return 100 * (ob - oa) / (oa * na - ob * nb)


def choose(sizes: list[int], costs: list[int], **kw: object) -> tuple:
    return P._radiance_choose_group_size(sizes, costs, upstream_size(sizes), **kw)  # type: ignore[arg-type]


def test_the_seed_moves_to_16_only_past_its_break_even() -> None:
    # size 16 (5 groups) has 2.05% less capacity than size 8 (9 groups): it wins once a
    # group costs more than the break-even share of a step
    edge = break_even(SEED_SIZES, SEED_COSTS, 8, 16)
    assert DEFAULT_STEP_COST < edge < 0.6
    kw = {"drafters": SEED_DRAFTER}
    for r in (0.0, DEFAULT_STEP_COST, edge - 1e-6):
        assert choose(SEED_SIZES, SEED_COSTS, step_cost=r, **kw) == (8, 9, 382, "optimised")
    assert choose(SEED_SIZES, SEED_COSTS, step_cost=edge + 1e-6, **kw)[:2] == (16, 5)
    # the default knobs keep the flagship's numbers
    assert choose(
        SEED_SIZES,
        SEED_COSTS,
        step_cost=DEFAULT_STEP_COST,
        tolerance=DEFAULT_TOLERANCE,
        objective=DEFAULT_OBJECTIVE,
        **kw,
    ) == (8, 9, 382, "optimised")


def test_default_model_on_gemma3_and_mimo() -> None:
    # Gemma 3: 6 more groups for 2.5% capacity pay at the default step cost (break-even 0.44%)
    sizes, costs = GEMMA3_27B
    assert upstream_size(sizes) == 10
    assert DEFAULT_STEP_COST < break_even(sizes, costs, 5, 10)
    assert choose(sizes, costs)[:2] == (5, 13)
    # MiMo-V2-Flash: 11 more groups for 1.6% do not: upstream's size stays
    sizes, costs = MIMO_V2_FLASH
    assert choose(sizes, costs, objective="capacity")[:2] == (3, 17)
    assert DEFAULT_STEP_COST > break_even(sizes, costs, 3, 9)
    assert choose(sizes, costs)[:2] == (9, 6)


def test_explosion_rows_come_within_the_cap() -> None:
    # issue 24's rows as vLLM 0.33.0 buckets them (costs: GDN 9, full 160, SW 8 or 7)
    rows = [
        ([48, 16, 5, 1], [9, 160, 8, 160], {2: [0, 1, 2, 3, 4], 3: [0]}),
        ([30, 10, 5, 1], [9, 160, 8, 160], {2: [0, 1, 2, 3, 4], 3: [0]}),
        ([36, 12, 12, 1], [9, 160, 8, 160], {}),
    ]
    for sizes, costs, drafters in rows:
        up = upstream_size(sizes)
        assert up == 1 and sum(sizes) > DEFAULT_CAP  # upstream: one group per layer
        _, groups, _, reason = choose(sizes, costs, drafters=drafters)
        assert reason == "optimised" and groups <= DEFAULT_CAP
        # never below upstream keeps upstream's explosion (no size within the cap reaches it)
        assert choose(sizes, costs, drafters=drafters, objective="upstream-floor")[0] == 1


def test_upstream_within_the_cap_can_be_traded_for_fewer_groups() -> None:
    # #51742's review counter-example: 30 GDN, 10 full, 3 + 2 SW; upstream size 2, 23 groups.
    # Size 5 has 10 groups and 1.5% less capacity: the model takes it; the floor does not.
    sizes, costs = [30, 10, 3, 2], [9, 160, 8, 7]
    assert upstream_size(sizes) == 2
    assert choose(sizes, costs)[:2] == (5, 10)
    assert 0 < gap(sizes, costs, 2, 5) < 2
    assert choose(sizes, costs, objective="upstream-floor")[:2] == (2, 23)
    assert choose(sizes, costs, objective="capacity")[:2] == (2, 23)


@pytest.mark.parametrize("bad", [-0.5, 100.0, 250.0])
def test_tolerance_out_of_range_is_rejected(bad: float) -> None:
    with pytest.raises(ValueError):
        choose(SEED_SIZES, SEED_COSTS, tolerance=bad)


def test_tolerance_boundary_is_exact() -> None:
    # scores 180 and 200 are exactly 10% apart: 10 takes it, 9.99 does not
    assert P._radiance_within_tolerance(200, 180, 10.0)
    assert not P._radiance_within_tolerance(200, 180, 9.99)
    # the knob's decimal is taken exactly (0.1 is not a binary float)
    assert P._radiance_within_tolerance(1000, 999, 0.1)
    assert not P._radiance_within_tolerance(1000, 999, 0.09)
    assert P._radiance_within_tolerance(180, 180, 0.0)
    assert not P._radiance_within_tolerance(181, 180, 0.0)


def test_tolerance_on_the_seed() -> None:
    # under the default model size 16 scores within 0.5% of size 8: a 1% tolerance takes it
    kw = {"drafters": SEED_DRAFTER}
    assert choose(SEED_SIZES, SEED_COSTS, tolerance=0.4, **kw) == (8, 9, 382, "optimised")
    assert choose(SEED_SIZES, SEED_COSTS, tolerance=1.0, **kw) == (16, 5, 195, "tolerance")
    # never below upstream with no step cost: the old capacity tolerance
    floor = {"objective": "upstream-floor", "step_cost": 0.0, **kw}
    assert choose(SEED_SIZES, SEED_COSTS, tolerance=2.0, **floor)[:2] == (8, 9)
    assert choose(SEED_SIZES, SEED_COSTS, tolerance=gap(SEED_SIZES, SEED_COSTS, 8, 16) + 1e-9, **floor) == (
        16,
        5,
        195,
        "tolerance",
    )
    # size 24 (4 groups) is below upstream's capacity: no tolerance reaches it under the floor
    assert objective(SEED_SIZES, SEED_COSTS, 24) > objective(SEED_SIZES, SEED_COSTS, 5)
    assert choose(SEED_SIZES, SEED_COSTS, tolerance=99.0, **floor)[:2] == (16, 5)


# --------------------------------------------------------------------------- the glue


class FakeSpec:
    """Stands in for a vLLM KVCacheSpec: page size and max memory use per request."""

    def __init__(self, blocks: int, *, extra_bytes: int = 0, is_draft: bool = False) -> None:
        self.page_size_bytes = PAGE
        self.bytes = blocks * PAGE + extra_bytes
        self.is_draft = is_draft
        self.seen: list[object] = []

    def max_memory_usage_bytes(self, vllm_config: object) -> int:
        self.seen.append(vllm_config)
        return self.bytes


class BrokenSpec(FakeSpec):
    def max_memory_usage_bytes(self, vllm_config: object) -> int:
        raise RuntimeError("boom from spec")


class FakeModelConfig:
    def __init__(self, num_layers: int) -> None:
        self.num_layers = num_layers
        self.max_model_len = MAX_MODEL_LEN

    def get_total_num_hidden_layers(self) -> int:
        return self.num_layers


def make_config(num_layers: int = 64, method: str | None = "dflash") -> SimpleNamespace:
    spec = None if method is None else SimpleNamespace(method=method)
    return SimpleNamespace(model_config=FakeModelConfig(num_layers), speculative_config=spec)


def seed_buckets(
    prefix: str = "model.layers",
    drafter: str = "model.layers.{}.self_attn.attn",
    drafter_start: int = 64,
) -> tuple[list[list[str]], list[list[FakeSpec]]]:
    """Qwen3-Next-like target: 64 layers, every 4th full attention; 5-layer drafter."""
    gdn = [f"{prefix}.{i}.linear_attn" for i in range(64) if i % 4 != 3]
    full = [f"{prefix}.{i}.self_attn.attn" for i in range(64) if i % 4 == 3]
    draft = [drafter.format(drafter_start + j) for j in range(5)]
    # GDN cost 9 = 2 + 7 speculative blocks; sliding window cost rounds bytes up to pages
    specs = [[FakeSpec(9)], [FakeSpec(160)], [FakeSpec(7, extra_bytes=1)]]
    return [gdn, full, draft], specs


def test_glue_seed_picks_8_and_logs_info_line(caplog: pytest.LogCaptureFixture) -> None:
    layers, specs = seed_buckets()
    config = make_config()
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, config) == 8
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    assert [r.getMessage() for r in infos] == [SEED_LINE]
    assert infos[0].name == P.__name__
    assert specs[0][0].seen == [config]  # costs come from the spec, given the vllm_config


def test_glue_names_the_tolerance_when_it_changed_the_choice(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    layers, specs = seed_buckets()
    loss = gap(SEED_SIZES, SEED_COSTS, 8, 16)
    monkeypatch.setenv("RADIANCE_KV_GROUP_TOLERANCE", "3")
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 16
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert infos == [
        (
            "[radiance] kv cache groups: size 16, 5 groups, 195 blocks/request (upstream would "
            f"pick size 5) [RADIANCE_KV_GROUP_TOLERANCE=3%: 5 groups instead of 9 (size 8) for "
            f"{loss:.2f}% less capacity]"
        )
    ]
    # a tolerance that changes nothing is not named: the seed's exact line
    caplog.clear()
    monkeypatch.setenv("RADIANCE_KV_GROUP_TOLERANCE", "0.4%")
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 8
    assert [r.getMessage() for r in caplog.records] == [SEED_LINE]
    # a forced size ignores the tolerance
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", "6")
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 6


def test_glue_costs_round_up_and_take_bucket_max() -> None:
    specs = [[FakeSpec(2, extra_bytes=1), FakeSpec(1)], [FakeSpec(160)]]
    assert P._radiance_bucket_costs(specs, object()) == [3, 160]


def test_glue_without_vllm_config_is_upstream(caplog: pytest.LogCaptureFixture) -> None:
    layers, specs = seed_buckets()
    with caplog.at_level(logging.DEBUG, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5) == 5
        assert P._radiance_kv_group_size(layers, specs, 5, None) == 5
    assert specs[0][0].seen == []


def test_glue_exception_is_upstream_with_warning(caplog: pytest.LogCaptureFixture) -> None:
    layers, specs = seed_buckets()
    specs[1] = [BrokenSpec(160)]
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 5
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "RuntimeError: boom from spec" in warnings[0]
    assert "keeping upstream size 5" in warnings[0]


def test_glue_bad_config_is_upstream() -> None:
    layers, specs = seed_buckets()
    # speculative decoding on, but the target's layer count cannot be read
    config = SimpleNamespace(model_config=object(), speculative_config=object())
    assert P._radiance_kv_group_size(layers, specs, 5, config) == 5


def test_knob_opt_0_restores_upstream(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    layers, specs = seed_buckets()
    monkeypatch.setenv("RADIANCE_KV_GROUP_OPT", "0")
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", "6")
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 5
    assert "disabled" in caplog.text
    monkeypatch.setenv("RADIANCE_KV_GROUP_OPT", "1")
    monkeypatch.delenv("RADIANCE_KV_GROUP_SIZE")
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 8


def test_knob_size_forces(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    layers, specs = seed_buckets()
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", "6")
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 6
    assert "size 6, 12 groups, 560 blocks/request (upstream would pick size 5)" in caplog.text
    # read at each call
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", "16")
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 16
    # a forced size that would split the 5-layer drafter is refused
    monkeypatch.setenv("RADIANCE_KV_GROUP_SIZE", "4")
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 5


def test_knob_max_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    layers, specs = seed_buckets()
    monkeypatch.setenv("RADIANCE_KV_GROUP_OBJECTIVE", "capacity")  # the most capacity
    monkeypatch.setenv("RADIANCE_KV_GROUP_MAX_GROUPS", "8")
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 16
    monkeypatch.setenv("RADIANCE_KV_GROUP_MAX_GROUPS", "100")
    # no speculative decoding: size 1 (69 groups) wins ...
    assert P._radiance_kv_group_size(layers, specs, 5, make_config(method=None)) == 1
    # ... with the drafter recognised, size 1 would split it: 8 stays
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 8


@pytest.mark.parametrize(
    ("knob", "value"),
    [
        ("RADIANCE_KV_GROUP_OPT", "maybe"),
        ("RADIANCE_KV_GROUP_SIZE", "abc"),
        ("RADIANCE_KV_GROUP_SIZE", "0"),
        ("RADIANCE_KV_GROUP_SIZE", "2.5"),
        ("RADIANCE_KV_GROUP_MAX_GROUPS", "-3"),
        ("RADIANCE_KV_GROUP_MAX_GROUPS", "many"),
        ("RADIANCE_KV_GROUP_TOLERANCE", "lots"),
        ("RADIANCE_KV_GROUP_TOLERANCE", "-1"),
        ("RADIANCE_KV_GROUP_TOLERANCE", "100"),
        ("RADIANCE_KV_GROUP_TOLERANCE", "nan"),
        ("RADIANCE_KV_GROUP_TOLERANCE", "inf"),
        ("RADIANCE_KV_GROUP_OBJECTIVE", "fastest"),
        ("RADIANCE_KV_GROUP_STEP_COST", "-0.1"),
        ("RADIANCE_KV_GROUP_STEP_COST", "much"),
    ],
)
def test_malformed_knobs_fall_back_with_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, knob: str, value: str
) -> None:
    layers, specs = seed_buckets()
    monkeypatch.setenv(knob, value)
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 5
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and knob in warnings[0]


def test_knob_parsing() -> None:
    assert P._radiance_read_knobs({}) == (
        True,
        None,
        DEFAULT_CAP,
        DEFAULT_OBJECTIVE,
        DEFAULT_STEP_COST,
        DEFAULT_TOLERANCE,
    )
    assert P._radiance_read_knobs({"RADIANCE_KV_GROUP_OPT": " Off "})[:3] == (False, None, 24)
    assert P._radiance_read_knobs({"RADIANCE_KV_GROUP_SIZE": "7", "RADIANCE_KV_GROUP_MAX_GROUPS": "12"})[:3] == (
        True,
        7,
        12,
    )
    for raw, value in (("0", 0.0), (" 2.5 ", 2.5), ("3%", 3.0), ("1e1", 10.0), ("", DEFAULT_TOLERANCE)):
        assert P._radiance_read_knobs({"RADIANCE_KV_GROUP_TOLERANCE": raw})[5] == value
    for raw, value in (("1.3", 1.3), ("0%", 0.0), ("", DEFAULT_STEP_COST)):
        assert P._radiance_read_knobs({"RADIANCE_KV_GROUP_STEP_COST": raw})[4] == value
    for raw, value in ((" Capacity ", "capacity"), ("upstream-floor", "upstream-floor"), ("", DEFAULT_OBJECTIVE)):
        assert P._radiance_read_knobs({"RADIANCE_KV_GROUP_OBJECTIVE": raw})[3] == value


def explosion_buckets() -> tuple[list[list[str]], list[list[FakeSpec]]]:
    """Qwen3.6-27B + DFlash with a full-attention drafter layer of its own spec: buckets
    48 GDN / 16 full / 5 drafter SW / 1 drafter full; upstream's heuristic picks size 1."""
    layers, specs = seed_buckets()
    drafter = [f"model.layers.{64 + j}.self_attn.attn" for j in range(6)]
    return ([layers[0], layers[1], drafter[:5], drafter[5:]], [*specs, [FakeSpec(160)]])


def test_glue_states_a_trade_below_upstream_with_both_token_counts(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    layers, specs = explosion_buckets()
    sizes, costs = [len(b) for b in layers], [9, 160, 8, 160]
    with caplog.at_level(logging.INFO, logger=P.__name__):
        size = P._radiance_kv_group_size(layers, specs, 1, make_config())
    groups, bpr = P._radiance_group_stats(sizes, costs, size)
    up_groups, up_bpr = P._radiance_group_stats(sizes, costs, 1)
    assert up_groups > DEFAULT_CAP >= groups
    per_gib = [(2**30 * MAX_MODEL_LEN) // (PAGE * g * b) for g, b in ((size, bpr), (1, up_bpr))]
    loss = 100 * (1 - up_bpr / (size * bpr))
    assert [r.getMessage() for r in caplog.records] == [
        (
            f"[radiance] kv cache groups: size {size}, {groups} groups, {bpr} blocks/request "
            f"(upstream would pick size 1) [below upstream's capacity: {per_gib[0]:,} instead of "
            f"{per_gib[1]:,} KV tokens per GiB of KV cache ({loss:.2f}% less) because upstream's "
            f"{up_groups} groups are above the cap of {DEFAULT_CAP}; "
            "RADIANCE_KV_GROUP_OBJECTIVE=upstream-floor keeps upstream's capacity]"
        )
    ]
    # never below upstream: no size within the cap reaches upstream's capacity -> upstream
    caplog.clear()
    monkeypatch.setenv("RADIANCE_KV_GROUP_OBJECTIVE", "upstream-floor")
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 1, make_config()) == 1
    assert "no admissible group size (no-candidate)" in caplog.text
    # the most capacity within the cap: at least as much as the default, never more groups
    # than the cap
    monkeypatch.setenv("RADIANCE_KV_GROUP_OBJECTIVE", "capacity")
    most = P._radiance_kv_group_size(layers, specs, 1, make_config())
    assert objective(sizes, costs, most) <= objective(sizes, costs, size)
    assert P._radiance_group_stats(sizes, costs, most)[0] <= DEFAULT_CAP


def test_glue_trade_note_without_a_page_size_gives_percentages() -> None:
    note = P._radiance_trade_note([30, 10, 3, 2], [9, 160, 8, 7], (5, 10, 390, "optimised"), 2, 24, None)
    assert note.startswith(" [below upstream's capacity: 1.")
    assert "because 13 fewer groups per step" in note
    # under the floor, a trade happens only when upstream's plan splits the drafter
    floor = P._radiance_trade_note([4, 7, 23], [1, 40, 8], (7, 7, 304, "optimised"), 4, 24, None, "upstream-floor")
    assert floor.endswith("because upstream's size splits the drafter]")


def test_floor_lapses_only_for_an_upstream_plan_that_splits_the_drafter() -> None:
    # a 2-layer drafter bucket beside 5 target layers, upstream handed size 1: upstream's plan
    # puts the drafter in 2 groups (vLLM's proposer rejects it) and no size that keeps the
    # drafter reaches its capacity, so even upstream-floor trades below it
    sizes, costs, drafters = [2, 5], [1, 1], {0: [0, 1]}
    assert not P._radiance_keeps_drafters(sizes, drafters, 1)
    got = P._radiance_choose_group_size(sizes, costs, 1, drafters=drafters, objective="upstream-floor")
    assert got[3] == "optimised" and P._radiance_keeps_drafters(sizes, drafters, got[0])
    assert objective(sizes, costs, got[0]) > objective(sizes, costs, 1)
    # with the drafter over two buckets the floor holds (such a drafter is served by a runner
    # that accepts several draft groups, so upstream's plan stands)
    got = P._radiance_choose_group_size(sizes, costs, 1, drafters={0: [0, 1], 1: [0]}, objective="upstream-floor")
    assert (got[0], got[3]) == (1, "no-candidate")


class PackedGroup:
    def __init__(self, pages: list[int]) -> None:
        self.kv_cache_spec = SimpleNamespace(
            kv_cache_specs={f"layer{i}": SimpleNamespace(page_size_bytes=page) for i, page in enumerate(pages)}
        )


def test_packed_notice_says_the_patch_is_out_of_play(caplog: pytest.LogCaptureFixture) -> None:
    layout = SimpleNamespace(name="BLNHC", is_block_outermost=True)
    config = SimpleNamespace(cache_config=SimpleNamespace(get_resolved_kv_cache_layout=lambda: layout))
    groups = [PackedGroup([100, 300]), PackedGroup([100, 300]), PackedGroup([200])]
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_packed_notice(groups, config) is groups
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.INFO,
            (
                "[radiance] kv cache groups: kv_group_size is not in effect for this engine: vLLM packed "
                "the layers into 3 groups itself (KV cache layout BLNHC is block-outermost and the "
                "layers have 3 page sizes: _get_packed_kv_cache_groups), so the group size "
                "kv_group_size chooses is never used"
            ),
        )
    ]
    # vLLM did not pack (None, or no groups): nothing said, the value passed through
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_packed_notice(None, config) is None
        assert P._radiance_packed_notice([], config) == []
    assert caplog.records == []
    # a config it cannot read still gives the line, never an exception
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_packed_notice(groups, object()) is groups
    assert "not in effect for this engine" in caplog.text


# --------------------------------------------------------------------------- drafter recognition


def positions_of(layers: list[list[str]], config: object) -> dict[int, list[int]]:
    return P._radiance_drafter_positions(layers, config)


def test_recognises_indexed_drafter_layers() -> None:
    # EAGLE / EAGLE3 / DFlash heads: model.layers.{target_layers + i}
    layers, _ = seed_buckets()
    assert positions_of(layers, make_config()) == {2: [0, 1, 2, 3, 4]}
    # DeepSeek/GLM-style MTP: model.layers.{num_hidden_layers}.mtp_block...
    mtp = [
        ["model.layers.0.self_attn.attn", "model.layers.1.self_attn.attn", "model.layers.2.mtp_block.self_attn.attn"]
    ]
    assert positions_of(mtp, make_config(num_layers=2, method="deepseek_mtp")) == {0: [2]}


@pytest.mark.parametrize(
    ("target_prefix", "drafter"),
    [
        ("model.layers", "mtp.layers.{}.self_attn.attn"),  # qwen3_next / nemotron_h MTP
        ("language_model.model.layers", "mtp.layers.{}.self_attn.attn"),  # qwen3.5 MTP
        ("model.layers", "model.mtp.layers.{}.self_attn.attn"),  # mimo_v2 MTP
        ("model.layers", "draft_model.model.layers.{}.self_attn.attn"),  # draft_model
    ],
)
def test_recognises_drafters_outside_the_target_container(target_prefix: str, drafter: str) -> None:
    layers, specs = seed_buckets(prefix=target_prefix, drafter=drafter, drafter_start=0)
    assert positions_of(layers, make_config(method="mtp")) == {2: [0, 1, 2, 3, 4]}
    assert P._radiance_kv_group_size(layers, specs, 5, make_config(method="mtp")) == 8


def test_no_speculative_config_means_no_drafter() -> None:
    layers, _ = seed_buckets()
    assert positions_of(layers, make_config(method=None)) == {}


def test_glue_shared_bucket_drafter(monkeypatch: pytest.MonkeyPatch) -> None:
    # 48 GDN + (16 full + 5 drafter full with the same spec): upstream 21 is kept
    layers, _ = seed_buckets()
    shared = [layers[0], layers[1] + layers[2]]
    specs = [[FakeSpec(9)], [FakeSpec(160)]]
    assert positions_of(shared, make_config()) == {1: [16, 17, 18, 19, 20]}
    assert P._radiance_kv_group_size(shared, specs, 21, make_config()) == 21
    # without the drafter recognised the most capacity would be size 3
    monkeypatch.setenv("RADIANCE_KV_GROUP_OBJECTIVE", "capacity")
    assert P._radiance_kv_group_size(shared, specs, 21, make_config(method=None)) == 3


def test_glue_drafter_spanning_buckets_stays_in_one_group_per_bucket(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # 16 full + 2 drafter layers of the same spec share a bucket; 3 drafter layers have their
    # own: both drafter buckets must keep their drafter layers in one group
    layers, _ = seed_buckets()
    split = [layers[0], layers[1] + layers[2][:2], layers[2][2:]]
    specs = [[FakeSpec(9)], [FakeSpec(160)], [FakeSpec(8)]]
    drafters = positions_of(split, make_config())
    assert drafters == {1: [16, 17], 2: [0, 1, 2]}
    with caplog.at_level(logging.INFO, logger=P.__name__):
        size = P._radiance_kv_group_size(split, specs, 3, make_config())
    assert P._radiance_keeps_drafters([48, 18, 3], drafters, size)
    assert sum(cdiv(s, size) for s in (48, 18, 3)) <= DEFAULT_CAP
    assert "[radiance] kv cache groups: size" in caplog.text


def test_unrecognised_draft_flag_keeps_upstream(caplog: pytest.LogCaptureFixture) -> None:
    # vLLM 0.33 flags draft specs; a flagged bucket without a recognised drafter -> upstream
    layers, specs = seed_buckets()
    specs[1] = [FakeSpec(160, is_draft=True)]
    with caplog.at_level(logging.INFO, logger=P.__name__):
        assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 5
    assert "no drafter layer was recognised" in caplog.text
    # flagged where the drafter is recognised: fine
    layers, specs = seed_buckets()
    specs[2] = [FakeSpec(8, is_draft=True)]
    assert P._radiance_kv_group_size(layers, specs, 5, make_config()) == 8


def test_layer_key() -> None:
    assert P._radiance_layer_key("model.layers.64.self_attn.attn") == ("model.layers", 64)
    assert P._radiance_layer_key("mtp.layers.0.self_attn.attn") == ("mtp.layers", 0)
    assert P._radiance_layer_key("cache_only.attn") == ("cache_only.attn", -1)


# --------------------------------------------------------------------------- injectability


def test_module_holds_only_prefixed_defs() -> None:
    tree = ast.parse(inspect.getsource(P))
    names = []
    for node in tree.body:
        assert isinstance(node, ast.FunctionDef), ast.dump(node)[:80]
        assert node.name.startswith("_radiance_")
        names.append(node.name)
    assert names[-1] == "_radiance_kv_group_size"
    assert {"_radiance_choose_group_size", "_radiance_group_stats"} <= set(names)


def test_functions_only_use_builtins_and_payload_names() -> None:
    source = inspect.getsource(P)
    defined = {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}
    allowed = defined | set(dir(builtins)) | {"__name__"}

    def free_globals(table: symtable.SymbolTable) -> set[str]:
        found = {
            s.get_name() for s in table.get_symbols() if s.is_global() or (s.is_free() and table.get_type() == "module")
        }
        for child in table.get_children():
            found |= free_globals(child)
        return found

    table = symtable.symtable(source, "payload.py", "exec")
    used = set()
    for child in table.get_children():
        used |= free_globals(child)
    assert used - allowed == set()


def test_runs_injected_into_a_foreign_module(caplog: pytest.LogCaptureFixture) -> None:
    # what radpatch does: the definitions land in vLLM's module namespace
    namespace: dict[str, object] = {"__name__": "vllm.v1.core.kv_cache_utils"}
    exec(compile(inspect.getsource(P), "kv_cache_utils.py", "exec"), namespace)  # noqa: S102 -- what radpatch's injection amounts to
    layers, specs = seed_buckets()
    glue = namespace["_radiance_kv_group_size"]
    with caplog.at_level(logging.INFO, logger="vllm.v1.core.kv_cache_utils"):
        assert glue(layers, specs, 5, make_config()) == 8  # type: ignore[operator]
    assert [(r.name, r.getMessage()) for r in caplog.records] == [("vllm.v1.core.kv_cache_utils", SEED_LINE)]

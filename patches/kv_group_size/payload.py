# Payload of the kv_group_size patch.
#
# radpatch injects every top-level definition of this file into vLLM's module holding
# `_get_kv_cache_groups_uniform_page_size` (vllm/v1/core/kv_cache_utils.py, or
# kv_cache_planning.py on 0.33) and inserts, right after upstream's group-size heuristic:
#
#     group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, vllm_config)
#
# and, where vLLM packs mixed-page-size layers itself (`_get_packed_kv_cache_groups`, 0.29+),
# wraps that call in `_radiance_packed_notice(...)`, which says in the log that the patch is not
# in effect for such an engine.
#
# Rules this file obeys because its definitions are pasted into a foreign module:
# - only `def`s at top level, every name prefixed `_radiance_` (no module docstring, no imports,
#   no constants); every import happens inside a function;
# - functions use only builtins, their own locals, `__name__` and other `_radiance_` definitions;
# - annotations use builtins only, so they evaluate whether or not the host module has
#   `from __future__ import annotations` (vLLM's planning modules do not).
#
# The model (patches/kv_group_size/README.md): capacity is proportional to
# 1 / (group_size * blocks_per_request); every KV cache group costs a share r of a decode step
# (RADIANCE_KV_GROUP_STEP_COST); while the serve is KV-bound, throughput is proportional to
# capacity / (1 + r * groups). The default objective maximises that over the group sizes vLLM's
# allocator can produce, within the group cap, never splitting a speculative decoding drafter;
# RADIANCE_KV_GROUP_OBJECTIVE=capacity takes the most capacity, =upstream-floor never goes below
# upstream's capacity.


def _radiance_cdiv(a: int, b: int) -> int:
    """Ceiling division of non-negative integers (vLLM's `cdiv`)."""
    return -(-a // b)


def _radiance_group_stats(
    bucket_sizes: list[int], bucket_costs: list[int], g: int
) -> tuple[int, int]:
    """(number of groups, blocks per request) when every bucket is split with group size g.

    A bucket of L layers becomes cdiv(L, g) groups; each group costs the bucket's
    per-group blocks for every request.
    """
    num_groups = 0
    blocks_per_request = 0
    for size, cost in zip(bucket_sizes, bucket_costs):
        groups = _radiance_cdiv(size, g)
        num_groups += groups
        blocks_per_request += groups * cost
    return num_groups, blocks_per_request


def _radiance_canonical_size(bucket_sizes: list[int], g: int) -> int:
    """The group size vLLM's allocator derives after splitting the buckets with size g."""
    return max(_radiance_cdiv(size, _radiance_cdiv(size, g)) for size in bucket_sizes)


def _radiance_keeps_drafter(bucket_size: int, positions: list[int], g: int) -> bool:
    """Whether group size g keeps the layers at `positions` of a bucket in one group.

    vLLM splits a bucket of L layers into n = cdiv(L, g) groups and gives group i the
    layers [i::n], so the layer at position p lands in group p % n.
    """
    if not positions:
        return True
    if len(positions) > g:
        return False
    num_groups = _radiance_cdiv(bucket_size, g)
    return len({p % num_groups for p in positions}) == 1


def _radiance_keeps_drafters(
    bucket_sizes: list[int], drafters: dict[int, list[int]], g: int
) -> bool:
    """Whether group size g keeps each drafter bucket's drafter layers in one group.

    A drafter whose layers have different KV specs (a DFlash head of sliding-window layers and
    one full-attention layer) falls in several of vLLM's buckets and so in one group per
    bucket at best; that is what "kept together" means for it.
    """
    return all(
        _radiance_keeps_drafter(bucket_sizes[b], positions, g)
        for b, positions in drafters.items()
    )


def _radiance_validate(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    drafters: dict[int, list[int]],
    max_groups: int,
    forced: int | None,
) -> None:
    """Raise ValueError on inputs the chooser cannot reason about."""
    if not bucket_sizes or len(bucket_sizes) != len(bucket_costs):
        raise ValueError("need one cost per bucket and at least one bucket")
    if min(bucket_sizes) < 1 or min(bucket_costs) < 0:
        raise ValueError(f"bad buckets {bucket_sizes!r} / costs {bucket_costs!r}")
    if upstream_size < 1 or max_groups < 1 or (forced is not None and forced < 1):
        raise ValueError("group sizes and the group cap must be positive")
    for b, positions in drafters.items():
        if not 0 <= b < len(bucket_sizes):
            raise ValueError(f"drafter bucket {b} out of range")
        size = bucket_sizes[b]
        if not positions or len(set(positions)) != len(positions) or any(
            not 0 <= p < size for p in positions
        ):
            raise ValueError(f"bad drafter positions {positions!r} in bucket {b}")


def _radiance_choice(
    bucket_sizes: list[int], bucket_costs: list[int], g: int, reason: str
) -> tuple[int, int, int, str]:
    """The chooser's answer: (size, number of groups, blocks per request, reason)."""
    num_groups, blocks_per_request = _radiance_group_stats(bucket_sizes, bucket_costs, g)
    return g, num_groups, blocks_per_request, reason


def _radiance_objective(bucket_sizes: list[int], bucket_costs: list[int], g: int) -> int:
    """size * blocks_per_request of the size vLLM's allocator derives from g: capacity is
    proportional to its inverse (num_blocks = memory // page // size)."""
    size = _radiance_canonical_size(bucket_sizes, g)
    return size * _radiance_group_stats(bucket_sizes, bucket_costs, g)[1]


def _radiance_candidates(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    drafters: dict[int, list[int]],
    max_groups: int,
) -> list[tuple[int, int, int]]:
    """(size, objective, number of groups) of every canonical size (the size vLLM's allocator
    derives is the size itself) that keeps the drafter together and has at most `max_groups`
    groups."""
    found = []
    for g in range(1, max(bucket_sizes) + 1):
        if _radiance_canonical_size(bucket_sizes, g) != g:
            continue
        if not _radiance_keeps_drafters(bucket_sizes, drafters, g):
            continue
        num_groups, blocks_per_request = _radiance_group_stats(bucket_sizes, bucket_costs, g)
        if num_groups <= max_groups:
            found.append((g, g * blocks_per_request, num_groups))
    return found


def _radiance_percent(value: float) -> object:
    """A percentage knob's value as an exact fraction of the decimal it was written as."""
    from fractions import Fraction

    return Fraction(str(value))


def _radiance_step_score(objective: int, num_groups: int, step_cost: float) -> object:
    """What the model minimises: objective * (100 + step_cost * groups).

    KV-bound throughput is capacity / step time = (1 / objective) / (1 + r * groups) up to
    constants, r = step_cost / 100 the share of a step one group costs.
    """
    return objective * (100 + _radiance_percent(step_cost) * num_groups)  # type: ignore[operator]


def _radiance_within_tolerance(score: object, best: object, tolerance: float) -> bool:
    """Whether a size of this score is within `tolerance` percent of the best score
    (score * (100 - tolerance) <= best * 100, exact on the decimal the knob was written as)."""
    return score * (100 - _radiance_percent(tolerance)) <= best * 100  # type: ignore[operator]


def _radiance_upstream_floor(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    drafters: dict[int, list[int]],
    found: list[tuple[int, int, int]],
) -> int | None:
    """The objective no candidate may exceed under RADIANCE_KV_GROUP_OBJECTIVE=upstream-floor:
    upstream's; None (no floor) only when upstream's plan splits a drafter that lives in one
    bucket and no candidate reaches upstream's capacity: such a plan does not serve (vLLM's
    proposer asserts that all drafting layers share one group). A drafter over several buckets
    is served only by a runner that accepts several draft groups, so upstream's plan stands."""
    up_objective = _radiance_objective(bucket_sizes, bucket_costs, upstream_size)
    up = _radiance_canonical_size(bucket_sizes, upstream_size)
    if len(drafters) != 1 or _radiance_keeps_drafters(bucket_sizes, drafters, up):
        return up_objective
    if any(objective <= up_objective for _, objective, _ in found):
        return up_objective
    return None


def _radiance_pick(
    found: list[tuple[int, int, int]], step_cost: float, tolerance: float
) -> tuple[int, int]:
    """(best size, size taken) among candidates (size, objective, groups).

    The best size has the lowest score (ties: fewer groups, then more capacity); the size taken
    has the fewest groups among those within `tolerance` percent of the best score (ties: the
    lower score). With tolerance 0 both are the same.
    """
    scored = [
        (_radiance_step_score(objective, groups, step_cost), groups, objective, g)
        for g, objective, groups in found
    ]
    best = min(scored)
    near = [c for c in scored if _radiance_within_tolerance(c[0], best[0], tolerance)]
    taken = min(near, key=lambda c: (c[1], c[0], c[2], c[3]))
    return best[3], taken[3]


def _radiance_choose_group_size(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    *,
    drafters: dict[int, list[int]] | None = None,
    max_groups: int = 24,
    forced: int | None = None,
    enabled: bool = True,
    objective: str = "throughput",
    step_cost: float = 0.42,
    tolerance: float = 0.0,
) -> tuple[int, int, int, str]:
    """Pick the KV cache group size; pure and deterministic.

    Returns (size, num_groups, blocks_per_request, reason) with reason one of "optimised",
    "tolerance" (the tolerance took a size with fewer groups than the best), "forced",
    "disabled", "forced-splits-drafter", "no-candidate" (upstream's size is returned).
    `drafters` maps a bucket index to the positions of the drafter's layers in it.

    Candidates: the sizes vLLM's allocator can produce that keep each drafter bucket in one
    group and give at most `max_groups` groups. Among them, by `objective`:
    "throughput" -- the lowest size * blocks_per_request * (1 + step_cost% * groups);
    "capacity" -- the lowest size * blocks_per_request (most capacity), ties to fewer groups;
    "upstream-floor" -- "throughput" restricted to sizes with no less capacity than upstream.
    A plan above the cap is kept only when no size within the cap keeps the drafter together
    (or, for "upstream-floor", reaches upstream's capacity).
    """
    table = dict(drafters or {})
    _radiance_validate(bucket_sizes, bucket_costs, upstream_size, table, max_groups, forced)
    if objective not in ("throughput", "capacity", "upstream-floor"):
        raise ValueError(f"objective {objective!r} is not throughput, capacity or upstream-floor")
    if not 0 <= tolerance < 100 or not 0 <= step_cost < 100:
        raise ValueError("tolerance and step cost are percentages in [0, 100)")
    if not enabled:
        return _radiance_choice(bucket_sizes, bucket_costs, upstream_size, "disabled")
    if forced is not None:
        size = _radiance_canonical_size(bucket_sizes, forced)
        if not _radiance_keeps_drafters(bucket_sizes, table, size):
            return _radiance_choice(
                bucket_sizes, bucket_costs, upstream_size, "forced-splits-drafter"
            )
        return _radiance_choice(bucket_sizes, bucket_costs, size, "forced")
    found = _radiance_candidates(bucket_sizes, bucket_costs, table, max_groups)
    if objective == "upstream-floor":
        floor = _radiance_upstream_floor(
            bucket_sizes, bucket_costs, upstream_size, table, found
        )
        if floor is not None:
            found = [c for c in found if c[1] <= floor]
    if not found:
        return _radiance_choice(bucket_sizes, bucket_costs, upstream_size, "no-candidate")
    cost = 0.0 if objective == "capacity" else step_cost
    best, taken = _radiance_pick(found, cost, tolerance)
    reason = "optimised" if taken == best else "tolerance"
    return _radiance_choice(bucket_sizes, bucket_costs, taken, reason)


def _radiance_positive_int_knob(environ: dict[str, str], name: str) -> int | None:
    """An environment knob holding a positive integer; None when unset or empty."""
    raw = environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not an integer") from None
    if value < 1:
        raise ValueError(f"{name}={raw!r} must be a positive integer")
    return value


def _radiance_percent_knob(environ: dict[str, str], name: str, default: float) -> float:
    """A percentage knob in [0, 100), "%" allowed."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    text = raw[:-1].strip() if raw.endswith("%") else raw
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number (a percentage)") from None
    if not 0 <= value < 100:
        raise ValueError(f"{name}={raw!r} must be a percentage in [0, 100)")
    return value


def _radiance_read_knobs(
    environ: dict[str, str],
) -> tuple[bool, int | None, int, str, float, float]:
    """(enabled, forced size, max groups, objective, step cost %, tolerance %) from the
    environment; ValueError if malformed."""
    raw = environ.get("RADIANCE_KV_GROUP_OPT", "").strip().lower()
    if raw in ("", "1", "true", "yes", "on"):
        enabled = True
    elif raw in ("0", "false", "no", "off"):
        enabled = False
    else:
        raise ValueError(f"RADIANCE_KV_GROUP_OPT={raw!r} is not 0 or 1")
    forced = _radiance_positive_int_knob(environ, "RADIANCE_KV_GROUP_SIZE")
    max_groups = _radiance_positive_int_knob(environ, "RADIANCE_KV_GROUP_MAX_GROUPS")
    objective = environ.get("RADIANCE_KV_GROUP_OBJECTIVE", "").strip().lower() or "throughput"
    if objective not in ("throughput", "capacity", "upstream-floor"):
        raise ValueError(
            f"RADIANCE_KV_GROUP_OBJECTIVE={objective!r} is not throughput, capacity or "
            "upstream-floor"
        )
    step_cost = _radiance_percent_knob(environ, "RADIANCE_KV_GROUP_STEP_COST", 0.42)
    tolerance = _radiance_percent_knob(environ, "RADIANCE_KV_GROUP_TOLERANCE", 0.0)
    return (enabled, forced, 24 if max_groups is None else max_groups, objective, step_cost,
            tolerance)


def _radiance_bucket_costs(spec_buckets: list[list[object]], vllm_config: object) -> list[int]:
    """Per-group blocks a request reserves, per bucket: the max over the bucket's specs of
    cdiv(spec.max_memory_usage_bytes(vllm_config), spec.page_size_bytes)."""
    costs = []
    for specs in spec_buckets:
        cost = max(
            _radiance_cdiv(
                int(spec.max_memory_usage_bytes(vllm_config)),  # type: ignore[attr-defined]
                int(spec.page_size_bytes),  # type: ignore[attr-defined]
            )
            for spec in specs
        )
        costs.append(cost)
    return costs


def _radiance_layer_key(name: str) -> tuple[str, int]:
    """(container, layer index) of a layer name: "model.layers.64.self_attn.attn" gives
    ("model.layers", 64); a name without an integer component gives (name, -1)."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.isdigit():
            return ".".join(parts[:i]), int(part)
    return name, -1


def _radiance_target_num_layers(vllm_config: object) -> int:
    """The target model's hidden-layer count (the smallest of vLLM's views of it).

    Drafters number their layers from it: EAGLE/EAGLE3/DFlash heads use
    `model_config.get_num_layers(parallel_config)` (<= 0.29) or
    `get_total_num_hidden_layers()` (0.30+), MTP layers `config.num_hidden_layers`.
    """
    model_config = vllm_config.model_config  # type: ignore[attr-defined]
    found = []
    for read in (
        lambda: model_config.get_total_num_hidden_layers(),
        lambda: model_config.get_num_layers(vllm_config.parallel_config),  # type: ignore[attr-defined]
        lambda: model_config.hf_text_config.num_hidden_layers,
    ):
        try:
            value = read()  # type: ignore[no-untyped-call]
        except Exception:  # noqa: BLE001, S112 -- each accessor exists in some releases only
            continue
        if isinstance(value, int) and value > 0:
            found.append(value)
    if not found:
        raise ValueError("cannot tell the target model's number of layers")
    return min(found)


def _radiance_drafter_positions(
    layer_buckets: list[list[str]], vllm_config: object
) -> dict[int, list[int]]:
    """{bucket index: positions of drafter layers in that bucket}; empty without a drafter.

    A layer belongs to the speculative drafter when its layer index is at least the
    target's layer count (EAGLE/EAGLE3/DFlash heads, DeepSeek/GLM/MiMo-style MTP:
    `model.layers.{N + i}`), or when it lives outside the target's layer container
    (`mtp.layers.i`, `model.mtp.layers.i`, `draft_model.model.layers.i`, ...).
    Over-detection only narrows the choice; it never splits a real drafter.
    """
    if getattr(vllm_config, "speculative_config", None) is None:
        return {}
    num_layers = _radiance_target_num_layers(vllm_config)
    keys = [[_radiance_layer_key(name) for name in names] for names in layer_buckets]
    counts: dict[str, int] = {}
    for container, index in (key for bucket in keys for key in bucket):
        if 0 <= index < num_layers:
            counts[container] = counts.get(container, 0) + 1
    if not counts:
        raise ValueError("no target-model layer recognised among the KV cache layers")
    target = max(counts, key=lambda container: counts[container])
    drafter: dict[int, list[int]] = {}
    for b, bucket in enumerate(keys):
        for p, (container, index) in enumerate(bucket):
            if container != target or index >= num_layers:
                drafter.setdefault(b, []).append(p)
    return drafter


def _radiance_check_draft_flags(
    spec_buckets: list[list[object]], drafter: dict[int, list[int]]
) -> None:
    """vLLM 0.33+ marks draft specs `is_draft=True`; a flagged bucket without a recognised
    drafter layer means the name-based recognition missed the drafter."""
    for b, specs in enumerate(spec_buckets):
        flagged = any(getattr(spec, "is_draft", False) is True for spec in specs)
        if flagged and b not in drafter:
            raise ValueError(f"bucket {b} holds draft specs but no drafter layer was recognised")


def _radiance_tokens_per_gib(page_size: int, max_model_len: int, size: int, bpr: int) -> int:
    """KV cache tokens one GiB of KV cache memory holds with this plan (vLLM's
    int(concurrency * max_model_len), concurrency = blocks / blocks_per_request, blocks =
    memory / page_size / size; exact, before vLLM floors the number of blocks)."""
    return (2**30 * max_model_len) // (page_size * size * bpr)


def _radiance_counts(
    sizes: list[int],
    costs: list[int],
    chosen: tuple[int, int, int, str],
    upstream_size: int,
    page_and_len: tuple[int, int] | None,
) -> str:
    """Both plans' KV tokens per GiB of KV cache memory (vLLM chooses the group size before
    it knows the memory), or the percentage alone when the page or length is unknown."""
    size, _, bpr, _ = chosen
    up_bpr = _radiance_group_stats(sizes, costs, upstream_size)[1]
    up_size = _radiance_canonical_size(sizes, upstream_size)
    loss = 100 * (1 - (up_size * up_bpr) / (size * bpr))
    if page_and_len is None:
        return f"{loss:.2f}% less KV cache capacity"
    page, max_len = page_and_len
    mine = _radiance_tokens_per_gib(page, max_len, size, bpr)
    theirs = _radiance_tokens_per_gib(page, max_len, up_size, up_bpr)
    return f"{mine:,} instead of {theirs:,} KV tokens per GiB of KV cache ({loss:.2f}% less)"


def _radiance_trade_note(
    sizes: list[int],
    costs: list[int],
    chosen: tuple[int, int, int, str],
    upstream_size: int,
    max_groups: int,
    page_and_len: tuple[int, int] | None,
    objective: str = "throughput",
    drafters: dict[int, list[int]] | None = None,
) -> str:
    """The INFO line's suffix when the plan has less capacity than upstream's: both token
    counts (per GiB of KV cache memory: vLLM chooses the group size before it knows the
    memory) and why the trade was made.

    When upstream's size splits a one-bucket drafter and no size within the cap reaches
    upstream's capacity, that is the reason, whatever the objective: upstream's plan does not
    serve, and RADIANCE_KV_GROUP_OBJECTIVE=upstream-floor gives this same plan, so the line
    must not point at it (issue 24 attack: it said "-4 fewer groups" or "above the cap")."""
    num_groups = chosen[1]
    up_groups = _radiance_group_stats(sizes, costs, upstream_size)[0]
    counts = _radiance_counts(sizes, costs, chosen, upstream_size, page_and_len)
    table = dict(drafters or {})
    found = _radiance_candidates(sizes, costs, table, max_groups)
    lapses = _radiance_upstream_floor(sizes, costs, upstream_size, table, found) is None
    if objective == "upstream-floor" or lapses:  # the floor lapses only for a plan that cannot serve
        return f" [below upstream's capacity: {counts} because upstream's size splits the drafter]"
    why = (
        f"upstream's {up_groups} groups are above the cap of {max_groups}"
        if up_groups > max_groups
        else f"{up_groups - num_groups} fewer groups per step"
    )
    return (
        f" [below upstream's capacity: {counts} because {why}; "
        "RADIANCE_KV_GROUP_OBJECTIVE=upstream-floor keeps upstream's capacity]"
    )


def _radiance_tolerance_note(
    sizes: list[int],
    costs: list[int],
    chosen: tuple[int, int, int, str],
    best: tuple[int, int, int, str],
    tolerance: float,
) -> str:
    """The INFO line's suffix when the tolerance took a size other than the best one."""
    size, num_groups, blocks_per_request, _ = chosen
    best_size, best_groups, best_bpr, _ = best
    loss = 100 * (1 - (best_size * best_bpr) / (size * blocks_per_request))
    return (
        f" [RADIANCE_KV_GROUP_TOLERANCE={tolerance:g}%: {num_groups} groups instead of "
        f"{best_groups} (size {best_size}) for {loss:.2f}% less capacity]"
    )


def _radiance_page_and_len(
    spec_buckets: list[list[object]], vllm_config: object
) -> tuple[int, int] | None:
    """(page size in bytes, max_model_len), None when either cannot be read: the page is
    uniform once vLLM has unified it; the log line then gives percentages only."""
    try:
        page = max(int(spec.page_size_bytes) for specs in spec_buckets for spec in specs)  # type: ignore[attr-defined]
        max_len = int(vllm_config.model_config.max_model_len)  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return None
    return (page, max_len) if page > 0 and max_len > 0 else None


def _radiance_plan(
    layer_buckets: list[list[str]],
    spec_buckets: list[list[object]],
    upstream_size: int,
    vllm_config: object,
) -> tuple[int, int, int, str, str]:
    """Everything `_radiance_kv_group_size` decides: the chooser's answer and the INFO
    line's suffix ("" when the plan has at least upstream's capacity and the tolerance did not
    change the choice)."""
    import os

    enabled, forced, max_groups, objective, step_cost, tolerance = _radiance_read_knobs(
        dict(os.environ)
    )
    if not enabled:
        return upstream_size, 0, 0, "disabled", ""
    sizes = [len(names) for names in layer_buckets]
    costs = _radiance_bucket_costs(spec_buckets, vllm_config)
    drafters = _radiance_drafter_positions(layer_buckets, vllm_config)
    _radiance_check_draft_flags(spec_buckets, drafters)

    def choose(tol: float) -> tuple[int, int, int, str]:
        return _radiance_choose_group_size(
            sizes, costs, upstream_size, drafters=drafters, max_groups=max_groups,
            forced=forced, objective=objective, step_cost=step_cost, tolerance=tol,
        )

    chosen = choose(tolerance)
    note = ""
    if chosen[3] == "forced":
        below = _radiance_objective(sizes, costs, chosen[0]) > _radiance_objective(
            sizes, costs, upstream_size
        )
        counts = _radiance_counts(
            sizes, costs, chosen, upstream_size, _radiance_page_and_len(spec_buckets, vllm_config)
        )
        note = " [forced by RADIANCE_KV_GROUP_SIZE" + (
            f"; below upstream's capacity: {counts}]" if below else "]"
        )
    if chosen[3] == "tolerance":
        note = _radiance_tolerance_note(sizes, costs, chosen, choose(0.0), tolerance)
    if chosen[3] in ("optimised", "tolerance") and _radiance_objective(
        sizes, costs, chosen[0]
    ) > _radiance_objective(sizes, costs, upstream_size):
        note += _radiance_trade_note(
            sizes, costs, chosen, upstream_size, max_groups,
            _radiance_page_and_len(spec_buckets, vllm_config), objective, drafters,
        )
    return (*chosen, note)


def _radiance_packed_notice(groups: object, vllm_config: object) -> object:
    """vLLM's `_get_packed_kv_cache_groups` result, unchanged; when vLLM packed the groups
    itself (block-outermost KV cache layout, mixed page sizes), one INFO line says that the
    group size kv_group_size chooses is not used for this engine, and why."""
    import logging

    if not groups:
        return groups
    try:
        layout = vllm_config.cache_config.get_resolved_kv_cache_layout()  # type: ignore[attr-defined]
        name = str(getattr(layout, "name", layout))
    except Exception:  # noqa: BLE001 -- naming the layout is a courtesy; the line must be logged
        name = "block-outermost"
    try:
        pages = len({
            int(spec.page_size_bytes)
            for group in groups  # type: ignore[attr-defined]
            for spec in getattr(group.kv_cache_spec, "kv_cache_specs", {}).values()
        })
    except Exception:  # noqa: BLE001 -- counting pages is a courtesy; the line must be logged
        pages = 0
    logging.getLogger(__name__).info(
        "[radiance] kv cache groups: kv_group_size is not in effect for this engine: vLLM "
        "packed the layers into %d groups itself (KV cache layout %s is block-outermost and "
        "the layers have %s page sizes: _get_packed_kv_cache_groups), so the group size "
        "kv_group_size chooses is never used",
        len(groups), name, pages if pages else "several",  # type: ignore[arg-type]
    )
    return groups


def _radiance_kv_group_size(
    layer_buckets: list[list[str]],
    spec_buckets: list[list[object]],
    upstream_size: int,
    vllm_config: object = None,
) -> int:
    """Group size for `_get_kv_cache_groups_uniform_page_size`; upstream's on any doubt."""
    import logging

    logger = logging.getLogger(__name__)
    if vllm_config is None:
        return upstream_size
    try:
        size, num_groups, blocks_per_request, reason, note = _radiance_plan(
            layer_buckets, spec_buckets, upstream_size, vllm_config
        )
    except Exception as exc:  # noqa: BLE001 -- any doubt means upstream's size, never a failed serve
        logger.warning(
            "[radiance] kv cache group optimisation failed (%s: %s); "
            "keeping upstream size %d",
            type(exc).__name__, exc, upstream_size,
        )
        return upstream_size
    if reason in ("optimised", "tolerance", "forced"):
        logger.info(
            "[radiance] kv cache groups: size %d, %d groups, %d blocks/request "
            "(upstream would pick size %d)%s",
            size, num_groups, blocks_per_request, upstream_size,
            note,
        )
    elif reason == "disabled":
        logger.info(
            "[radiance] kv cache groups: optimisation disabled by "
            "RADIANCE_KV_GROUP_OPT=0; keeping upstream size %d", upstream_size,
        )
    else:
        logger.warning(
            "[radiance] kv cache groups: no admissible group size (%s); "
            "keeping upstream size %d", reason, upstream_size,
        )
    return size

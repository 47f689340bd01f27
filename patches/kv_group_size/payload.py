# Payload of the kv_group_size patch.
#
# radpatch injects every top-level definition of this file into vLLM's module holding
# `_get_kv_cache_groups_uniform_page_size` (vllm/v1/core/kv_cache_utils.py, or
# kv_cache_planning.py on 0.33) and inserts, right after upstream's group-size heuristic:
#
#     group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, vllm_config)
#
# Rules this file obeys because its definitions are pasted into a foreign module:
# - only `def`s at top level, every name prefixed `_radiance_` (no module docstring, no imports,
#   no constants); every import happens inside a function;
# - functions use only builtins, their own locals, `__name__` and other `_radiance_` definitions;
# - annotations use builtins only, so they evaluate whether or not the host module has
#   `from __future__ import annotations` (vLLM's planning modules do not).
#
# Capacity is (available / page_size / group_size) / blocks_per_request, so the chooser minimises
# group_size * blocks_per_request over the canonical group sizes, never splitting a speculative
# decoding drafter over two KV cache groups and never going below upstream's capacity. Every KV
# cache group costs the scheduler, the KV cache manager and the model runner work on every step,
# so a tolerance (RADIANCE_KV_GROUP_TOLERANCE, percent) then takes, among the sizes within that
# much of the best capacity, the one with the fewest groups.


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


def _radiance_validate(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    drafter_bucket: int | None,
    drafter_layers: list[int] | None,
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
    if drafter_layers and drafter_bucket is None:
        raise ValueError("drafter layers given without their bucket")
    if drafter_bucket is not None:
        if not 0 <= drafter_bucket < len(bucket_sizes):
            raise ValueError(f"drafter bucket {drafter_bucket} out of range")
        positions = drafter_layers or []
        size = bucket_sizes[drafter_bucket]
        if len(set(positions)) != len(positions) or any(
            not 0 <= p < size for p in positions
        ):
            raise ValueError(f"bad drafter positions {positions!r}")


def _radiance_choice(
    bucket_sizes: list[int], bucket_costs: list[int], g: int, reason: str
) -> tuple[int, int, int, str]:
    """The chooser's answer: (size, number of groups, blocks per request, reason)."""
    num_groups, blocks_per_request = _radiance_group_stats(bucket_sizes, bucket_costs, g)
    return g, num_groups, blocks_per_request, reason


def _radiance_admissible_sizes(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    drafter_size: int,
    drafter_layers: list[int],
    max_groups: int,
) -> list[tuple[int, int, int]]:
    """(size, objective, number of groups) of every size the chooser may return.

    A size is admissible when it is canonical (vLLM's allocator derives exactly it), keeps the
    drafter in one group, gives at most `max_groups` groups and, when upstream's own size keeps
    the drafter together, has no less capacity than upstream (objective size * blocks_per_request
    no larger than upstream's).
    """
    up = _radiance_canonical_size(bucket_sizes, upstream_size)
    floor = None
    if _radiance_keeps_drafter(drafter_size, drafter_layers, up):
        floor = up * _radiance_group_stats(bucket_sizes, bucket_costs, up)[1]
    found = []
    for g in range(1, max(bucket_sizes) + 1):
        if _radiance_canonical_size(bucket_sizes, g) != g:
            continue
        if not _radiance_keeps_drafter(drafter_size, drafter_layers, g):
            continue
        num_groups, blocks_per_request = _radiance_group_stats(
            bucket_sizes, bucket_costs, g
        )
        objective = g * blocks_per_request
        if num_groups > max_groups or (floor is not None and objective > floor):
            continue
        found.append((g, objective, num_groups))
    return found


def _radiance_within_tolerance(objective: int, best: int, tolerance: float) -> bool:
    """Whether a size of this objective has at least (100 - tolerance)% of the best capacity.

    Capacity is proportional to 1 / objective, so the test is
    objective * (100 - tolerance) <= best * 100, in exact rational arithmetic on the decimal
    the knob was written as.
    """
    from fractions import Fraction

    return objective * (100 - Fraction(str(tolerance))) <= best * 100


def _radiance_best_size(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    drafter_size: int,
    drafter_layers: list[int],
    max_groups: int,
    tolerance: float = 0.0,
) -> tuple[int, int] | None:
    """(best size, size taken) or None when no size is admissible.

    The best size minimises size * blocks_per_request (ties: fewer groups); the size taken
    has the fewest groups among the admissible sizes within `tolerance` percent of the best
    capacity (ties: more capacity). With tolerance 0 both are the same.
    """
    found = _radiance_admissible_sizes(
        bucket_sizes, bucket_costs, upstream_size, drafter_size, drafter_layers, max_groups
    )
    if not found:
        return None
    best = min(found, key=lambda c: (c[1], c[2], c[0]))
    near = [c for c in found if _radiance_within_tolerance(c[1], best[1], tolerance)]
    # when upstream's size splits the drafter it sets no floor above, but if the best size
    # reaches upstream's capacity, the tolerance must not trade below it either
    up = _radiance_canonical_size(bucket_sizes, upstream_size)
    up_objective = up * _radiance_group_stats(bucket_sizes, bucket_costs, up)[1]
    if best[1] <= up_objective:
        near = [c for c in near if c[1] <= up_objective]
    taken = min(near, key=lambda c: (c[2], c[1], c[0]))
    return best[0], taken[0]


def _radiance_choose_group_size(
    bucket_sizes: list[int],
    bucket_costs: list[int],
    upstream_size: int,
    *,
    drafter_bucket: int | None = None,
    drafter_layers: list[int] | None = None,
    max_groups: int = 24,
    forced: int | None = None,
    enabled: bool = True,
    tolerance: float = 0.0,
) -> tuple[int, int, int, str]:
    """Pick the KV cache group size; pure and deterministic.

    Returns (size, num_groups, blocks_per_request, reason) with reason one of
    "optimised", "tolerance" (the tolerance took a size with fewer groups than the best),
    "forced", "disabled", "forced-splits-drafter", "no-candidate".
    `drafter_layers` are the positions of the drafter's layers inside bucket
    `drafter_bucket`; no returned size other than upstream's splits them, and no size
    other than a forced one has less capacity than upstream's (when upstream's keeps the
    drafter together).
    """
    _radiance_validate(
        bucket_sizes, bucket_costs, upstream_size, drafter_bucket, drafter_layers,
        max_groups, forced,
    )
    if not 0 <= tolerance < 100:
        raise ValueError(f"tolerance {tolerance!r} is not a percentage in [0, 100)")
    positions = list(drafter_layers or [])
    drafter_size = bucket_sizes[drafter_bucket] if drafter_bucket is not None else 1
    if not enabled:
        return _radiance_choice(bucket_sizes, bucket_costs, upstream_size, "disabled")
    if forced is not None:
        size = _radiance_canonical_size(bucket_sizes, forced)
        if not _radiance_keeps_drafter(drafter_size, positions, size):
            return _radiance_choice(
                bucket_sizes, bucket_costs, upstream_size, "forced-splits-drafter"
            )
        return _radiance_choice(bucket_sizes, bucket_costs, size, "forced")
    chosen = _radiance_best_size(
        bucket_sizes, bucket_costs, upstream_size, drafter_size, positions, max_groups,
        tolerance,
    )
    if chosen is None:
        return _radiance_choice(bucket_sizes, bucket_costs, upstream_size, "no-candidate")
    best, taken = chosen
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


def _radiance_tolerance_knob(environ: dict[str, str]) -> float:
    """RADIANCE_KV_GROUP_TOLERANCE: a percentage in [0, 100), "%" allowed; default 1.75."""
    name = "RADIANCE_KV_GROUP_TOLERANCE"
    raw = environ.get(name, "").strip()
    if not raw:
        return 1.75
    text = raw[:-1].strip() if raw.endswith("%") else raw
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number (a percentage)") from None
    if not 0 <= value < 100:
        raise ValueError(f"{name}={raw!r} must be a percentage in [0, 100)")
    return value


def _radiance_read_knobs(environ: dict[str, str]) -> tuple[bool, int | None, int, float]:
    """(enabled, forced size, max groups, tolerance %) from the environment; ValueError if
    malformed."""
    raw = environ.get("RADIANCE_KV_GROUP_OPT", "").strip().lower()
    if raw in ("", "1", "true", "yes", "on"):
        enabled = True
    elif raw in ("0", "false", "no", "off"):
        enabled = False
    else:
        raise ValueError(f"RADIANCE_KV_GROUP_OPT={raw!r} is not 0 or 1")
    forced = _radiance_positive_int_knob(environ, "RADIANCE_KV_GROUP_SIZE")
    max_groups = _radiance_positive_int_knob(environ, "RADIANCE_KV_GROUP_MAX_GROUPS")
    tolerance = _radiance_tolerance_knob(environ)
    return enabled, forced, 24 if max_groups is None else max_groups, tolerance


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
            value = read()
        except Exception:
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


def _radiance_tolerance_note(
    bucket_sizes: list[int],
    bucket_costs: list[int],
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


def _radiance_plan(
    layer_buckets: list[list[str]],
    spec_buckets: list[list[object]],
    upstream_size: int,
    vllm_config: object,
) -> tuple[int, int, int, str, str]:
    """Everything `_radiance_kv_group_size` decides: the chooser's answer and the INFO
    line's suffix naming the tolerance when it changed the choice ("" otherwise)."""
    import os

    enabled, forced, max_groups, tolerance = _radiance_read_knobs(dict(os.environ))
    if not enabled:
        return upstream_size, 0, 0, "disabled", ""
    sizes = [len(names) for names in layer_buckets]
    costs = _radiance_bucket_costs(spec_buckets, vllm_config)
    drafter = _radiance_drafter_positions(layer_buckets, vllm_config)
    _radiance_check_draft_flags(spec_buckets, drafter)
    if len(drafter) > 1:
        return (*_radiance_choice(sizes, costs, upstream_size, "drafter-spans-buckets"), "")
    drafter_bucket = next(iter(drafter), None)

    def choose(tol: float) -> tuple[int, int, int, str]:
        return _radiance_choose_group_size(
            sizes,
            costs,
            upstream_size,
            drafter_bucket=drafter_bucket,
            drafter_layers=drafter.get(drafter_bucket) if drafter_bucket is not None else None,
            max_groups=max_groups,
            forced=forced,
            tolerance=tol,
        )

    chosen = choose(tolerance)
    if chosen[3] != "tolerance":
        return (*chosen, "")
    return (*chosen, _radiance_tolerance_note(sizes, costs, chosen, choose(0.0), tolerance))


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
    except Exception as exc:
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
            " [forced by RADIANCE_KV_GROUP_SIZE]" if reason == "forced" else note,
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

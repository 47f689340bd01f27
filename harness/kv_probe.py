#!/usr/bin/env python3
"""Probe vLLM's own KV-cache grouping and capacity code with a synthetic model layout.

Runs INSIDE a venv made by harness/vllm_cpu.py (it imports vllm; test tooling only)::

    <venv-python> harness/kv_probe.py LAYOUT.json|BUILTIN [--serve-path] [--indent N]

prints one JSON object on stdout (everything else, vLLM's own log handler included,
goes to stderr).  Environment variables pass through untouched (RADIANCE_KV_GROUP_*).

What is called (nothing is re-implemented):

* default path: ``get_kv_cache_groups(vllm_config, specs)`` from
  ``vllm.v1.core.kv_cache_planning`` (0.33+) or ``vllm.v1.core.kv_cache_utils``;
  then ``get_kv_cache_config_from_groups(vllm_config, groups, num_pages * page)``
  (same module), ``get_max_concurrency_for_kv_cache_config`` and, where it exists,
  ``get_kv_cache_capacity`` (kv_cache_utils); otherwise tokens =
  ``int(concurrency * max_model_len)``, the expression vLLM's reporter uses.  The
  capacity log line is then produced by vLLM's standalone reporter where the release
  has one (``_report_kv_cache_config`` <= 0.23, ``update_kv_cache_capacity`` >= 0.28;
  0.24-0.27 log it inline in ``get_kv_cache_configs`` only -- use ``--serve-path``).
* ``--serve-path``: the engine's planning entry point instead --
  ``get_kv_cache_configs(vllm_config, [specs], [memory])`` (<= 0.32) or
  ``get_global_kv_cache_groups`` + ``get_kv_cache_configs(..., groups)`` (0.33),
  then ``update_kv_cache_capacity`` where it exists.  Adds the memory-fit check.
* blocks_per_request = sum over groups of
  ``cdiv(group.kv_cache_spec.max_memory_usage_bytes(cfg), group.kv_cache_spec.page_size_bytes)``
  (vLLM's spec methods; the sum ``get_max_concurrency_for_kv_cache_config`` divides by
  on 0.24+).

The VllmConfig stand-in holds exactly the fields the planning code reads (checked
against kv_cache_utils/kv_cache_planning/kv_cache_interface of 0.21-0.33): a missing
field raises ``AttributeError("vllm_config stand-in has no X.y")``.  The speculative
config's predicates (use_eagle, use_eagle_block_drop, use_dflash, ...) are vLLM's own
``SpeculativeConfig`` methods bound to the stand-in.  ``max_in_flight_tokens`` is set
explicitly (the real property is ``max_concurrent_batches * max_num_batched_tokens``;
async scheduling doubles it, which changes sliding-window costs).  Available memory
is ``num_pages * page_size`` where page_size is vLLM's FullAttentionSpec page size for
the layout's attention shape.

Layout JSON (all keys optional except buckets; defaults shown)::

    {
      "block_size": 16, "num_kv_heads": 8, "head_size": 128, "dtype": "bfloat16",
      "max_model_len": 8192, "max_num_batched_tokens": 8192,
      "max_in_flight_tokens": <max_num_batched_tokens>,
      "num_pages": 1000,                 # available memory = num_pages * page_size
      "mamba_cache_mode": "none",        # "align" | "all" | "none"
      "kv_cache_layout": "NHD",          # 0.32+ cache_config.get_resolved_kv_cache_layout()
      "model_type": "llama",             # model_config.hf_config.model_type
      "disable_hybrid_kv_cache_manager": false,
      "num_hidden_layers": <1 + highest non-drafter layer index>,  # the target's layer count
      "speculative": null | {"method": "dflash", "num_speculative_tokens": 7},
      "buckets": [
        {"kind": "full" | "sliding_window" | "mamba",
         "count": 16,
         "prefix": "model.layers.{i}.self_attn.attn",   # "{i}" = layer index; without
                                         # "{i}" the name is prefix + str(index)
         "layer_ids": [3, 7, ...] | {"start": 0, "stop": 64, "step": 1,
                                     "mod": 4, "keep": [3]},  # default: next free ids
         "draft": false,                 # drafter layer (sets spec.is_draft on 0.33+)
         # spec params, defaulting to the layout-level values above:
         "block_size", "num_kv_heads", "head_size", "dtype",
         "sliding_window": 4096,         # sliding_window only
         "shapes": [[3, 64], [16, 128, 128]], "dtypes": ["bfloat16", "bfloat16"],
         "page_size_padded": "full" | int | null,   # mamba; "full" = attention page
         "mamba_type": "GDN_ATTN",       # MambaAttentionBackendEnum member name
         "num_speculative_blocks": <speculative.num_speculative_tokens or 0>,
         "extra": {...}}                 # any other spec-constructor kwargs, verbatim
      ]
    }

Layers are ordered by layer index (vLLM registers them in model order; the split
``layers[i::num_groups]`` depends on that order), ties in bucket order.

Builtin ``qwen38_dflash``: a Qwen3-Next-style 64-layer hybrid (GDN linear attention on
layers with i % 4 != 3, full attention on i % 4 == 3: 48 + 16) plus a 5-layer DFlash
drafter with sliding window 2048; block 1648, 2 KV heads x 256, bf16, max_model_len
262144, 7 speculative tokens (= MambaSpec.num_speculative_blocks), align mode,
10,412 pages.

Layer names (from the 0.33.0 wheel): the target registers
``model.layers.{i}.linear_attn`` (QwenGatedDeltaNetAttention, prefix
f"{prefix}.linear_attn" in qwen3_next.py) and ``model.layers.{i}.self_attn.attn``
(Attention prefix f"{prefix}.attn" under ``.self_attn``).  A drafter is built by
``get_model`` with prefix "" and ``DFlashQwen3ForCausalLM`` (qwen3_dflash.py) passes
``start_layer_id = target.get_total_num_hidden_layers()`` so its layers are
``model.layers.{64 + j}.self_attn.attn`` -- the same shape as the target's attention
layers, numbered after them (EAGLE/EAGLE3 llama heads do the same).  The proposer tells
them apart only as "attention layers that appeared after loading the drafter"
(llm_base_proposer.load_model) and then asserts they share one KV cache group.

If vLLM raises while planning (e.g. a patch left a NameError), stdout still gets one
JSON object -- {vllm_version, module, path, error: "Type: message", traceback,
log_lines, log_records} -- and the exit status is 3.  Other failures (bad layout,
import errors) exit 1 with a traceback on stderr.

Output: {vllm_version, module, path, num_groups, group_sizes (layers per group),
group_size (max of those), group_kinds (spec class per group), drafter_groups
(indices of groups holding a "draft" layer), num_blocks, blocks_per_request,
concurrency, tokens, page_size, available_memory, log_lines ("LEVEL [file:line] msg"
for every record at INFO+ reaching the "vllm" logger during planning), log_records
(same, as dicts)}.  vLLM's own console handler writes to stdout by default; fd 1 is
pointed at stderr while vLLM runs, so stdout carries only the JSON.

Measured, unpatched, qwen38_dflash, on 0.21.0 0.22.0 0.26.0 0.27.1 0.32.0 0.33.0 (both
paths): 15 groups of <= 5 layers ([5]*8 + [4]*2 GDN, [4]*4 full, [5] drafter), 2082
blocks, 738 blocks/request, concurrency 2.8211, 739,544 tokens; log: "Add 2 padding
layers" + "Add 4 padding layers" warnings, 0.32.0 also warns that no KV cache group is
identified as the (dflash) drafter's.  ~12-17 s per run, mostly ``import vllm``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, cast

DEFAULTS: dict[str, Any] = {
    "block_size": 16,
    "num_kv_heads": 8,
    "head_size": 128,
    "dtype": "bfloat16",
    "max_model_len": 8192,
    "max_num_batched_tokens": 8192,
    "num_pages": 1000,
    "mamba_cache_mode": "none",
    "kv_cache_layout": "NHD",
    "model_type": "llama",
    "disable_hybrid_kv_cache_manager": False,
    "speculative": None,
}

BUILTIN_LAYOUTS: dict[str, dict[str, Any]] = {
    "qwen38_dflash": {
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
        "buckets": [
            {
                "kind": "mamba",
                "count": 48,
                "prefix": "model.layers.{i}.linear_attn",
                "layer_ids": {"start": 0, "stop": 64, "mod": 4, "keep": [0, 1, 2]},
                "shapes": [[3, 64], [16, 128, 128]],
                "dtypes": ["bfloat16", "bfloat16"],
                "page_size_padded": "full",
                "mamba_type": "GDN_ATTN",
            },
            {
                "kind": "full",
                "count": 16,
                "prefix": "model.layers.{i}.self_attn.attn",
                "layer_ids": {"start": 0, "stop": 64, "mod": 4, "keep": [3]},
            },
            {
                "kind": "sliding_window",
                "count": 5,
                "draft": True,
                "prefix": "model.layers.{i}.self_attn.attn",
                "layer_ids": {"start": 64, "stop": 69},
                "sliding_window": 2048,
            },
        ],
    },
}

EXIT_PLANNING_FAILED = 3

SPEC_CLASSES = {"full": "FullAttentionSpec", "sliding_window": "SlidingWindowSpec", "mamba": "MambaSpec"}


# ----------------------------------------------------------------------------- layout


@dataclass
class Layer:
    index: int
    order: int
    name: str
    kind: str
    params: dict[str, Any]
    draft: bool = False


@dataclass
class Layout:
    raw: dict[str, Any]
    layers: list[Layer] = field(default_factory=list)

    def get(self, key: str) -> Any:
        if key == "max_in_flight_tokens":
            return self.raw.get(key, self.get("max_num_batched_tokens"))
        return self.raw.get(key, DEFAULTS.get(key))

    @property
    def spec_tokens(self) -> int:
        spec = self.get("speculative")
        return int(spec.get("num_speculative_tokens", 0)) if spec else 0


def load_layout(arg: str) -> dict[str, Any]:
    if arg in BUILTIN_LAYOUTS:
        return cast(dict[str, Any], json.loads(json.dumps(BUILTIN_LAYOUTS[arg])))
    path = Path(arg)
    if not path.is_file():
        raise SystemExit(f"kv_probe: no layout file or builtin named {arg!r} (builtins: {', '.join(BUILTIN_LAYOUTS)})")
    return cast(dict[str, Any], json.loads(path.read_text()))


def expand_ids(spec: Any, count: int, next_free: int) -> list[int]:
    if spec is None:
        ids = list(range(next_free, next_free + count))
    elif isinstance(spec, list):
        ids = [int(i) for i in spec]
    else:
        ids = list(range(int(spec.get("start", 0)), int(spec["stop"]), int(spec.get("step", 1))))
        if "mod" in spec:
            keep = {int(k) for k in spec["keep"]}
            ids = [i for i in ids if i % int(spec["mod"]) in keep]
    if len(ids) != count:
        raise SystemExit(f"kv_probe: bucket wants {count} layers, layer_ids give {len(ids)}")
    return ids


def layer_name(prefix: str, index: int) -> str:
    return prefix.format(i=index) if "{i}" in prefix else f"{prefix}{index}"


def build_layers(raw: dict[str, Any]) -> Layout:
    layout = Layout(raw)
    next_free, order = 0, 0
    for bucket in raw["buckets"]:
        kind = bucket["kind"]
        if kind not in SPEC_CLASSES:
            raise SystemExit(f"kv_probe: unknown bucket kind {kind!r}")
        count = int(bucket["count"])
        ids = expand_ids(bucket.get("layer_ids"), count, next_free)
        prefix = bucket.get("prefix", f"model.layers.{{i}}.{kind}")
        for index in ids:
            layout.layers.append(
                Layer(index, order, layer_name(prefix, index), kind, bucket, bool(bucket.get("draft", False)))
            )
            order += 1
        next_free = max([next_free, *(i + 1 for i in ids)])
    layout.layers.sort(key=lambda layer: (layer.index, layer.order))
    names = [layer.name for layer in layout.layers]
    if len(set(names)) != len(names):
        raise SystemExit("kv_probe: layout produces duplicate layer names")
    return layout


# ------------------------------------------------------------------------------ specs


def torch_dtype(name: str) -> Any:
    return getattr(importlib.import_module("torch"), name)


def spec_fields(cls: type) -> set[str]:
    return {f.name for f in fields(cls)} if is_dataclass(cls) else set()


def attention_kwargs(layout: Layout, params: dict[str, Any]) -> dict[str, Any]:
    def pick(key: str) -> Any:
        return params.get(key, layout.get(key))

    return {
        "block_size": int(pick("block_size")),
        "num_kv_heads": int(pick("num_kv_heads")),
        "head_size": int(pick("head_size")),
        "dtype": torch_dtype(pick("dtype")),
    }


def full_page_size(iface: Any, layout: Layout, params: dict[str, Any]) -> int:
    return int(iface.FullAttentionSpec(**attention_kwargs(layout, params)).page_size_bytes)


def mamba_kwargs(iface: Any, layout: Layout, params: dict[str, Any]) -> dict[str, Any]:
    padded = params.get("page_size_padded", "full")
    if padded == "full":
        padded = full_page_size(iface, layout, params)
    kwargs: dict[str, Any] = {
        "block_size": int(params.get("block_size", layout.get("block_size"))),
        "shapes": tuple(tuple(int(d) for d in s) for s in params["shapes"]),
        "dtypes": tuple(torch_dtype(d) for d in params["dtypes"]),
        "page_size_padded": padded,
        "mamba_cache_mode": params.get("mamba_cache_mode", layout.get("mamba_cache_mode")),
        "num_speculative_blocks": int(params.get("num_speculative_blocks", layout.spec_tokens)),
    }
    if "mamba_type" in params:
        kwargs["mamba_type"] = mamba_backend_enum()[params["mamba_type"]]
    return kwargs


def mamba_backend_enum() -> Any:
    """vLLM's MambaAttentionBackendEnum: vllm/v1/attention/backends/registry.py (0.17+) or
    vllm/attention/backends/registry.py (0.12-0.16)."""
    for name in ("vllm.v1.attention.backends.registry", "vllm.attention.backends.registry"):
        try:
            return importlib.import_module(name).MambaAttentionBackendEnum
        except (ImportError, AttributeError):
            continue
    raise SystemExit("kv_probe: this vLLM has no MambaAttentionBackendEnum")


def make_spec(iface: Any, layout: Layout, layer: Layer) -> Any:
    cls = getattr(iface, SPEC_CLASSES[layer.kind])
    params = layer.params
    if layer.kind == "mamba":
        kwargs = mamba_kwargs(iface, layout, params)
    else:
        kwargs = attention_kwargs(layout, params)
        if layer.kind == "sliding_window":
            kwargs["sliding_window"] = int(params["sliding_window"])
    kwargs.update(params.get("extra", {}))
    if layer.draft and "is_draft" in spec_fields(cls):
        kwargs["is_draft"] = True
    unknown = set(kwargs) - spec_fields(cls)
    if unknown:
        raise SystemExit(f"kv_probe: {cls.__name__} of this vLLM has no {sorted(unknown)}")
    return cls(**kwargs)


def build_specs(layout: Layout) -> dict[str, Any]:
    iface = importlib.import_module("vllm.v1.kv_cache_interface")
    return {layer.name: make_spec(iface, layout, layer) for layer in layout.layers}


# ---------------------------------------------------------------------- config stand-in


class Stand:
    """Attribute bag that names the missing field when vLLM reads one we lack."""

    def __init__(self, path: str, **values: Any) -> None:
        object.__setattr__(self, "_path", path)
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"vllm_config stand-in has no {self._path}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)


class SpecStand(Stand):
    """SpeculativeConfig stand-in whose predicates are vLLM's own methods."""

    def __getattr__(self, name: str) -> Any:
        real = importlib.import_module("vllm.config").SpeculativeConfig
        attr = real.__dict__.get(name)
        if callable(attr):
            return attr.__get__(self, type(self))
        if isinstance(attr, property) and attr.fget is not None:
            return attr.fget(self)
        return super().__getattr__(name)


def kv_layout_resolver(name: str) -> Callable[[], Any]:
    def resolve() -> Any:
        cache_mod = importlib.import_module("vllm.config.cache")
        if hasattr(cache_mod, "_layout_from_name"):
            return cache_mod._layout_from_name(name)
        aliases = {"NHD": "LBNHC", "HND": "LBHNC"}
        layouts = importlib.import_module("vllm.v1.kv_cache_layout").KVCacheLayout
        return layouts[aliases.get(name, name)]

    return resolve


def speculative_stand(layout: Layout) -> SpecStand | None:
    spec = layout.get("speculative")
    if not spec:
        return None
    return SpecStand(
        "speculative_config",
        method=spec["method"],
        num_speculative_tokens=int(spec.get("num_speculative_tokens", 0)),
        disable_eagle_block_drop=bool(spec.get("disable_eagle_block_drop", False)),
        draft_model_config=None,
        num_speculative_tokens_per_batch_size=None,
    )


def target_num_layers(layout: Layout) -> int:
    """The target model's hidden-layer count: `num_hidden_layers` if the layout gives it,
    else one past the highest index of a non-drafter layer (drafters number after it)."""
    given = layout.raw.get("num_hidden_layers")
    if given is not None:
        return int(given)
    return max((layer.index for layer in layout.layers if not layer.draft), default=-1) + 1


def make_config(layout: Layout) -> Stand:
    mbt = int(layout.get("max_num_batched_tokens"))
    spec = speculative_stand(layout)
    lookahead = 1 if spec is not None and spec.use_eagle() else 0
    layers = target_num_layers(layout)
    return Stand(
        "vllm_config",
        model_config=Stand(
            "model_config",
            max_model_len=int(layout.get("max_model_len")),
            original_max_model_len=int(layout.get("max_model_len")),
            hf_config=Stand("hf_config", model_type=layout.get("model_type"), num_hidden_layers=layers),
            hf_text_config=Stand("hf_text_config", num_hidden_layers=layers),
            # ModelConfig's own accessors (no PP here: get_num_layers == total)
            get_total_num_hidden_layers=lambda: layers,
            get_num_layers=lambda parallel_config: layers,
            supports_kv_cache_grouping=False,
        ),
        parallel_config=Stand(
            "parallel_config",
            decode_context_parallel_size=1,
            prefill_context_parallel_size=1,
            tensor_parallel_size=1,
            pipeline_parallel_size=1,
        ),
        cache_config=Stand(
            "cache_config",
            block_size=int(layout.get("block_size")),
            mamba_cache_mode=layout.get("mamba_cache_mode"),
            num_gpu_blocks_override=None,
            enable_prefix_caching=True,
            prefix_cache_retention_interval=None,
            kv_cache_size_tokens=None,
            kv_cache_max_concurrency=None,
            get_resolved_kv_cache_layout=kv_layout_resolver(str(layout.get("kv_cache_layout"))),
        ),
        scheduler_config=Stand(
            "scheduler_config",
            max_num_batched_tokens=mbt,
            max_num_encoder_input_tokens=mbt,
            disable_hybrid_kv_cache_manager=bool(layout.get("disable_hybrid_kv_cache_manager")),
        ),
        attention_config=Stand("attention_config", hisparse_config=None),
        device_config=Stand("device_config", device_type="cuda"),
        max_in_flight_tokens=int(layout.get("max_in_flight_tokens")),
        num_speculative_tokens=layout.spec_tokens,
        num_prefill_lookahead_tokens=lookahead,
        kv_transfer_config=None,
        speculative_config=spec,
    )


# ------------------------------------------------------------------------- log capture


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self) -> list[str]:
        return [f"{r.levelname} [{r.filename}:{r.lineno}] {r.getMessage()}" for r in self.records]

    def dicts(self) -> list[dict[str, Any]]:
        return [
            {"level": r.levelname, "logger": r.name, "file": r.filename, "line": r.lineno, "message": r.getMessage()}
            for r in self.records
        ]


def ensure_vllm_logging() -> None:
    """Configure vLLM's logging as its entry points do, if importing did not.

    Up to 0.30 ``import vllm`` configures the "vllm" logger (level from
    VLLM_LOGGING_LEVEL, default INFO); 0.31+ leave that to the CLI/engine
    (``configure_logging``), so without this INFO records are never created.
    """
    if logging.getLogger("vllm").handlers:
        return
    vllm_logger = importlib.import_module("vllm.logger")
    configure = getattr(vllm_logger, "_configure_vllm_root_logger", None)
    if configure is not None:
        configure()


@contextmanager
def capture_vllm_logs() -> Iterator[Capture]:
    ensure_vllm_logging()
    handler = Capture()
    logger = logging.getLogger("vllm")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@contextmanager
def stdout_to_stderr() -> Iterator[Any]:
    """Point fd 1 at stderr while vLLM runs; yield a stream on the real stdout."""
    sys.stdout.flush()
    real = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(real, "w")
    try:
        yield out
    finally:
        sys.stdout.flush()
        out.flush()


# ---------------------------------------------------------------------------- probing


def planning_module() -> Any:
    try:
        mod = importlib.import_module("vllm.v1.core.kv_cache_planning")
        if hasattr(mod, "get_kv_cache_groups"):
            return mod
    except ImportError:
        pass
    return importlib.import_module("vllm.v1.core.kv_cache_utils")


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def blocks_per_request(cfg: Stand, groups: list[Any]) -> int:
    return sum(cdiv(g.kv_cache_spec.max_memory_usage_bytes(cfg), g.kv_cache_spec.page_size_bytes) for g in groups)


def capacity(utils: Any, cfg: Stand, kv_config: Any) -> tuple[float, int]:
    if hasattr(utils, "get_kv_cache_capacity"):
        tokens, conc = utils.get_kv_cache_capacity(cfg, kv_config)
        return float(conc), int(tokens)
    conc = utils.get_max_concurrency_for_kv_cache_config(cfg, kv_config)
    return float(conc), int(conc * cfg.model_config.max_model_len)


def report_capacity(utils: Any, cfg: Stand, kv_config: Any) -> None:
    if hasattr(utils, "update_kv_cache_capacity"):
        utils.update_kv_cache_capacity(cfg, kv_config)
    elif hasattr(utils, "_report_kv_cache_config"):
        utils._report_kv_cache_config(cfg, kv_config)


def plan_groups_path(mod: Any, cfg: Stand, specs: dict[str, Any], memory: int) -> Any:
    groups = mod.get_kv_cache_groups(cfg, dict(specs))
    return mod.get_kv_cache_config_from_groups(cfg, groups, memory)


def plan_serve_path(mod: Any, cfg: Stand, specs: dict[str, Any], memory: int) -> Any:
    if hasattr(mod, "get_global_kv_cache_groups"):
        groups = mod.get_global_kv_cache_groups(cfg, [dict(specs)])
        return mod.get_kv_cache_configs(cfg, [dict(specs)], [memory], groups)[0]
    return mod.get_kv_cache_configs(cfg, [dict(specs)], [memory])[0]


def group_kind(group: Any) -> str:
    return type(group.kv_cache_spec).__name__


def probe(raw: dict[str, Any], serve_path: bool) -> dict[str, Any]:
    vllm = importlib.import_module("vllm")
    layout = build_layers(raw)
    specs = build_specs(layout)
    mod = planning_module()
    utils = importlib.import_module("vllm.v1.core.kv_cache_utils")
    cfg = make_config(layout)
    attn_layer = next((l for l in layout.layers if l.kind != "mamba"), layout.layers[0])
    page = full_page_size(importlib.import_module("vllm.v1.kv_cache_interface"), layout, attn_layer.params)
    memory = int(layout.get("num_pages")) * page
    plan = plan_serve_path if serve_path else plan_groups_path
    head = {"vllm_version": vllm.__version__, "module": mod.__name__, "path": "serve" if serve_path else "groups"}
    with capture_vllm_logs() as logs:
        try:
            kv_config = plan(mod, cfg, specs, memory)
            groups = kv_config.kv_cache_groups
            conc, tokens = capacity(utils, cfg, kv_config)
            report_capacity(utils, cfg, kv_config)
            per_request = blocks_per_request(cfg, groups)
        except Exception as exc:  # reported as data: a broken patch is a test result
            return {
                **head,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
                "log_lines": logs.lines(),
                "log_records": logs.dicts(),
            }
    drafters = {layer.name for layer in layout.layers if layer.draft}
    sizes = [len(g.layer_names) for g in groups]
    return {
        **head,
        "num_groups": len(groups),
        "group_sizes": sizes,
        "group_size": max(sizes) if sizes else 0,
        "group_kinds": [group_kind(g) for g in groups],
        "drafter_groups": [i for i, g in enumerate(groups) if drafters & set(g.layer_names)],
        "num_blocks": int(kv_config.num_blocks),
        "blocks_per_request": per_request,
        "concurrency": conc,
        "tokens": tokens,
        "page_size": page,
        "available_memory": memory,
        "log_lines": logs.lines(),
        "log_records": logs.dicts(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Probe vLLM's KV cache grouping.")
    parser.add_argument("layout", help=f"layout JSON file or builtin: {list(BUILTIN_LAYOUTS)}")
    parser.add_argument(
        "--serve-path", action="store_true", help="plan through get_kv_cache_configs, as the engine does"
    )
    parser.add_argument("--indent", type=int, default=None)
    args = parser.parse_args(argv)
    raw = load_layout(args.layout)
    with stdout_to_stderr() as out:
        result = probe(raw, args.serve_path)
        out.write(json.dumps(result, indent=args.indent) + "\n")
    return EXIT_PLANNING_FAILED if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs INSIDE a provisioned vLLM venv (harness/vllm_cpu.py): vLLM's own KV cache planning for
benchmark layouts, several jobs in one process so vLLM is imported once.

    <vllm-venv>/bin/python benchmarks/_probe_runner.py < jobs.json > results.json
    (PYTHONPATH must hold the repository root, for ``harness.kv_probe``)

stdin: {"layouts": {NAME: LAYOUT}, "jobs": [{"layout": NAME, "env": {VAR: VALUE},
"hook_size": N | null}]}.  stdout: {"layouts": {NAME: DERIVED}, "results": [RESULT per job]}.

A benchmark layout is a harness layout (harness/kv_probe.py) plus documentation and derivation
keys, resolved here with vLLM's own code before the harness sees the layout:

* bucket ``"vllm_state": {"shape": [CALC, {kwargs}], "dtype": [CALC, {kwargs}]}`` -- the Mamba
  state ``shapes``/``dtypes`` come from vLLM's ``MambaStateShapeCalculator.<CALC>(**kwargs)`` and
  ``MambaStateDtypeCalculator.<CALC>(**kwargs)`` (the calls each model class makes in
  ``get_mamba_state_shape_from_config`` / ``get_mamba_state_dtype_from_config``);
* top-level ``"block_size": {"align_to_mamba": A}`` -- the attention block size vLLM's platform
  picks for a hybrid model (``Platform._align_hybrid_block_size``: the smallest multiple of the
  kernel alignment A whose attention page holds the largest Mamba state), from vLLM's own
  ``MambaSpec(...).page_size_bytes`` and ``FullAttentionSpec(block_size=1, ...).page_size_bytes``;
* top-level ``"kv_cache_gib": G`` -- ``num_pages = G GiB // page``, page being vLLM's
  ``FullAttentionSpec`` page of the layout's first attention layer (the page the harness
  multiplies ``num_pages`` by).

Every other non-harness key (``source``, ``name``, ``title``, ``notes``, ...) is dropped.

Per job the harness probe runs unchanged (``kv_probe.probe``: get_kv_cache_groups ->
get_kv_cache_config_from_groups -> vLLM's capacity functions).  If the installed vLLM carries the
kv_group_size patch (``_radiance_kv_group_size`` in its planning module), its entry point is
wrapped to *record* what vLLM hands it (the layer buckets, their spec classes, the drafter layers
per bucket, upstream's size, the size returned).  ``hook_size: N`` makes the wrapper return N
instead of calling the patch -- a benchmark-only way to set the group size at exactly the point
the patch does, used for the sweep over every size; vLLM still does all the grouping and
arithmetic.  Errors are results: a layout the harness cannot build, or a planning exception,
comes back as {"error": ...} for that job.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import sys
import traceback
from typing import Any

from harness import kv_probe

HARNESS_TOP_KEYS = set(kv_probe.DEFAULTS) | {"max_in_flight_tokens", "num_hidden_layers", "buckets"}
HARNESS_BUCKET_KEYS = {
    "kind",
    "count",
    "prefix",
    "layer_ids",
    "draft",
    "block_size",
    "num_kv_heads",
    "head_size",
    "dtype",
    "sliding_window",
    "shapes",
    "dtypes",
    "page_size_padded",
    "mamba_type",
    "num_speculative_blocks",
    "extra",
}


class HarnessCannotBuild(Exception):
    """The layout needs something the harness (or this vLLM) cannot build."""


def torch_dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def resolve_mamba_state(bucket: dict[str, Any]) -> None:
    mamba_utils = importlib.import_module("vllm.model_executor.layers.mamba.mamba_utils")
    torch = importlib.import_module("torch")
    calc = bucket.pop("vllm_state")
    shape_fn, shape_kwargs = calc["shape"]
    dtype_fn, dtype_kwargs = calc["dtype"]
    shape_calc = getattr(mamba_utils.MambaStateShapeCalculator, shape_fn, None)
    dtype_calc = getattr(mamba_utils.MambaStateDtypeCalculator, dtype_fn, None)
    if shape_calc is None or dtype_calc is None:
        raise HarnessCannotBuild(f"this vLLM has no MambaState*Calculator.{shape_fn}/{dtype_fn}")
    kwargs = dict(dtype_kwargs)
    kwargs["model_dtype"] = getattr(torch, kwargs["model_dtype"])
    shapes = shape_calc(**shape_kwargs)
    dtypes = dtype_calc(**kwargs)
    bucket["shapes"] = [list(s) for s in shapes]
    bucket["dtypes"] = [torch_dtype_name(d) for d in dtypes]


def aligned_block_size(raw: dict[str, Any], alignment: int) -> int:
    """Platform._align_hybrid_block_size's choice, from vLLM's own page sizes."""
    iface = importlib.import_module("vllm.v1.kv_cache_interface")
    torch = importlib.import_module("torch")
    mamba_pages = [
        iface.MambaSpec(
            block_size=-1,
            shapes=tuple(tuple(s) for s in b["shapes"]),
            dtypes=tuple(getattr(torch, d) for d in b["dtypes"]),
        ).page_size_bytes
        for b in raw["buckets"]
        if b["kind"] == "mamba"
    ]
    attn = iface.FullAttentionSpec(
        block_size=1,
        num_kv_heads=int(raw["num_kv_heads"]),
        head_size=int(raw["head_size"]),
        dtype=getattr(torch, raw.get("dtype", "bfloat16")),
    )
    per_token = int(attn.page_size_bytes)
    mamba_page = max(mamba_pages)
    return int(alignment * -(-mamba_page // (alignment * per_token)))


def derive(layout: dict[str, Any]) -> dict[str, Any]:
    """The harness layout for a benchmark layout (see the module docstring)."""
    raw = copy.deepcopy(layout)
    derived: dict[str, Any] = {}
    for bucket in raw["buckets"]:
        if bucket["kind"] not in kv_probe.SPEC_CLASSES:
            spec = bucket.get("vllm_spec", f"a {bucket['kind']!r} spec")
            raise HarnessCannotBuild(
                f"needs {spec} (bucket kind {bucket['kind']!r}); harness/kv_probe.py builds only "
                f"{', '.join(kv_probe.SPEC_CLASSES.values())}"
            )
    for bucket in raw["buckets"]:
        if "vllm_state" in bucket:
            resolve_mamba_state(bucket)
    block = raw.get("block_size")
    if isinstance(block, dict):
        raw["block_size"] = aligned_block_size(raw, int(block["align_to_mamba"]))
        derived["block_size_rule"] = f"aligned to the Mamba state, kernel alignment {block['align_to_mamba']}"
    gib = raw.pop("kv_cache_gib", None)
    harness = {k: v for k, v in raw.items() if k in HARNESS_TOP_KEYS}
    harness["buckets"] = [{k: v for k, v in b.items() if k in HARNESS_BUCKET_KEYS} for b in raw["buckets"]]
    built = kv_probe.build_layers(harness)
    iface = importlib.import_module("vllm.v1.kv_cache_interface")
    attn_layer = next((l for l in built.layers if l.kind != "mamba"), built.layers[0])
    page = kv_probe.full_page_size(iface, built, attn_layer.params)
    if gib is not None:
        harness["num_pages"] = int(float(gib) * 2**30) // page
    derived.update(
        {
            "harness_layout": harness,
            "block_size": int(harness.get("block_size", kv_probe.DEFAULTS["block_size"])),
            "page_size": page,
            "num_pages": int(harness.get("num_pages", kv_probe.DEFAULTS["num_pages"])),
            "kv_cache_bytes": page * int(harness.get("num_pages", kv_probe.DEFAULTS["num_pages"])),
            "mamba_shapes": {
                i: (b["shapes"], b["dtypes"]) for i, b in enumerate(harness["buckets"]) if b["kind"] == "mamba"
            },
            "draft_layers": sorted(l.name for l in built.layers if l.draft),
        }
    )
    return derived


def patched_module() -> Any | None:
    for name in ("vllm.v1.core.kv_cache_planning", "vllm.v1.core.kv_cache_utils"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, "_radiance_kv_group_size"):
            return mod
    return None


class Recorder:
    """Wraps the patch's entry point: records vLLM's buckets; optionally forces a size."""

    def __init__(self, mod: Any) -> None:
        self.mod = mod
        self.original = mod._radiance_kv_group_size
        self.draft: set[str] = set()
        self.hook_size: int | None = None
        self.calls: list[dict[str, Any]] = []

    def __call__(self, layer_buckets: Any, spec_buckets: Any, upstream_size: int, vllm_config: Any = None) -> int:
        record: dict[str, Any] = {
            "bucket_sizes": [len(names) for names in layer_buckets],
            "bucket_kinds": [type(specs[0]).__name__ for specs in spec_buckets],
            "bucket_drafter_layers": [len(self.draft & set(names)) for names in layer_buckets],
            "upstream_size": int(upstream_size),
        }
        try:  # per-group blocks a request reserves, per bucket: vLLM's own spec methods
            record["bucket_costs"] = [
                max(-(-int(s.max_memory_usage_bytes(vllm_config)) // int(s.page_size_bytes)) for s in specs)
                for specs in spec_buckets
            ]
        except Exception as exc:  # informational only
            record["bucket_costs_error"] = f"{type(exc).__name__}: {exc}"
        if self.hook_size is not None:
            size = int(self.hook_size)
            record["hooked"] = True
        else:
            size = int(self.original(layer_buckets, spec_buckets, upstream_size, vllm_config))
        record["returned_size"] = size
        self.calls.append(record)
        return size


def run_job(
    layout: dict[str, Any], derived: dict[str, Any], job: dict[str, Any], recorder: Recorder | None
) -> dict[str, Any]:
    saved = dict(os.environ)
    os.environ.update({k: str(v) for k, v in job.get("env", {}).items()})
    try:
        if recorder is not None:
            recorder.calls = []
            recorder.draft = set(derived["draft_layers"])
            recorder.hook_size = job.get("hook_size")
        elif job.get("hook_size") is not None:
            return {"error": "hook_size needs a vLLM carrying the kv_group_size patch"}
        try:
            result: dict[str, Any] = kv_probe.probe(copy.deepcopy(derived["harness_layout"]), False)
        except SystemExit as exc:  # the harness refuses the layout
            return {"error": f"harness: {exc}", "harness_refused": True}
        if recorder is not None:
            result["patch_calls"] = recorder.calls
        if "traceback" in result:
            result["traceback"] = result["traceback"][-3000:]
        return result
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main() -> int:
    request = json.load(sys.stdin)
    with kv_probe.stdout_to_stderr() as out:
        importlib.import_module("vllm")
        mod = patched_module()
        recorder = None
        if mod is not None:
            recorder = Recorder(mod)
            mod._radiance_kv_group_size = recorder
        derived: dict[str, Any] = {}
        for name, layout in request["layouts"].items():
            try:
                derived[name] = derive(layout)
            except (HarnessCannotBuild, SystemExit) as exc:
                derived[name] = {"error": f"harness: {exc}"}
            except Exception as exc:
                derived[name] = {"error": f"harness: {type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        results = []
        for job in request["jobs"]:
            d = derived[job["layout"]]
            if "error" in d:
                results.append({"error": d["error"], "harness_refused": True})
                continue
            results.append(run_job(request["layouts"][job["layout"]], d, job, recorder))
        meta = {"patched": mod is not None, "module": getattr(mod, "__name__", None)}
        out.write(json.dumps({"layouts": derived, "results": results, "meta": meta}, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""KV cache capacity of hybrid layouts under each group-size strategy, from vLLM's own code.

    python benchmarks/capacity.py [--vllm 0.33.0] [--layouts NAME ...] [--out benchmarks/results]
    python benchmarks/capacity.py --per-release 0.12.0 0.17.1 0.18.0 ...   # capacity_releases.md

Writes benchmarks/results/capacity.md (a table per layout), capacity.png (capacity per strategy
per layout, relative to upstream) and capacity.json (every raw probe result).  Takes ~2 minutes
once the vLLM release is provisioned in the CPU harness (harness/vllm_cpu.py).

How (nothing of vLLM is mocked or re-implemented):

1. radpatch is built into a wheel from this checkout and pip-installed (non-editable) into a
   cached venv (benchmarks/_bench_env.py); two pristine copies of the vLLM release are made with
   harness/vllm_cpu.py; `radpatch --python COPY apply kv_group_size` patches one of them.
2. Each layout (benchmarks/layouts/*.json: a harness layout plus its "source") is planned by
   vLLM's own get_kv_cache_groups -> get_kv_cache_config_from_groups -> capacity functions
   (harness/kv_probe.py, driven by benchmarks/_probe_runner.py, one process per copy):
   * upstream       -- the pristine copy (and, as a check, the patched copy with
                       RADIANCE_KV_GROUP_OPT=0, which must agree);
   * kv_group_size  -- the patched copy, knobs at their defaults;
   * gcd            -- the gcd of vLLM's layer-bucket sizes (vllm-project/vllm#56445),
   * fewest padding -- the size minimising padded slots + 1 per group, ties to fewer groups
                       (the objective of vllm-project/vllm#49472; plain "fewest padded slots"
                       would always be the gcd, which pads nothing),
                       both forced with RADIANCE_KV_GROUP_SIZE=N on the patched copy; the patch's
                       log line says whether it took the size or refused it (a size that splits
                       the speculative drafter, or a drafter spread over several buckets) and
                       fell back to upstream -- such a row says so instead of showing upstream;
   * no group cap   -- the patched copy with RADIANCE_KV_GROUP_MAX_GROUPS=1000000;
   * sweep          -- every group size 1..largest bucket, set by the benchmark at the point
                       where the patch sets it (the runner wraps the patch's entry point) and
                       planned by vLLM: the best size with at most the cap's groups that keeps
                       the drafter together ("best capped"), and the best with any number of
                       groups -- the references the shipped choice is judged against.
   The strategies' *choice* of a size (gcd, fewest padding) is computed here from the bucket
   sizes vLLM handed the patch (recorded by the runner); every number after the choice is
   vLLM's.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _bench_env as bench  # noqa: E402

REPO = bench.REPO
RUNNER = HERE / "_probe_runner.py"
PLOTTER = HERE / "_plot_capacity.py"
PATCH = "kv_group_size"
FLAGSHIP = "01_qwen38_27b_dflash2"
NO_CAP = 1_000_000


def default_tolerance() -> float:
    """RADIANCE_KV_GROUP_TOLERANCE's default (percent), read from the shipped registry entry."""
    text = (REPO / "registry" / f"{PATCH}.yaml").read_text()
    found = re.search(r"RADIANCE_KV_GROUP_TOLERANCE:\s*\n\s*default:\s*\"?([0-9.]+)", text)
    if not found:
        raise SystemExit("capacity: cannot read RADIANCE_KV_GROUP_TOLERANCE's default")
    return float(found.group(1))


TOLERANCE = default_tolerance()
ROUNDING = 1e-4  # vLLM's integer rounding of blocks and tokens vs the patch's exact objective
WITHIN = f"within the {TOLERANCE:g}% tolerance of the best capped size"


def default_cap() -> int:
    """RADIANCE_KV_GROUP_MAX_GROUPS's default, read from the shipped registry entry."""
    text = (REPO / "registry" / f"{PATCH}.yaml").read_text()
    found = re.search(r"RADIANCE_KV_GROUP_MAX_GROUPS:\s*\n\s*default:\s*\"?(\d+)", text)
    if not found:
        raise SystemExit("capacity: cannot read RADIANCE_KV_GROUP_MAX_GROUPS's default")
    return int(found.group(1))


# ------------------------------------------------------------------ strategies' choice of a size


def gcd_size(sizes: list[int]) -> int:
    return math.gcd(*sizes)


def fewest_padding_size(sizes: list[int], per_group: float = 1.0) -> int:
    """vllm#49472: minimise padded slots + per_group * groups; ties to fewer groups."""
    best: tuple[float, int, int] | None = None
    for g in range(1, max(sizes) + 1):
        groups = sum(-(-n // g) for n in sizes)
        padding = sum(-(-n // g) * g - n for n in sizes)
        key = (padding + per_group * groups, groups, g)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2]


# ------------------------------------------------------------------------------ running vLLM


def run_runner(python: Path, layouts: dict[str, Any], jobs: list[dict[str, Any]], cwd: Path) -> dict[str, Any]:
    done = subprocess.run(
        [str(python), str(RUNNER)],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=json.dumps({"layouts": layouts, "jobs": jobs}),
        timeout=3600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    if done.returncode != 0:
        raise SystemExit(f"capacity: the probe runner failed:\n{done.stderr[-6000:]}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def radiance_messages(result: dict[str, Any]) -> list[str]:
    return [r["message"] for r in result.get("log_records", []) if "[radiance]" in r["message"]]


def patch_outcome(result: dict[str, Any]) -> str:
    """What the patch did, from the log lines it wrote through vLLM's logger."""
    text = "\n".join(radiance_messages(result))
    if "optimisation failed" in text:
        return "failed"
    match = re.search(r"no admissible group size \(([^)]+)\)", text)
    if match:
        return match.group(1)
    if "[forced by RADIANCE_KV_GROUP_SIZE" in text:
        return "forced"
    if "optimisation disabled" in text:
        return "disabled"
    if "kv cache groups: size" in text:
        return "optimised"
    return "not-called"


def drafter_buckets(call: dict[str, Any] | None) -> int:
    if not call:
        return 0
    return sum(1 for n in call["bucket_drafter_layers"] if n)


def keeps_drafter(result: dict[str, Any], n_buckets: int) -> bool:
    """The drafter's layers sit in as few groups as vLLM's buckets allow (one per bucket)."""
    return len(result.get("drafter_groups", [])) <= max(n_buckets, 1)


def shape(result: dict[str, Any]) -> str:
    counts = Counter(result["group_sizes"])
    return ", ".join(f"{n}×{size}" for size, n in sorted(counts.items(), reverse=True))


# --------------------------------------------------------------------------------- analysis


def row(
    label: str,
    how: str,
    result: dict[str, Any],
    upstream: dict[str, Any] | None,
    n_drafter_buckets: int,
    asked: int | None = None,
    valid: bool = True,
    note: str = "",
) -> dict[str, Any]:
    out: dict[str, Any] = {"strategy": label, "how": how, "asked": asked, "valid": valid, "note": note}
    if "error" in result:
        out.update(valid=False, error=result["error"])
        return out
    out.update(
        {
            k: result[k]
            for k in (
                "num_groups",
                "group_size",
                "group_sizes",
                "num_blocks",
                "blocks_per_request",
                "tokens",
                "drafter_groups",
            )
        }
    )
    out["shape"] = shape(result)
    out["keeps_drafter"] = keeps_drafter(result, n_drafter_buckets)
    if upstream is not None and "tokens" in upstream:
        out["vs_upstream"] = result["tokens"] / upstream["tokens"] - 1
    return out


def analyse(
    name: str,
    layout: dict[str, Any],
    derived: dict[str, Any],
    res: dict[str, dict[str, Any]],
    sweep: list[dict[str, Any]],
    cap: int,
) -> dict[str, Any]:
    up = res["upstream"]
    entry: dict[str, Any] = {
        "name": name,
        "title": layout.get("title", name),
        "source": layout.get("source", {}),
        "derived": derived,
        "rows": [],
        "checks": [],
        "sweep": [],
    }
    if "error" in up:
        entry["error"] = up["error"]
        return entry
    call = (res["shipped"].get("patch_calls") or [None])[0]
    ndb = drafter_buckets(call)
    entry["buckets"] = call
    rows = entry["rows"]
    rows.append(row("upstream vLLM", "pristine copy", up, None, ndb))
    off = res["opt0"]
    entry["opt0_matches"] = all(off.get(k) == up.get(k) for k in ("num_groups", "group_sizes", "num_blocks", "tokens"))
    shipped = res["shipped"]
    rows.append(row("kv_group_size (shipped)", "patched, default knobs", shipped, up, ndb, note=patch_outcome(shipped)))
    by_size = {r["asked"]: r for r in sweep}
    for key, label, how in (("gcd", "gcd of bucket sizes", "vllm#56445"), ("fewest", "fewest padding", "vllm#49472")):
        forced = res.get(key)
        if forced is None:
            rows.append(
                {
                    "strategy": label,
                    "how": how,
                    "valid": False,
                    "note": "vLLM does not reach the group-size choice for this layout",
                }
            )
            continue
        size = forced["asked_size"]
        outcome = patch_outcome(forced)
        if outcome == "forced":
            rows.append(row(label, f"{how}; RADIANCE_KV_GROUP_SIZE={size}", forced, up, ndb, asked=size))
        else:
            would = by_size.get(size, {})
            why = {
                "forced-splits-drafter": "splits the drafter",
                "drafter-spans-buckets": f"patch declines: the drafter spans {ndb} buckets",
            }.get(outcome, outcome)
            r = {
                "strategy": label,
                "how": f"{how}; RADIANCE_KV_GROUP_SIZE={size}",
                "asked": size,
                "valid": False,
                "note": why,
                "would": {k: would.get(k) for k in ("num_groups", "tokens", "drafter_groups", "vs_upstream", "shape")},
            }
            rows.append(r)
    rows.append(
        row(
            "kv_group_size, no group cap",
            f"RADIANCE_KV_GROUP_MAX_GROUPS={NO_CAP}",
            res["nocap"],
            up,
            ndb,
            note=patch_outcome(res["nocap"]),
        )
    )
    good = [r for r in sweep if r.get("tokens") is not None and r["keeps_drafter"]]
    capped = [r for r in good if r["num_groups"] <= cap]
    best_capped = max(capped, key=lambda r: (r["tokens"], -r["num_groups"]), default=None)
    best_any = max(good, key=lambda r: (r["tokens"], -r["num_groups"]), default=None)
    for ref, label in (
        (best_capped, f"best with ≤ {cap} groups (sweep)"),
        (best_any, "best, any number of groups (sweep)"),
    ):
        if ref is None:
            rows.append(
                {
                    "strategy": label,
                    "how": "every size 1..largest bucket",
                    "valid": False,
                    "note": "no size keeps the drafter together" + (f" within {cap} groups" if "≤" in label else ""),
                }
            )
        else:
            rows.append(
                {
                    **ref,
                    "strategy": label,
                    "how": f"size {ref['asked']}, set by the benchmark",
                    "valid": True,
                    "note": "",
                }
            )
    entry["sweep"] = sweep
    entry["best_capped"] = best_capped
    entry["best_any"] = best_any
    # the expectations
    s = rows[1]
    checks = entry["checks"]
    if "tokens" in s:
        checks.append(("never below upstream", s["tokens"] >= up["tokens"], f"{s['tokens']:,} vs {up['tokens']:,}"))
        checks.append(
            (
                "never splits the drafter",
                s["keeps_drafter"],
                f"drafter layers in {len(s['drafter_groups'])} group(s), {ndb} drafter bucket(s)",
            )
        )
        checks.append((f"at most {cap} groups", s["num_groups"] <= cap, f"{s['num_groups']} groups"))
        admissible = s["keeps_drafter"] and s["num_groups"] <= cap
        if best_capped is not None:
            gap = s["tokens"] / best_capped["tokens"] - 1
            entry["gap_to_best_capped"] = gap
            detail = f"{gap:+.2%} (best: size {best_capped['asked']}, {best_capped['tokens']:,} tokens)"
            if admissible:
                checks.append((WITHIN, gap >= -TOLERANCE / 100 - ROUNDING, detail))
            else:
                checks.append(
                    (WITHIN, None, f"not comparable: the shipped plan breaks the cap or the drafter rule; {detail}")
                )
        else:
            checks.append((WITHIN, None, "no capped size keeps the drafter together"))
        if best_any is not None:
            entry["gap_to_best_any"] = s["tokens"] / best_any["tokens"] - 1
        nocap = next((r for r in rows if r["strategy"].startswith("kv_group_size, no")), None)
        if nocap is not None and "tokens" in nocap:
            entry["limit"] = nocap
            entry["gap_to_limit"] = s["tokens"] / nocap["tokens"] - 1
    loose = [r for r in sweep if r.get("tokens") is not None and r["num_groups"] <= cap]
    entry["best_capped_drafter_may_split"] = max(loose, key=lambda r: (r["tokens"], -r["num_groups"]), default=None)
    checks.append(("RADIANCE_KV_GROUP_OPT=0 equals the pristine copy", entry["opt0_matches"], ""))
    return entry


# ---------------------------------------------------------------------------------- report


def fmt_tokens(v: Any) -> str:
    return f"{v:,}" if isinstance(v, int) else "—"


def fmt_pct(v: Any) -> str:
    return f"{v:+.1%}" if isinstance(v, float) else "—"


def drafter_cell(r: dict[str, Any], has_drafter: bool) -> str:
    if not has_drafter or "drafter_groups" not in r:
        return "" if not has_drafter else "—"
    n = len(r["drafter_groups"])
    return f"{n} group" + ("s" if n != 1 else "") + ("" if r.get("keeps_drafter") else " ✗")


def explain(entry: dict[str, Any], cap: int) -> list[str]:
    """Plain-language notes for the expectations that fail."""
    notes: list[str] = []
    shipped = entry["rows"][1]
    outcome = shipped.get("note")
    failed = [c for c in entry["checks"] if c[1] is False]
    if not failed:
        return notes
    if outcome == "drafter-spans-buckets":
        b = entry["buckets"]
        notes.append(
            "The drafter's layers fall in "
            f"{drafter_buckets(b)} of vLLM's layer buckets (bucket sizes {b['bucket_sizes']}, "
            f"drafter layers per bucket {b['bucket_drafter_layers']}): its sliding-window and "
            "full-attention layers have a KV shape of their own. kv_group_size only reasons "
            "about a drafter inside one bucket, so it declines and keeps upstream's size "
            f"{b['upstream_size']} ({shipped.get('num_groups')} groups), which also spreads the "
            "drafter over one group per layer. It is never below upstream here, but the cap and "
            "the drafter rule are not met. vLLM 0.33 serves a mixed sliding/full DFlash drafter "
            "only with the V2 model runner, which accepts a drafter over several groups; a size "
            "that keeps each drafter bucket whole"
            + (
                f" (best: size {entry['best_capped']['asked']}, "
                f"{entry['best_capped']['num_groups']} groups, "
                f"{fmt_pct(entry['best_capped'].get('vs_upstream'))} vs upstream)"
                if entry.get("best_capped")
                else ""
            )
            + " is what the patch would need to choose (treat each drafter bucket like a "
            "one-bucket drafter)."
            + (
                f" If the V2 runner also tolerates a drafter bucket split over groups, the best "
                f"size within the cap is {loose['asked']} ({loose['num_groups']} groups, "
                f"{fmt_pct(loose.get('vs_upstream'))} vs upstream, drafter in "
                f"{len(loose['drafter_groups'])} groups)."
                if (loose := entry.get("best_capped_drafter_may_split"))
                else ""
            )
        )
    for name, _ok, detail in failed:
        if name == WITHIN and outcome != "drafter-spans-buckets":
            notes.append(
                f"Shipped choice {detail}: the patch minimises group size × blocks per "
                "request, which is capacity up to vLLM's integer rounding, then takes "
                "the fewest groups within RADIANCE_KV_GROUP_TOLERANCE."
            )
    return notes


def write_markdown(path: Path, report: dict[str, Any]) -> None:
    cap = report["cap"]
    L: list[str] = []
    L.append("# KV cache capacity by group-size strategy")
    L.append("")
    L.append(
        f"Generated by `python benchmarks/capacity.py --vllm {report['vllm']}` on "
        f"{report['date']} (radpatch wheel `{report['wheel']}` built from checkout "
        f"{report['revision']}). Every number below is "
        f"vLLM {report['vllm']}'s own `get_kv_cache_groups` → "
        "`get_kv_cache_config_from_groups` → capacity functions on real spec objects "
        "(harness/kv_probe.py), run on the CPU; nothing of vLLM is mocked or re-implemented."
    )
    L.append("")
    L.append("Strategies:")
    L.append("")
    L.append(
        "- **upstream vLLM**: a pristine copy of the release (the patched copy with "
        "`RADIANCE_KV_GROUP_OPT=0` is checked to give the same plan)."
    )
    L.append(
        "- **kv_group_size (shipped)**: the patched copy, knobs at their defaults "
        f"(`RADIANCE_KV_GROUP_MAX_GROUPS={cap}`, `RADIANCE_KV_GROUP_TOLERANCE={TOLERANCE:g}`: "
        "the fewest groups among sizes within that many percent of the best capacity; "
        "the capacity × groups front of every layout is in front.md)."
    )
    L.append(
        "- **gcd of bucket sizes** (vllm-project/vllm#56445) and **fewest padding** "
        "(vllm-project/vllm#49472: minimise padded slots + 1 per group, ties to fewer "
        "groups; plain fewest padded slots is always the gcd): the size is computed from "
        "the layer-bucket sizes vLLM hands the patch and forced with "
        "`RADIANCE_KV_GROUP_SIZE=N`. Where the patch refuses the size (it would split the "
        "speculative drafter, or the drafter spans several buckets) the row says so; "
        "the figures vLLM would give at that size are in the note."
    )
    L.append(f"- **kv_group_size, no group cap**: `RADIANCE_KV_GROUP_MAX_GROUPS={NO_CAP}`.")
    L.append(
        "- **best (sweep)**: every group size from 1 to the largest bucket, set by the "
        "benchmark where the patch sets it and planned by vLLM; *best with ≤ "
        f"{cap} groups* keeps the drafter together (one group per drafter bucket) and "
        "respects the cap; *best, any number of groups* is the limit."
    )
    L.append("")
    L.append(
        "`groups (layers each)`: e.g. `8×8, 1×5` is 8 groups of 8 layers and one of 5 "
        "(the allocator pads every group to the largest). `drafter`: how many KV cache "
        "groups hold the drafter's layers (✗: more than its buckets need; vLLM's proposer "
        "asserts one group on the V1 runner)."
    )
    L.append("")
    # summary
    L.append("## Summary")
    L.append("")
    L.append(
        "| layout | upstream tokens | kv_group_size tokens | vs upstream | groups "
        "(upstream → shipped) | best ≤ cap (sweep) | shipped vs best ≤ cap | limit: no "
        "cap (groups) | shipped vs limit | expectations |"
    )
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for e in report["layouts"]:
        if "error" in e:
            L.append(f"| {e['title']} | harness cannot build it: {e['error']} | | | | | | | | |")
            continue
        up, s = e["rows"][0], e["rows"][1]
        bc = e.get("best_capped")
        lim = e.get("limit")
        fails = [c[0] for c in e["checks"] if c[1] is False]
        L.append(
            f"| {e['title']} | {fmt_tokens(up.get('tokens'))} | {fmt_tokens(s.get('tokens'))} "
            f"| {fmt_pct(s.get('vs_upstream'))} | {up.get('num_groups')} → {s.get('num_groups')}"
            f" | {fmt_tokens(bc['tokens']) if bc else '—'} "
            f"| {fmt_pct(e.get('gap_to_best_capped'))} "
            f"| {fmt_tokens(lim['tokens']) + ' (' + str(lim['num_groups']) + ')' if lim else '—'} "
            f"| {fmt_pct(e.get('gap_to_limit'))} "
            f"| {'all met' if not fails else '✗ ' + '; '.join(fails)} |"
        )
    L.append("")
    for e in report["layouts"]:
        L.append(f"## {e['title']}")
        L.append("")
        L.append(f"Layout file: `benchmarks/layouts/{e['name']}.json`.")
        L.append("")
        for k, v in e["source"].items():
            L.append(f"- {k.replace('_', ' ')}: {v}")
        d = e["derived"]
        if "error" in d or "error" in e:
            L.append("")
            L.append(
                f"**Not probed: {e.get('error') or d.get('error')}** — the harness "
                f"(harness/kv_probe.py) or vLLM {report['vllm']} cannot build this layout's "
                "specs yet."
            )
            L.append("")
            continue
        b = e.get("buckets") or {}
        L.append(
            f"- as probed: block size {d['block_size']}, page {d['page_size']:,} B, "
            f"{d['num_pages']:,} pages ({d['kv_cache_bytes'] / 2**30:.2f} GiB of KV cache)"
            + (
                "; Mamba state shapes/dtypes (vLLM's calculators): "
                + "; ".join(f"{s} {t}" for s, t in d["mamba_shapes"].values())
                if d.get("mamba_shapes")
                else ""
            )
        )
        if b:
            L.append(
                f"- vLLM's layer buckets: sizes {b['bucket_sizes']}, spec "
                f"{b['bucket_kinds']}, per-group blocks per request "
                f"{b.get('bucket_costs')}, drafter layers {b['bucket_drafter_layers']}; "
                f"upstream's size {b['upstream_size']}"
            )
        L.append("")
        has_drafter = bool(d.get("draft_layers"))
        L.append(
            "| strategy | size | groups (layers each) | blocks | blocks/request | "
            "KV tokens | vs upstream | drafter | note |"
        )
        L.append("|---|---|---|---|---|---|---|---|---|")
        for r in e["rows"]:
            if "tokens" in r and r.get("valid", True):
                size = r.get("group_size")
                if r.get("asked") and r["asked"] != size:
                    size = f"{r['asked']} → {size}"
                L.append(
                    f"| {r['strategy']} ({r['how']}) | {size} | {r['num_groups']} "
                    f"({r['shape']}) | {r['num_blocks']:,} | {r['blocks_per_request']:,} | "
                    f"**{r['tokens']:,}** | {fmt_pct(r.get('vs_upstream'))} | "
                    f"{drafter_cell(r, has_drafter)} | "
                    f"{'' if r.get('note') in ('optimised', 'forced', '', None) else r['note']} |"
                )
            else:
                w = r.get("would") or {}
                would = (
                    f"; at size {r.get('asked')} vLLM would give {w['num_groups']} groups, "
                    f"{w['tokens']:,} tokens ({fmt_pct(w.get('vs_upstream'))}), drafter in "
                    f"{len(w['drafter_groups'] or [])} groups"
                    if w.get("tokens")
                    else ""
                )
                L.append(
                    f"| {r['strategy']} ({r['how']}) | {r.get('asked') or '—'} | — | — | — "
                    f"| — | — | — | **{r.get('note') or r.get('error')}**{would} |"
                )
        L.append("")
        L.append(
            "Expectations: "
            + "; ".join(
                f"{name} {'✓' if ok else ('✗' if ok is False else '?')}" + (f" ({detail})" if detail else "")
                for name, ok, detail in e["checks"]
            )
            + "."
        )
        for note in explain(e, cap):
            L.append("")
            L.append(f"Why: {note}")
        L.append("")
        # compact sweep
        seen: dict[tuple[int, str], dict[str, Any]] = {}
        for r in e["sweep"]:
            if r.get("tokens") is None:
                continue
            key = (r["num_groups"], r["shape"])
            seen.setdefault(key, r)
        L.append(
            "<details><summary>Sweep: every distinct grouping vLLM produces for sizes "
            f"1..{max(b.get('bucket_sizes') or [1])}</summary>"
        )
        L.append("")
        L.append("| size | groups (layers each) | blocks/request | KV tokens | vs upstream | drafter |")
        L.append("|---|---|---|---|---|---|")
        for r in sorted(seen.values(), key=lambda r: r["asked"]):
            L.append(
                f"| {r['asked']} | {r['num_groups']} ({r['shape']}) | "
                f"{r['blocks_per_request']:,} | {r['tokens']:,} | "
                f"{fmt_pct(r.get('vs_upstream'))} | {drafter_cell(r, has_drafter)} |"
            )
        L.append("")
        L.append("</details>")
        L.append("")
    path.write_text("\n".join(L) + "\n")


# ------------------------------------------------------------------------------------ main


def load_layouts(only: list[str] | None) -> dict[str, Any]:
    files = sorted((HERE / "layouts").glob("*.json"))
    layouts = {f.stem: json.loads(f.read_text()) for f in files}
    if only:
        unknown = [n for n in only if n not in layouts]
        if unknown:
            raise SystemExit(f"capacity: no layout {unknown}; have {list(layouts)}")
        layouts = {n: layouts[n] for n in only}
    return layouts


RELEASE_LAYOUTS = ["01_qwen38_27b_dflash2", "06_gemma3_27b", "07_mimo_v2_flash_mtp"]


def release_row(
    version: str, name: str, up: dict[str, Any], shipped: dict[str, Any], off: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"vllm": version, "layout": name}
    if "error" in up or "error" in shipped:
        out["error"] = up.get("error") or shipped.get("error")
        return out
    out.update(
        {
            "upstream": {k: up[k] for k in ("group_size", "num_groups", "blocks_per_request", "tokens")},
            "shipped": {k: shipped[k] for k in ("group_size", "num_groups", "blocks_per_request", "tokens")},
            "vs_upstream": shipped["tokens"] / up["tokens"] - 1,
            "opt0_matches": all(off.get(k) == up.get(k) for k in ("num_groups", "group_sizes", "num_blocks", "tokens")),
            "keeps_drafter": len(shipped.get("drafter_groups", [])) <= 1,
            "info": radiance_messages(shipped),
        }
    )
    return out


def per_release(versions: list[str], out_dir: Path) -> int:
    """capacity_releases.{md,json}: upstream vs kv_group_size (default knobs) for a few layouts,
    on each release, through the same pristine/patched copies and vLLM planning as main()."""
    layouts = load_layouts(RELEASE_LAYOUTS)
    venv, wheel = bench.radpatch_venv()
    radpatch = venv / "bin" / "radpatch"
    work = bench.bench_cache() / "work"
    work.mkdir(exist_ok=True)
    rows: list[dict[str, Any]] = []
    for version in versions:
        bench.say(f"vLLM {version}")
        pristine = bench.fresh_vllm(version)
        patched = bench.fresh_vllm(version)
        try:
            bench.run([radpatch, "--python", patched, "apply", PATCH], cwd=work)
            up = run_runner(pristine, layouts, [{"layout": n} for n in layouts], work)
            jobs = [j for n in layouts for j in ({"layout": n}, {"layout": n, "env": {"RADIANCE_KV_GROUP_OPT": "0"}})]
            got = run_runner(patched, layouts, jobs, work)["results"]
        finally:
            bench.remove_copy(pristine)
            bench.remove_copy(patched)
        for i, n in enumerate(layouts):
            rows.append(release_row(version, n, up["results"][i], got[2 * i], got[2 * i + 1]))
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {
        "wheel": wheel.name,
        "revision": bench.checkout_revision(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    (out_dir / "capacity_releases.json").write_text(json.dumps({**meta, "rows": rows}, indent=1, default=str) + "\n")
    titles = {n: l.get("title", n) for n, l in layouts.items()}
    L = [
        "# kv_group_size per vLLM release (CPU harness)",
        "",
        f"Generated by `python benchmarks/capacity.py --per-release {' '.join(versions)}` on "
        f"{meta['date']} (radpatch wheel `{meta['wheel']}` from checkout {meta['revision']}). "
        "Each release is a pristine and a patched copy from harness/vllm_cpu.py; `radpatch "
        "apply kv_group_size` patches the second; every figure is that release's own "
        "`get_kv_cache_groups` → `get_kv_cache_config_from_groups` → capacity functions on "
        "real spec objects (harness/kv_probe.py). Default knobs; `OPT=0` checks that "
        "`RADIANCE_KV_GROUP_OPT=0` gives the pristine plan back.",
        "",
        "| vLLM | layout | upstream: size, groups, tokens | kv_group_size: size, groups, "
        "tokens | vs upstream | drafter in one group | OPT=0 = pristine |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            L.append(f"| {r['vllm']} | {titles[r['layout']]} | not probed: {r['error'][:160]} | | | | |")
            continue
        u, s = r["upstream"], r["shipped"]
        L.append(
            f"| {r['vllm']} | {titles[r['layout']]} | {u['group_size']}, {u['num_groups']}, "
            f"{u['tokens']:,} | {s['group_size']}, {s['num_groups']}, {s['tokens']:,} | "
            f"{fmt_pct(r['vs_upstream'])} | {'yes' if r['keeps_drafter'] else 'NO'} | "
            f"{'yes' if r['opt0_matches'] else 'NO'} |"
        )
    (out_dir / "capacity_releases.md").write_text("\n".join(L) + "\n")
    print(f"wrote {out_dir / 'capacity_releases.md'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", default="0.33.0", help="vLLM release (default 0.33.0)")
    parser.add_argument("--layouts", nargs="*", help="layout names (benchmarks/layouts/*.json)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--per-release",
        nargs="+",
        metavar="VERSION",
        help=f"instead: upstream vs shipped on these releases, for {', '.join(RELEASE_LAYOUTS)} (capacity_releases.md)",
    )
    args = parser.parse_args(argv)
    if args.per_release:
        return per_release(args.per_release, args.out)
    layouts = load_layouts(args.layouts)
    cap = default_cap()
    venv, wheel = bench.radpatch_venv()
    radpatch = venv / "bin" / "radpatch"
    work = bench.bench_cache() / "work"
    work.mkdir(exist_ok=True)
    bench.say(f"vLLM {args.vllm}: a pristine and a patched copy")
    pristine = bench.fresh_vllm(args.vllm)
    patched = bench.fresh_vllm(args.vllm)
    try:
        applied = bench.run([radpatch, "--python", patched, "apply", PATCH], cwd=work)
        bench.say(applied.stdout.strip())
        states = {}
        for label, py in (("pristine", pristine), ("patched", patched)):
            (st,) = json.loads(bench.run([radpatch, "--python", py, "status", "--json", PATCH], cwd=work).stdout)
            states[label] = st["state"]
        if states != {"pristine": "not-applied", "patched": "applied"}:
            raise SystemExit(f"capacity: unexpected patch states {states}")

        bench.say("upstream: vLLM's plan on the pristine copy")
        up = run_runner(pristine, layouts, [{"layout": n} for n in layouts], work)
        bench.say("kv_group_size: default knobs, OPT=0, no cap")
        jobs: list[dict[str, Any]] = []
        for n in layouts:
            jobs += [
                {"layout": n, "tag": "shipped"},
                {"layout": n, "tag": "opt0", "env": {"RADIANCE_KV_GROUP_OPT": "0"}},
                {"layout": n, "tag": "nocap", "env": {"RADIANCE_KV_GROUP_MAX_GROUPS": str(NO_CAP)}},
            ]
        first = run_runner(patched, layouts, jobs, work)
        results: dict[str, dict[str, Any]] = {n: {} for n in layouts}
        for n, r in zip(layouts, up["results"]):
            results[n]["upstream"] = r
        for job, r in zip(jobs, first["results"]):
            results[job["layout"]][job["tag"]] = r
        bench.say("strategies forced by RADIANCE_KV_GROUP_SIZE, and the sweep over every size")
        jobs2: list[dict[str, Any]] = []
        for n in layouts:
            call = (results[n]["shipped"].get("patch_calls") or [None])[0]
            if not call:
                continue
            sizes = call["bucket_sizes"]
            for tag, size in (("gcd", gcd_size(sizes)), ("fewest", fewest_padding_size(sizes))):
                jobs2.append({"layout": n, "tag": tag, "size": size, "env": {"RADIANCE_KV_GROUP_SIZE": str(size)}})
            for g in range(1, max(sizes) + 1):
                jobs2.append({"layout": n, "tag": "sweep", "size": g, "hook_size": g})
        second = run_runner(patched, layouts, jobs2, work) if jobs2 else {"results": []}
        sweeps: dict[str, list[dict[str, Any]]] = {n: [] for n in layouts}
        for job, r in zip(jobs2, second["results"]):
            n = job["layout"]
            if job["tag"] == "sweep":
                ndb = drafter_buckets((results[n]["shipped"].get("patch_calls") or [None])[0])
                sweeps[n].append(row("sweep", "hook", r, results[n]["upstream"], ndb, asked=job["size"]))
            else:
                results[n][job["tag"]] = {**r, "asked_size": job["size"]}
    finally:
        bench.remove_copy(pristine)
        bench.remove_copy(patched)

    report = {
        "vllm": args.vllm,
        "wheel": wheel.name,
        "cap": cap,
        "revision": bench.checkout_revision(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "layouts": [],
    }
    for n, layout in layouts.items():
        derived = up["layouts"][n]
        report["layouts"].append(analyse(n, layout, derived, results[n], sweeps[n], cap))
    args.out.mkdir(parents=True, exist_ok=True)
    for per_layout in results.values():  # keep the raw file readable: log lines, not records
        for r in per_layout.values():
            r.pop("log_records", None)
            r.pop("traceback", None)
    raw = {"report": report, "results": results}
    (args.out / "capacity.json").write_text(json.dumps(raw, indent=1, default=str) + "\n")
    write_markdown(args.out / "capacity.md", report)
    bench.run([venv / "bin" / "python", PLOTTER, args.out / "capacity.json", args.out / "capacity.png"])
    # console summary
    for e in report["layouts"]:
        if "error" in e:
            print(f"{e['title']}: not probed ({e['error']})")
            continue
        u, s = e["rows"][0], e["rows"][1]
        fails = [c[0] for c in e["checks"] if c[1] is False]
        print(
            f"{e['title']}: upstream {fmt_tokens(u.get('tokens'))} ({u.get('num_groups')} "
            f"groups) -> kv_group_size {fmt_tokens(s.get('tokens'))} ({s.get('num_groups')} "
            f"groups, {fmt_pct(s.get('vs_upstream'))}); vs best capped "
            f"{fmt_pct(e.get('gap_to_best_capped'))}" + (f"; NOT MET: {', '.join(fails)}" if fails else "")
        )
    print(f"wrote {args.out / 'capacity.md'}, {args.out / 'capacity.png'}, {args.out / 'capacity.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""kv_group_size against every upstream and downstream proposal for vLLM's hybrid KV cache group
size, on every benchmark layout, from vLLM's own planning functions.

    python benchmarks/peers.py [--vllm 0.33.0] [--layouts NAME ...] [--out benchmarks/results]

Writes benchmarks/results/peers.md (per layout: each rule's size, groups and KV tokens, radpatch's
default and its knobs, the capacity x groups front, the goals checked, and where radpatch differs
from a proposal what the model says), peers.json (every figure) and peers.png (one panel per
layout: every size vLLM can produce, the front, upstream, each proposal, radpatch's default).

How (nothing of vLLM is mocked; the rules are re-stated from their own descriptions):

* radpatch is built into a wheel from this checkout and pip-installed into a cached venv
  (benchmarks/_bench_env.py); a pristine and a patched copy of the vLLM release come from
  harness/vllm_cpu.py and `radpatch apply kv_group_size` patches the second;
* upstream = the pristine copy's plan; radpatch = the patched copy at default knobs, and with
  RADIANCE_KV_GROUP_OBJECTIVE=capacity / upstream-floor;
* each proposal's rule picks a size from what vLLM hands the group-size choice (the layer
  buckets, their spec classes and per-group blocks per request, recorded by
  benchmarks/_probe_runner.py); the patched copy's planner is then made to use exactly that size
  at the point where the patch sets it (`hook_size`), and vLLM's get_kv_cache_groups ->
  get_kv_cache_config_from_groups -> capacity functions give its groups and tokens;
* the front: every size 1..largest bucket set the same way; the sizes that give the same
  grouping are one point; a point is on the front when it keeps the speculative drafter together
  (one group per drafter bucket) and no other such point has at least its tokens with fewer
  groups (or more tokens with as many).

The rules (each cited; "buckets" = vLLM's layer buckets, L_b layers each):

* upstream 0.33.0 -- vLLM's own heuristic: min L_b, or max L_b when max < 1.5 min.
* vllm#49472, alpha = 1 -- the size minimising padding + 1.0 x groups, ties to fewer groups
  (`_select_group_size`, `padding_per_group` default 1.0).
* vllm#51742 -- upstream's heuristic with one-layer buckets left out of the `min` ("exclude
  buckets with 1 layer from the min computation").
* vllm#58175 -- upstream's width w; when it pads a full-attention bucket, the largest divisor of
  the full-attention bucket counts no larger than w ("Choosing the largest divisor of the
  full-attention bucket counts no larger than the existing width"); the near-equal-bucket
  heuristic is kept.
* vllm#31275 -- padding overhead per size weighted by each layer's memory use (here its blocks
  per request), prefer the largest size >= 3 whose overhead is <= 10%, else the size of least
  overhead ("Prefers larger group sizes (>=3) ... Falls back to smaller sizes only if overhead
  exceeds 10% threshold").
* 1CatAI/1Cat-vLLM#343 -- only when the smallest bucket has one layer: the largest divisor of
  the gcd of the other buckets' counts whose total padding (padded slots / layers) is <= 20%,
  else 1; otherwise upstream's heuristic.
* local-inference-lab/vllm#603 -- the grouping of least maximum-request allocation cost
  (size x blocks per request, the shared pool's bytes per request) among those with at most 8
  groups, ties to fewer groups, upstream's grouping when none qualifies.
* vllm#49730's override -- size 16 ("manually override this decision to use e.g. group_size=16").

The model (patches/kv_group_size/README.md): a plan's KV-bound throughput is proportional to
tokens / (1 + r x groups), r = RADIANCE_KV_GROUP_STEP_COST (read from the shipped registry). For
every proposal that differs from radpatch's default the report gives the modelled throughput
ratio and the break-even r* at which the two plans tie.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _bench_env as bench
import capacity
from _plot_groups import groups_axis, mark_upstream, panels

PATCH = "kv_group_size"
FULL = "FullAttentionSpec"
OBJECTIVES = ("capacity", "upstream-floor")


def registry_default(knob: str) -> str:
    text = (bench.REPO / "registry" / f"{PATCH}.yaml").read_text()
    found = re.search(rf"{knob}:\s*\n\s*default:\s*\"?([^\"\n]*)", text)
    if not found:
        raise SystemExit(f"peers: cannot read {knob}'s default from the registry")
    return found.group(1)


# ------------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Buckets:
    """What vLLM hands the group-size choice, as the probe runner recorded it."""

    sizes: list[int]
    kinds: list[str]
    costs: list[int]
    upstream: int


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def groups(b: Buckets, g: int) -> int:
    return sum(cdiv(n, g) for n in b.sizes)


def padding(b: Buckets, g: int) -> int:
    return sum(cdiv(n, g) * g - n for n in b.sizes)


def heuristic(sizes: list[int]) -> int:
    """vLLM 0.18+'s group size: min, or max when max < 1.5 min."""
    lo, hi = min(sizes), max(sizes)
    return hi if hi < lo * 1.5 else lo


def rule_49472(b: Buckets) -> int:
    best = min(range(1, max(b.sizes) + 1), key=lambda g: (padding(b, g) + groups(b, g), groups(b, g), g))
    return best


def rule_51742(b: Buckets) -> int:
    kept = [n for n in b.sizes if n > 1]
    return heuristic(kept) if kept else 1


def rule_58175(b: Buckets) -> int:
    w = heuristic(b.sizes)
    full = [n for n, kind in zip(b.sizes, b.kinds) if kind == FULL]
    if not full or all(n % w == 0 for n in full):
        return w
    common = math.gcd(*full)
    return max(d for d in range(1, w + 1) if common % d == 0)


def rule_31275(b: Buckets) -> int:
    total = sum(n * c for n, c in zip(b.sizes, b.costs)) or 1

    def overhead(g: int) -> Fraction:
        return Fraction(sum((cdiv(n, g) * g - n) * c for n, c in zip(b.sizes, b.costs)), total)

    sizes = range(1, max(b.sizes) + 1)
    large = [g for g in sizes if g >= 3 and overhead(g) <= Fraction(1, 10)]
    if large:
        return max(large)
    return min(sizes, key=lambda g: (overhead(g), -g))


def rule_1cat_343(b: Buckets) -> int:
    if min(b.sizes) != 1:
        return heuristic(b.sizes)
    repeated = [n for n in b.sizes if n > 1]
    if not repeated:
        return 1
    common = math.gcd(*repeated)
    ok = [
        d for d in range(1, common + 1) if common % d == 0 and Fraction(padding(b, d), sum(b.sizes)) <= Fraction(1, 5)
    ]
    return max(ok) if ok else 1


def rule_603(b: Buckets) -> int:
    def cost(g: int) -> int:
        size = max(cdiv(n, cdiv(n, g)) for n in b.sizes)
        return size * sum(cdiv(n, g) * c for n, c in zip(b.sizes, b.costs))

    within = [g for g in range(1, max(b.sizes) + 1) if groups(b, g) <= 8]
    if not within:
        return b.upstream
    return min(within, key=lambda g: (cost(g), groups(b, g), g))


def rule_16(b: Buckets) -> int:
    return 16


@dataclass(frozen=True)
class Rule:
    key: str
    label: str
    cite: str
    pick: Callable[[Buckets], int]


RULES = (
    Rule("49472", "#49472 (α = 1)", "vllm-project/vllm#49472", rule_49472),
    Rule("51742", "#51742", "vllm-project/vllm#51742", rule_51742),
    Rule("58175", "#58175", "vllm-project/vllm#58175", rule_58175),
    Rule("31275", "#31275", "vllm-project/vllm#31275", rule_31275),
    Rule("1cat343", "1CatAI #343", "1CatAI/1Cat-vLLM#343", rule_1cat_343),
    Rule("lil603", "local-inference-lab #603", "local-inference-lab/vllm#603", rule_603),
    Rule("size16", "size 16 (#49730)", "vllm-project/vllm#49730", rule_16),
)


# -------------------------------------------------------------------------------- analysis


def plan(r: dict[str, Any], ndb: int) -> dict[str, Any]:
    return {
        "group_size": r["group_size"],
        "groups": r["num_groups"],
        "tokens": r["tokens"],
        "blocks_per_request": r["blocks_per_request"],
        "drafter_groups": len(r.get("drafter_groups", [])),
        "keeps_drafter": capacity.keeps_drafter(r, ndb),
        "shape": capacity.shape(r),
    }


def score(p: dict[str, Any], r: float) -> float:
    """Modelled KV-bound throughput, up to a constant: tokens / (1 + r% x groups)."""
    return float(p["tokens"]) / (1 + r / 100 * float(p["groups"]))


def break_even(a: dict[str, Any], b: dict[str, Any]) -> float | None:
    """The step cost r (percent) at which plans a and b model the same throughput."""
    ka, kb, na, nb = a["tokens"], b["tokens"], a["groups"], b["groups"]
    den = kb * na - ka * nb
    if den == 0:
        return None
    r = (ka - kb) / den
    return 100 * r if r > 0 else None


def why(default: dict[str, Any], other: dict[str, Any], r: float, cap: int) -> str:
    """What the model says about radpatch's default against another plan."""
    if not other["keeps_drafter"]:
        return f"splits the drafter over {other['drafter_groups']} groups (vLLM's proposer asserts one)"
    if other["groups"] > cap:
        return f"{other['groups']} groups, above the cap of {cap}"
    if (other["groups"], other["tokens"]) == (default["groups"], default["tokens"]):
        return "same plan"
    ratio = score(default, r) / score(other, r) - 1
    dk = default["tokens"] / other["tokens"] - 1
    dn = default["groups"] - other["groups"]
    be = break_even(default, other)
    if dn > 0:
        tail = f"; pays while a group costs < {be:.2f}% of a step" if be is not None else ""
        return f"{dn} more groups for {dk:+.2%} capacity: {ratio:+.2%} modelled KV-bound throughput at r = {r:g}%{tail}"
    if dn < 0 and dk >= 0:
        return f"dominated: {-dn} fewer groups and {dk:+.2%} capacity with radpatch's default"
    if dn < 0:
        tail = f"; the other plan pays only while a group costs < {be:.2f}% of a step" if be is not None else ""
        return (
            f"{-dn} fewer groups for {dk:+.2%} capacity: {ratio:+.2%} modelled KV-bound throughput at r = {r:g}%{tail}"
        )
    return f"as many groups, {dk:+.2%} capacity"


SENSITIVITY = (0.0, 0.2, 0.42, 0.75, 1.0, 2.0, 4.0)


def pick_at(points: list[dict[str, Any]], r: float, cap: int) -> dict[str, Any] | None:
    """The model's choice among vLLM's plans at step cost r (None: no plan within the cap keeps
    the drafter together)."""
    ok = [p for p in points if p["keeps_drafter"] and p["groups"] <= cap]
    return max(ok, key=lambda p: (score(p, r), -p["groups"]), default=None)


def front(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ok = [p for p in points if p["keeps_drafter"]]
    return [
        p
        for p in ok
        if not any(
            q is not p
            and q["groups"] <= p["groups"]
            and q["tokens"] >= p["tokens"]
            and (q["groups"], q["tokens"]) != (p["groups"], p["tokens"])
            for q in ok
        )
    ]


def analyse(
    name: str,
    layout: dict[str, Any],
    up: dict[str, Any],
    default: dict[str, Any],
    knobs: dict[str, dict[str, Any]],
    by_size: dict[int, dict[str, Any]],
    picks: dict[str, int],
    cap: int,
    r: float,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "title": layout.get("title", name), "source": layout.get("source", {})}
    if "error" in up or "error" in default:
        entry["error"] = up.get("error") or default.get("error")
        return entry
    call = (default.get("patch_calls") or [None])[0]
    ndb = capacity.drafter_buckets(call)
    entry["buckets"] = call
    entry["upstream"] = plan(up, ndb)
    entry["default"] = {**plan(default, ndb), "info": capacity.radiance_messages(default)}
    entry["knobs"] = {
        k: {**plan(v, ndb), "info": capacity.radiance_messages(v)} for k, v in knobs.items() if "error" not in v
    }
    points: dict[int, dict[str, Any]] = {}
    for size in sorted(by_size):
        res = by_size[size]
        if "error" in res or res["group_size"] in points or size > max(call["bucket_sizes"]):
            continue
        points[res["group_size"]] = plan(res, ndb)
    pts = sorted(points.values(), key=lambda p: p["group_size"])
    on_front = front(pts)
    for p in pts:
        p["front"] = any(p is q for q in on_front)
    entry["points"] = pts
    d = entry["default"]
    entry["rules"] = []
    for rule in RULES:
        size = picks[rule.key]
        res = by_size[size]
        if "error" in res:
            entry["rules"].append(
                {"key": rule.key, "label": rule.label, "cite": rule.cite, "asked": size, "error": res["error"]}
            )
            continue
        p = plan(res, ndb)
        entry["rules"].append(
            {"key": rule.key, "label": rule.label, "cite": rule.cite, "asked": size, **p, "why": why(d, p, r, cap)}
        )
    u = entry["upstream"]
    entry["upstream_why"] = why(d, u, r, cap)
    same = [p for p in pts if (p["groups"], p["tokens"]) == (d["groups"], d["tokens"])]
    beaters = [
        x
        for x in entry["rules"] + [{**u, "label": "upstream"}]
        if "error" not in x and x["keeps_drafter"] and x["tokens"] >= d["tokens"] and x["groups"] < d["groups"]
    ]
    entry["goals"] = {
        "on the front": bool(same) and any(p["front"] for p in same),
        "within the cap": d["groups"] <= cap,
        "keeps the drafter": d["keeps_drafter"],
        "no proposal has >= its tokens with fewer groups": not beaters,
    }
    entry["beaters"] = [x["label"] for x in beaters]
    return entry


# ------------------------------------------------------------------------------------ report


def pct(v: float) -> str:
    return f"{v:+.2%}"


def cell(p: dict[str, Any], up: dict[str, Any]) -> str:
    mark = "" if p["keeps_drafter"] else " ✗"
    return f"{p['groups']} / {p['tokens']:,} ({pct(p['tokens'] / up['tokens'] - 1)}){mark}"


def write_markdown(path: Path, report: dict[str, Any]) -> None:
    cap, r = report["cap"], report["step_cost"]
    labels = [rule.label for rule in RULES]
    L: list[str] = [
        "# kv_group_size against the other group-size proposals",
        "",
        (
            f"Generated by `python benchmarks/peers.py --vllm {report['vllm']}` on {report['date']} "
            f"(radpatch wheel `{report['wheel']}` from checkout {report['revision']}). Every plan is "
            f"vLLM {report['vllm']}'s own `get_kv_cache_groups` → `get_kv_cache_config_from_groups` → "
            "capacity functions on real spec objects, on the CPU (harness/kv_probe.py); a proposal's "
            "size is chosen by its rule (benchmarks/peers.py cites each one) from the buckets vLLM hands "
            "the group-size choice, and set where kv_group_size sets it."
        ),
        "",
        (
            f"Cells: KV cache groups / KV tokens (vs upstream). ✗: the plan splits the speculative "
            f"drafter (more groups than drafter buckets; vLLM's V1 proposer asserts one group). "
            f"radpatch default: `RADIANCE_KV_GROUP_OBJECTIVE=throughput`, step cost r = {r:g}% per "
            f"group, cap {cap} groups. Model: KV-bound throughput ∝ tokens / (1 + r × groups)."
        ),
        "",
        "| layout | upstream 0.33.0 | **radpatch default** | " + " | ".join(labels) + " |",
        "|---|---|---|" + "---|" * len(labels),
    ]
    for e in report["layouts"]:
        if "error" in e:
            L.append(f"| {e['title']} | not probed: {e['error'][:90]} |" + " |" * (len(labels) + 1))
            continue
        u = e["upstream"]
        row = [cell(u, u), f"**{cell(e['default'], u)}**"]
        for x in e["rules"]:
            row.append("error" if "error" in x else cell(x, u))
        L.append(f"| {e['title']} | " + " | ".join(row) + " |")
    L += [
        "",
        "## The goals, per layout",
        "",
        (
            "| layout | on the front | within the cap | keeps the drafter | no proposal has ≥ its tokens "
            "with fewer groups |"
        ),
        "|---|---|---|---|---|",
    ]
    for e in report["layouts"]:
        if "error" in e:
            continue
        g = e["goals"]
        L.append(
            f"| {e['title']} | "
            + " | ".join(
                "yes" if g[k] else "**NO**"
                for k in (
                    "on the front",
                    "within the cap",
                    "keeps the drafter",
                    "no proposal has >= its tokens with fewer groups",
                )
            )
            + (f" ({', '.join(e['beaters'])})" if e["beaters"] else "")
            + " |"
        )
    L += [
        "",
        "## How the default moves with the step cost",
        "",
        (
            "The model's choice over vLLM's own plans (sizes that keep the drafter, within the cap) "
            "for other values of `RADIANCE_KV_GROUP_STEP_COST`: groups / KV tokens. r = 0 is "
            "`RADIANCE_KV_GROUP_OBJECTIVE=capacity`; the upstream GPU figures (300–900 µs per group "
            "per step) are 0.5–4% of a step depending on batch and model (patches/kv_group_size/README.md)."
        ),
        "",
        "| layout | " + " | ".join(f"r = {s:g}%" for s in SENSITIVITY) + " |",
        "|---|" + "---|" * len(SENSITIVITY),
    ]
    for e in report["layouts"]:
        if "error" in e:
            continue
        cells = []
        for s in SENSITIVITY:
            p = pick_at(e["points"], s, cap)
            txt = f"{p['groups']} / {p['tokens']:,}" if p else "upstream"
            cells.append(f"**{txt}**" if s == r else txt)
        L.append(f"| {e['title']} | " + " | ".join(cells) + " |")
    L += ["", "## Beside what the proposals report", ""]
    L += report.get("reported", [])
    L.append("")
    for e in report["layouts"]:
        L.append(f"## {e['title']}")
        L.append("")
        if "error" in e:
            L += [f"Not probed: {e['error']}", ""]
            continue
        b = e["buckets"]
        L.append(
            f"vLLM's layer buckets {b['bucket_sizes']} ({', '.join(b['bucket_kinds'])}), per-group "
            f"blocks per request {b.get('bucket_costs')}, drafter layers per bucket "
            f"{b['bucket_drafter_layers']}; upstream's size {b['upstream_size']}."
        )
        L.append("")
        for line in e["default"]["info"]:
            L.append(f"radpatch's log line: `{line}`")
            L.append("")
        L.append(
            "| plan | size asked | groups (layers each) | KV tokens | vs upstream | drafter groups | "
            "the model, radpatch's default against it |"
        )
        L.append("|---|---|---|---|---|---|---|")
        u, d = e["upstream"], e["default"]

        def line(label: str, asked: Any, p: dict[str, Any], note: str, u: dict[str, Any] = u) -> str:
            return (
                f"| {label} | {asked} | {p['groups']} ({p['shape']}) | {p['tokens']:,} | "
                f"{pct(p['tokens'] / u['tokens'] - 1)} | {p['drafter_groups']}"
                f"{'' if p['keeps_drafter'] else ' ✗'} | {note} |"
            )

        L.append(line("upstream 0.33.0", b["upstream_size"], u, e["upstream_why"]))
        L.append(line("**radpatch default**", d["group_size"], d, ""))
        for k, p in e["knobs"].items():
            L.append(line(f"radpatch, OBJECTIVE={k}", p["group_size"], p, why(d, p, report["step_cost"], cap)))
        for x in e["rules"]:
            if "error" in x:
                L.append(f"| {x['label']} | {x['asked']} | error: {x['error'][:80]} | | | | |")
            else:
                L.append(line(f"{x['label']}", x["asked"], x, x["why"]))
        L.append("")
        fr = [p for p in e["points"] if p["front"]]
        L.append(
            "Front (groups → tokens): "
            + ", ".join(f"{p['groups']} → {p['tokens']:,} (size {p['group_size']})" for p in fr)
            + "."
        )
        L.append("")
    path.write_text("\n".join(L) + "\n")


def reported(report: dict[str, Any]) -> list[str]:
    """radpatch beside the numbers #58175 and #51742 report."""
    by = {e["name"]: e for e in report["layouts"] if "error" not in e}
    out = [
        "| proposal's report | layout here | upstream here | the proposal here | radpatch default here |",
        "|---|---|---|---|---|",
    ]
    claims = (
        (
            "58175",
            (
                "#58175: MiMo BF16 TP2, 11 → 18 groups, 1,606,781 → 1,776,588 tokens (+10.57%); "
                "decode +~7% at 2 requests"
            ),
            ("16_mimo_v2_flash_tp2_5_draft", "15_mimo_9_39_5_drafter"),
        ),
        (
            "51742",
            (
                "#51742: Qwen3.6-35B-A3B + DFlash, [30, 10, 5, 1], 46 → 10 groups; +102% e2e output "
                "throughput at batch 1 (H200); no capacity figure"
            ),
            ("03_qwen36_35b_a3b_dflash", "12_qwen36_35b_a3b_dflash_issue_geometry"),
        ),
    )
    for key, claim, names in claims:
        for n in names:
            e = by.get(n)
            if e is None:
                continue
            u, d = e["upstream"], e["default"]
            x = next(x for x in e["rules"] if x["key"] == key)
            out.append(
                f"| {claim} | {e['title']} | {u['groups']} groups, {u['tokens']:,} | "
                f"{x['groups']} groups, {x['tokens']:,} ({pct(x['tokens'] / u['tokens'] - 1)}) | "
                f"{d['groups']} groups, {d['tokens']:,} ({pct(d['tokens'] / u['tokens'] - 1)}) |"
            )
    return out


# -------------------------------------------------------------------------------------- plot


def plot(json_path: Path, png: Path) -> int:
    import matplotlib  # type: ignore[import-not-found]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found]

    report = json.loads(json_path.read_text())["report"]
    layouts = [e for e in report["layouts"] if "error" not in e]
    fig, axs = panels(plt, layouts, 4, 4.6, 3.8)
    markers = dict(zip([r.key for r in RULES], "v^<>phDX"))
    for ax, e in zip(axs, layouts):
        up = e["upstream"]["tokens"]

        def y(p: dict[str, Any], up: float = up) -> float:
            return 100 * (float(p["tokens"]) / up - 1)

        pts = e["points"]
        ax.scatter(
            [p["groups"] for p in pts],
            [y(p) for p in pts],
            s=14,
            zorder=2,
            c=["#9bb7e0" if p["keeps_drafter"] else "#cccccc" for p in pts],
        )
        fr = sorted((p for p in pts if p["front"]), key=lambda p: p["groups"])
        ax.plot([p["groups"] for p in fr], [y(p) for p in fr], color="#1f5fbf", lw=1, zorder=1)
        for x in e["rules"]:
            if "error" in x:
                continue
            ax.scatter(
                [x["groups"]],
                [y(x)],
                marker=markers[x["key"]],
                s=42,
                facecolors="none",
                edgecolors="#555555",
                linewidths=1.0,
                zorder=3,
                label=x["label"],
            )
        u = e["upstream"]
        mark_upstream(ax, u["groups"], 4, "upstream 0.33.0")
        d = e["default"]
        ax.scatter(
            [d["groups"]],
            [y(d)],
            marker="*",
            s=190,
            color="#e0a01e",
            edgecolors="black",
            linewidths=0.6,
            zorder=5,
            label="radpatch default",
        )
        groups_axis(ax, report["cap"], max(p["groups"] for p in pts + [u, d]), 7)
        ax.set_title(e["title"][:60], fontsize=8)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
    handles, labels = axs[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=7)
    fig.suptitle(
        f"Group-size proposals on vLLM {report['vllm']}'s own planning (blue: sizes that keep "
        f"the drafter, line: the front, dashed: the cap of {report['cap']})",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(png, dpi=120)
    return 0


# -------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vllm", default="0.33.0")
    parser.add_argument("--layouts", nargs="*")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--plot", nargs=2, type=Path, metavar=("JSON", "PNG"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.plot:
        return plot(*args.plot)
    layouts = capacity.load_layouts(args.layouts)
    cap = int(registry_default("RADIANCE_KV_GROUP_MAX_GROUPS"))
    step_cost = float(registry_default("RADIANCE_KV_GROUP_STEP_COST"))
    venv, wheel = bench.radpatch_venv()
    work = bench.bench_cache() / "work"
    work.mkdir(exist_ok=True)
    bench.say(f"vLLM {args.vllm}: a pristine and a patched copy")
    pristine = bench.fresh_vllm(args.vllm)
    patched = bench.fresh_vllm(args.vllm)
    try:
        bench.run([venv / "bin" / "radpatch", "--python", patched, "apply", PATCH], cwd=work)
        up = capacity.run_runner(pristine, layouts, [{"layout": n} for n in layouts], work)
        jobs: list[dict[str, Any]] = []
        for n in layouts:
            jobs.append({"layout": n, "tag": "default"})
            jobs += [{"layout": n, "tag": k, "env": {"RADIANCE_KV_GROUP_OBJECTIVE": k}} for k in OBJECTIVES]
        first = capacity.run_runner(patched, layouts, jobs, work)
        default: dict[str, dict[str, Any]] = {}
        knobs: dict[str, dict[str, dict[str, Any]]] = {n: {} for n in layouts}
        for job, res in zip(jobs, first["results"]):
            if job["tag"] == "default":
                default[job["layout"]] = res
            else:
                knobs[job["layout"]][job["tag"]] = res
        picks: dict[str, dict[str, int]] = {}
        sweep_jobs: list[dict[str, Any]] = []
        for n in layouts:
            call = (default[n].get("patch_calls") or [None])[0]
            if not call:
                continue
            b = Buckets(call["bucket_sizes"], call["bucket_kinds"], call["bucket_costs"], call["upstream_size"])
            picks[n] = {rule.key: rule.pick(b) for rule in RULES}
            sizes = set(range(1, max(b.sizes) + 1)) | set(picks[n].values())
            sweep_jobs += [{"layout": n, "size": g, "hook_size": g} for g in sorted(sizes)]
        second = capacity.run_runner(patched, layouts, sweep_jobs, work) if sweep_jobs else {"results": []}
        by_size: dict[str, dict[int, dict[str, Any]]] = {n: {} for n in layouts}
        for job, res in zip(sweep_jobs, second["results"]):
            by_size[job["layout"]][job["size"]] = res
    finally:
        bench.remove_copy(pristine)
        bench.remove_copy(patched)
    report: dict[str, Any] = {
        "vllm": args.vllm,
        "wheel": wheel.name,
        "cap": cap,
        "step_cost": step_cost,
        "revision": bench.checkout_revision(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "rules": [{"key": r.key, "label": r.label, "cite": r.cite} for r in RULES],
        "layouts": [
            analyse(n, layouts[n], up["results"][i], default[n], knobs[n], by_size[n], picks.get(n, {}), cap, step_cost)
            if n in picks
            else {
                "name": n,
                "title": layouts[n].get("title", n),
                "error": up["results"][i].get("error") or default[n].get("error") or "the patch was not called",
            }
            for i, n in enumerate(layouts)
        ],
    }
    report["reported"] = reported(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "peers.json").write_text(json.dumps({"report": report}, indent=1, default=str) + "\n")
    write_markdown(args.out / "peers.md", report)
    bench.run([venv / "bin" / "python", Path(__file__), "--plot", args.out / "peers.json", args.out / "peers.png"])
    for e in report["layouts"]:
        if "error" in e:
            print(f"{e['title']}: not probed")
            continue
        d, u = e["default"], e["upstream"]
        failed = [k for k, ok in e["goals"].items() if not ok]
        print(
            f"{e['title']}: upstream {u['groups']}g {u['tokens']:,}; radpatch {d['groups']}g "
            f"{d['tokens']:,}" + (f"; NOT MET: {', '.join(failed)}" if failed else "")
        )
    print(f"wrote {args.out / 'peers.md'}, {args.out / 'peers.png'}, {args.out / 'peers.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""capacity.png from capacity.json (run by benchmarks/capacity.py in the bench venv, which has
matplotlib): KV cache capacity of every strategy, per layout, relative to upstream vLLM.

    python benchmarks/_plot_capacity.py benchmarks/results/capacity.json OUT.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# (row label in capacity.md, legend label, colour, hollow reference bar)
SERIES = [
    ("kv_group_size (shipped)", "kv_group_size (shipped defaults)", "#1f5fbf", False),
    ("gcd of bucket sizes", "gcd of bucket sizes (vllm#56445)", "#e08a1e", False),
    ("fewest padding", "fewest padding (vllm#49472)", "#3a9a4a", False),
    ("kv_group_size, no group cap", "kv_group_size, no group cap (limit)", "#8a4fbf", False),
    ("best with ≤", "best size within the group cap (sweep)", "#444444", True),
]


def find(rows: list[dict[str, Any]], prefix: str) -> dict[str, Any] | None:
    return next((r for r in rows if r["strategy"].startswith(prefix)), None)


def short_refusal(note: str) -> str:
    if "splits the drafter" in note:
        return "refused: splits drafter"
    if "spans" in note:
        return "refused: drafter spans buckets"
    if "no size keeps" in note:
        return "none keeps drafter together"
    return note[:40]


def main() -> int:
    data = json.loads(Path(sys.argv[1]).read_text())["report"]
    out = Path(sys.argv[2])
    layouts = data["layouts"]
    n_series = len(SERIES)
    bar_h = 0.15
    group_h = bar_h * n_series + 0.35
    fig_h = 1.6 + group_h * len(layouts) * 0.95
    fig, ax = plt.subplots(figsize=(12.5, fig_h))
    yticks, ylabels = [], []
    values: list[float] = [0.0]
    unprobed: list[tuple[float, str]] = []
    for i, e in enumerate(layouts):
        base = -i * group_h
        yticks.append(base - bar_h * (n_series - 1) / 2)
        up = e["rows"][0] if e.get("rows") else {}
        label = e["title"]
        if up.get("tokens"):
            label += f"\nupstream: {up['tokens']:,} tokens, {up['num_groups']} groups"
        ylabels.append(label)
        if "error" in e or not e.get("rows"):
            unprobed.append((yticks[-1], str(e.get("error"))))
            continue
        for j, (prefix, _legend, colour, hollow) in enumerate(SERIES):
            y = base - j * bar_h
            r = find(e["rows"], prefix)
            if r is None:
                continue
            if r.get("valid", True) and r.get("tokens") is not None:
                v = 100 * r.get("vs_upstream", 0.0)
                values.append(v)
                ax.barh(
                    y,
                    v,
                    height=bar_h * 0.9,
                    color="none" if hollow else colour,
                    edgecolor=colour,
                    linewidth=1.2 if hollow else 0,
                    hatch="////" if hollow else None,
                )
                text = f"{v:+.1f}%  ({r['num_groups']} groups)"
                ax.text(
                    v + (0.4 if v >= 0 else -0.4),
                    y,
                    text,
                    va="center",
                    ha="left" if v >= 0 else "right",
                    fontsize=7.5,
                    color=colour,
                )
            else:
                ax.text(
                    0.4,
                    y,
                    short_refusal(r.get("note") or r.get("error") or ""),
                    va="center",
                    ha="left",
                    fontsize=7.5,
                    style="italic",
                    color=colour,
                )
    lo, hi = min(values), max(values)
    span = max(hi - lo, 5.0)
    ax.set_xlim(min(lo - 0.22 * span, -0.1 * span), hi + 0.45 * span)
    ax.axvline(0, color="black", linewidth=1)
    x0, x1 = ax.get_xlim()
    for y, error in unprobed:
        why = error.split("harness: ", 1)[-1].split(";")[0]
        ax.text(
            x0 + 0.02 * (x1 - x0),
            y,
            f"not probed: {why} -- the harness cannot build it yet",
            va="center",
            ha="left",
            fontsize=8.5,
            style="italic",
            color="#a00000",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5},
        )
    ax.set_yticks(yticks)
    ax.set_yticklabels(ylabels, fontsize=9)
    ax.set_xlabel("KV cache capacity (tokens) relative to upstream vLLM, %")
    ax.grid(axis="x", linestyle=":", alpha=0.6)
    ax.set_title(
        f"KV cache capacity by group-size strategy — vLLM {data['vllm']}'s own planner, group cap {data['cap']}",
        fontsize=11,
    )
    handles = [
        Patch(facecolor="none" if hollow else colour, edgecolor=colour, hatch="////" if hollow else None, label=legend)
        for _p, legend, colour, hollow in SERIES
    ]
    ax.legend(handles=handles, loc="center right", fontsize=8, framealpha=0.95)
    ax.set_ylim(-(len(layouts) - 1) * group_h - bar_h * n_series, bar_h * 1.5)
    fig.text(
        0.01,
        0.005,
        "Bars: KV cache tokens vLLM plans for the layout under each strategy, minus upstream's, "
        "in % (label: groups). Italic text instead of a bar: kv_group_size refused the forced "
        "size\n(it would split the speculative drafter, or the drafter spans several layer "
        "buckets). Hatched: the best size found by sweeping every size with vLLM, within the "
        "group cap and keeping the drafter together.",
        fontsize=8,
        va="bottom",
    )
    fig.tight_layout(rect=(0, 0.035, 1, 1))
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())

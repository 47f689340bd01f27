#!/usr/bin/env python3
"""The capacity x groups front of every benchmark layout, from vLLM's own planning code.

    python benchmarks/front.py [--vllm 0.33.0] [--layouts NAME ...] [--out benchmarks/results]

Writes benchmarks/results/front.md (per layout: every group size vLLM's allocator can produce,
with its number of KV cache groups and KV tokens, upstream's size, the shipped choice and the
choice at each tolerance marked), front.png (one panel per layout: tokens vs groups) and
front.json (the raw figures).  Takes a few minutes once the vLLM release is provisioned.

How (same machinery as benchmarks/capacity.py; nothing of vLLM is mocked or re-implemented):

* a pristine and a patched copy of the release (harness/vllm_cpu.py; radpatch's wheel applies
  kv_group_size to the second);
* upstream = the pristine copy's plan;
* the sweep: every size 1..largest bucket set where the patch sets it (benchmarks/_probe_runner.py
  wraps the patch's entry point) and planned by vLLM's get_kv_cache_groups ->
  get_kv_cache_config_from_groups -> capacity functions; sizes that give the same grouping are
  one point (the *canonical* sizes: the size vLLM's allocator derives from the groups);
* the shipped choice = the patched copy with default knobs, and its choice for each tolerance in
  TOLERANCES (RADIANCE_KV_GROUP_TOLERANCE=t).

A size is *admissible* when it keeps the speculative drafter in one group per drafter bucket,
has at most the cap's groups (RADIANCE_KV_GROUP_MAX_GROUPS's default) and no less capacity than
upstream; the *front* is the admissible sizes no other admissible size beats on both groups and
tokens.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _bench_env as bench  # noqa: E402
import capacity  # noqa: E402
from _plot_groups import groups_axis, mark_upstream, panels  # noqa: E402

PATCH = "kv_group_size"
TOLERANCES = (0.0, 1.0, 2.0, 3.0, 5.0, 10.0)


def default_tolerance() -> float:
    """RADIANCE_KV_GROUP_TOLERANCE's default, read from the shipped registry entry."""
    text = (bench.REPO / "registry" / f"{PATCH}.yaml").read_text()
    found = re.search(r"RADIANCE_KV_GROUP_TOLERANCE:\s*\n\s*default:\s*\"?([0-9.]+)", text)
    if not found:
        raise SystemExit("front: cannot read RADIANCE_KV_GROUP_TOLERANCE's default")
    return float(found.group(1))


def tol_label(t: float) -> str:
    return f"{t:g}%"


# --------------------------------------------------------------------------------- analysis


def point(r: dict[str, Any], size: int, upstream: dict[str, Any], n_drafter_buckets: int) -> dict[str, Any]:
    return {
        "size": size,
        "group_size": r["group_size"],
        "groups": r["num_groups"],
        "tokens": r["tokens"],
        "blocks_per_request": r["blocks_per_request"],
        "vs_upstream": r["tokens"] / upstream["tokens"] - 1,
        "shape": capacity.shape(r),
        "keeps_drafter": capacity.keeps_drafter(r, n_drafter_buckets),
    }


def analyse(
    name: str,
    layout: dict[str, Any],
    up: dict[str, Any],
    shipped: dict[str, Any],
    by_tol: dict[float, dict[str, Any]],
    sweep: list[tuple[int, dict[str, Any]]],
    cap: int,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "title": layout.get("title", name)}
    if "error" in up or "error" in shipped:
        entry["error"] = up.get("error") or shipped.get("error")
        return entry
    call = (shipped.get("patch_calls") or [None])[0]
    ndb = capacity.drafter_buckets(call)
    entry["buckets"] = call
    points: dict[int, dict[str, Any]] = {}
    for size, r in sweep:
        if "error" in r or r["group_size"] in points:
            continue
        points[r["group_size"]] = point(r, size, up, ndb)
    pts = sorted(points.values(), key=lambda p: p["group_size"])
    for p in pts:
        p["admissible"] = p["keeps_drafter"] and p["groups"] <= cap and p["tokens"] >= up["tokens"]
    adm = [p for p in pts if p["admissible"]]
    for p in pts:
        p["front"] = p["admissible"] and not any(
            q is not p
            and q["groups"] <= p["groups"]
            and q["tokens"] >= p["tokens"]
            and (q["groups"], q["tokens"]) != (p["groups"], p["tokens"])
            for q in adm
        )
    best = max(adm, key=lambda p: (p["tokens"], -p["groups"]), default=None)
    entry["best"] = best
    for p in pts:
        p["vs_best"] = p["tokens"] / best["tokens"] - 1 if best else None
    entry["points"] = pts
    entry["upstream"] = {"group_size": up["group_size"], "groups": up["num_groups"], "tokens": up["tokens"]}
    entry["outcome"] = capacity.patch_outcome(shipped)
    entry["shipped"] = {
        "group_size": shipped["group_size"],
        "groups": shipped["num_groups"],
        "tokens": shipped["tokens"],
        "vs_upstream": shipped["tokens"] / up["tokens"] - 1,
        "info": capacity.radiance_messages(shipped),
    }
    entry["tolerance"] = {}
    for t, r in by_tol.items():
        entry["tolerance"][tol_label(t)] = {
            "group_size": r["group_size"],
            "groups": r["num_groups"],
            "tokens": r["tokens"],
            "vs_upstream": r["tokens"] / up["tokens"] - 1,
            "vs_best": r["tokens"] / best["tokens"] - 1 if best else None,
            "keeps_drafter": capacity.keeps_drafter(r, ndb),
            "info": capacity.radiance_messages(r),
        }
    return entry


# ---------------------------------------------------------------------------------- report


def pct(v: Any) -> str:
    return f"{v:+.2%}" if isinstance(v, float) else "—"


def write_markdown(path: Path, report: dict[str, Any]) -> None:
    cap, dt = report["cap"], report["default_tolerance"]
    tols = [tol_label(t) for t in report["tolerances"]]
    L: list[str] = [
        "# KV cache capacity × number of groups, per layout",
        "",
        f"Generated by `python benchmarks/front.py --vllm {report['vllm']}` on {report['date']} "
        f"(radpatch wheel `{report['wheel']}` from checkout {report['revision']}). Every figure "
        f"is vLLM {report['vllm']}'s own planning (`get_kv_cache_groups` → "
        "`get_kv_cache_config_from_groups` → capacity) on real spec objects, on the CPU "
        "(harness/kv_probe.py); the group size is set where kv_group_size sets it.",
        "",
        f"A size is *admissible* when it keeps the drafter in one group per drafter bucket, has "
        f"at most {cap} groups (the cap) and no less capacity than upstream; the *front* is the "
        "admissible sizes no other admissible size beats on both groups and tokens. "
        f"`RADIANCE_KV_GROUP_TOLERANCE=t` takes, among admissible sizes within t% of the best "
        f"capacity, the one with the fewest groups; the shipped default is t = {dt:g}%.",
        "",
        "## What each tolerance picks",
        "",
        "groups / KV tokens / change vs the best admissible size. **bold**: the shipped default.",
        "",
        "| layout | upstream | best admissible | "
        + " | ".join(f"**t={t}**" if t == tol_label(dt) else f"t={t}" for t in tols)
        + " |",
        "|---|---|---|" + "---|" * len(tols),
    ]
    for e in report["layouts"]:
        if "error" in e:
            L.append(f"| {e['title']} | not probed: {e['error'][:80]} |" + " |" * (len(tols) + 1))
            continue
        u, b = e["upstream"], e["best"]
        cells = []
        for t in tols:
            c = e["tolerance"][t]
            txt = f"{c['groups']} / {c['tokens']:,} / {pct(c['vs_best'])}"
            cells.append(f"**{txt}**" if t == tol_label(dt) else txt)
        best = f"{b['groups']} / {b['tokens']:,}" if b else "—"
        L.append(f"| {e['title']} | {u['groups']} / {u['tokens']:,} | {best} | " + " | ".join(cells) + " |")
    L.append("")
    for e in report["layouts"]:
        L.append(f"## {e['title']}")
        L.append("")
        if "error" in e:
            L.append(f"Not probed: {e['error']}")
            L.append("")
            continue
        b = e["buckets"] or {}
        L.append(
            f"vLLM's layer buckets {b.get('bucket_sizes')} ({', '.join(b.get('bucket_kinds', []))}), "
            f"per-group blocks per request {b.get('bucket_costs')}, drafter layers per "
            f"bucket {b.get('bucket_drafter_layers')}; upstream's size {b.get('upstream_size')}. "
            f"Shipped (default knobs): size {e['shipped']['group_size']}, "
            f"{e['shipped']['groups']} groups, {e['shipped']['tokens']:,} tokens "
            f"({pct(e['shipped']['vs_upstream'])} vs upstream)."
        )
        if e["shipped"]["info"]:
            L.append("")
            L.append(f"Patch log: `{e['shipped']['info'][0]}`")
        L.append("")
        L.append("| size | groups (layers each) | KV tokens | vs upstream | vs best | admissible | front | marks |")
        L.append("|---|---|---|---|---|---|---|---|")
        for p in e["points"]:
            marks = []
            if p["group_size"] == e["upstream"]["group_size"]:
                marks.append("upstream")
            if p["group_size"] == e["shipped"]["group_size"]:
                marks.append("**shipped**")
            picked = [t for t in tols if e["tolerance"][t]["group_size"] == p["group_size"]]
            if picked:
                marks.append("t=" + ", ".join(picked))
            why = (
                ""
                if p["admissible"]
                else (
                    "splits drafter"
                    if not p["keeps_drafter"]
                    else f"> {cap} groups"
                    if p["groups"] > cap
                    else "below upstream"
                )
            )
            L.append(
                f"| {p['group_size']} | {p['groups']} ({p['shape']}) | {p['tokens']:,} | "
                f"{pct(p['vs_upstream'])} | {pct(p['vs_best'])} | "
                f"{'yes' if p['admissible'] else 'no: ' + why} | "
                f"{'●' if p['front'] else ''} | {'; '.join(marks)} |"
            )
        L.append("")
    path.write_text("\n".join(L) + "\n")


# ------------------------------------------------------------------------------------ plot


def plot(json_path: Path, png: Path) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = json.loads(json_path.read_text())["report"]
    layouts = [e for e in report["layouts"] if "error" not in e]
    fig, axs = panels(plt, layouts, 3, 5.2, 4.0)
    cap, dt = report["cap"], report["default_tolerance"]
    for ax, e in zip(axs, layouts):
        pts = e["points"]
        up = e["upstream"]["tokens"]
        rel = [100 * (p["tokens"] / up - 1) for p in pts]
        xs = [p["groups"] for p in pts]
        colours = ["#bbbbbb" if not p["admissible"] else "#1f5fbf" for p in pts]
        ax.scatter(xs, rel, c=colours, s=22, zorder=2)
        front = sorted((p for p in pts if p["front"]), key=lambda p: p["groups"])
        ax.plot(
            [p["groups"] for p in front], [100 * (p["tokens"] / up - 1) for p in front], color="#1f5fbf", lw=1, zorder=1
        )
        for p, y in zip(pts, rel):
            ax.annotate(
                str(p["group_size"]),
                (p["groups"], y),
                textcoords="offset points",
                xytext=(3, 3),
                fontsize=6.5,
                color="#555555",
            )
        mark_upstream(ax, e["upstream"]["groups"], 3, "upstream")
        s = e["shipped"]
        ax.scatter(
            [s["groups"]],
            [100 * s["vs_upstream"]],
            marker="*",
            s=170,
            color="#e0a01e",
            edgecolors="black",
            linewidths=0.6,
            zorder=4,
            label=f"shipped (t={dt:g}%)",
        )
        zero = e["tolerance"].get("0%")
        if zero and zero["group_size"] != s["group_size"]:
            ax.scatter(
                [zero["groups"]],
                [100 * zero["vs_upstream"]],
                marker="D",
                s=40,
                facecolors="none",
                edgecolors="#3a9a4a",
                linewidths=1.4,
                zorder=3,
                label="t=0% (most capacity)",
            )
        groups_axis(ax, cap, max(xs), 8)
        ax.set_title(e["title"], fontsize=9)
        ax.tick_params(labelsize=7)
        ymax = max(rel + [0.0])
        ymin = max(min(rel), -40.0)
        pad = (ymax - ymin) * 0.12 + 0.5
        ax.set_ylim(ymin - pad, ymax + pad)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6.5, loc="lower right")
    fig.suptitle(
        f"KV capacity × groups per group size, vLLM {report['vllm']} "
        f"(blue: admissible, grey: splits the drafter / > {cap} groups / below "
        "upstream; labels: group size; dashed: the cap)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(png, dpi=130)
    return 0


# ------------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", default="0.33.0")
    parser.add_argument("--layouts", nargs="*")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--plot", nargs=2, type=Path, metavar=("JSON", "PNG"), help=argparse.SUPPRESS
    )  # run in the bench venv, which has matplotlib
    args = parser.parse_args(argv)
    if args.plot:
        return plot(*args.plot)
    layouts = capacity.load_layouts(args.layouts)
    cap = capacity.default_cap()
    dt = default_tolerance()
    tolerances = sorted(set(TOLERANCES) | {dt})
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
            jobs.append({"layout": n, "tag": "shipped"})
            jobs += [
                {"layout": n, "tag": "tol", "t": t, "env": {"RADIANCE_KV_GROUP_TOLERANCE": f"{t:g}"}}
                for t in tolerances
            ]
        first = capacity.run_runner(patched, layouts, jobs, work)
        shipped: dict[str, dict[str, Any]] = {}
        by_tol: dict[str, dict[float, dict[str, Any]]] = {n: {} for n in layouts}
        for job, r in zip(jobs, first["results"]):
            if job["tag"] == "shipped":
                shipped[job["layout"]] = r
            else:
                by_tol[job["layout"]][job["t"]] = r
        sweep_jobs: list[dict[str, Any]] = []
        for n in layouts:
            call = (shipped[n].get("patch_calls") or [None])[0]
            if call:
                sweep_jobs += [
                    {"layout": n, "size": g, "hook_size": g} for g in range(1, max(call["bucket_sizes"]) + 1)
                ]
        second = capacity.run_runner(patched, layouts, sweep_jobs, work) if sweep_jobs else {"results": []}
        sweeps: dict[str, list[tuple[int, dict[str, Any]]]] = {n: [] for n in layouts}
        for job, r in zip(sweep_jobs, second["results"]):
            sweeps[job["layout"]].append((job["size"], r))
    finally:
        bench.remove_copy(pristine)
        bench.remove_copy(patched)
    report = {
        "vllm": args.vllm,
        "wheel": wheel.name,
        "cap": cap,
        "default_tolerance": dt,
        "tolerances": tolerances,
        "revision": bench.checkout_revision(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "layouts": [
            analyse(n, layouts[n], up["results"][i], shipped[n], by_tol[n], sweeps[n], cap)
            for i, n in enumerate(layouts)
        ],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "front.json").write_text(json.dumps({"report": report}, indent=1, default=str) + "\n")
    write_markdown(args.out / "front.md", report)
    bench.run([venv / "bin" / "python", Path(__file__), "--plot", args.out / "front.json", args.out / "front.png"])
    for e in report["layouts"]:
        if "error" in e:
            print(f"{e['title']}: not probed")
            continue
        s, u = e["shipped"], e["upstream"]
        print(
            f"{e['title']}: upstream {u['groups']} groups {u['tokens']:,}; shipped "
            f"{s['groups']} groups {s['tokens']:,} ({pct(s['vs_upstream'])}); "
            + ", ".join(f"t={t}: {c['groups']}g {pct(c['vs_best'])}" for t, c in e["tolerance"].items())
        )
    print(f"wrote {args.out / 'front.md'}, {args.out / 'front.png'}, {args.out / 'front.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

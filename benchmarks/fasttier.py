#!/usr/bin/env python3
"""What a slice of the fast tier costs in CPU seconds: its median and spread over several runs.

    python benchmarks/fasttier.py [--runs 3] [--sample 4 | --slice 16] [--by-file N] [--workers N] [PYTEST ARGS...]

Runs `pytest -m "not real" -n 0 -q -p no:cacheprovider ARGS` (default: the twin-calls import family,
tests/importing/test_twin_calls_import.py, the family issue 22 profiled) `--runs` times in one process each,
with RADPATCH_TEST_SAMPLE=`--sample`, or RADPATCH_TEST_SLICE=`--slice` as tools/test.sh sets it for each
interpreter's fast tier (its 1 case in 16 of each generated family), and prints each run's CPU seconds (user +
system of pytest and every process it started, from getrusage) and wall seconds, then their medians and
spread. With --workers N, pytest-xdist's N workers (`-n N --dist worksteal`, as tools/test.sh runs the
fast tier) instead of one process: their CPU seconds are counted too. With --by-file N, the last run's
N costliest test files too: each file's CPU seconds, its own
process's and its child processes' (benchmarks/_cpu_by_file.py; `-m "not real"` alone slices the whole
fast tier). CPU seconds, not wall: the figure the machine's other load changes least. A benchmark, not a test:
it never fails on a figure (it fails only when pytest does).
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT = ["tests/importing/test_twin_calls_import.py"]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(
    args: list[str], sample: int, by_file: Path | None = None, workers: int = 0, piece: int = 0
) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("RADPATCH_TEST_SLICE", "RADPATCH_TEST_REST")}
    env.update({"RADPATCH_TEST_SLICE": str(piece)} if piece else {"RADPATCH_TEST_SAMPLE": str(sample)})
    spread = ["-n", str(workers), "--dist", "worksteal"] if workers else ["-n", "0"]
    cmd = [sys.executable, "-m", "pytest", "-m", "not real", *spread, "-q", "-p", "no:cacheprovider", *args]
    if by_file is not None:
        env["RADPATCH_CPU_BY_FILE"] = str(by_file)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "benchmarks"), env.get("PYTHONPATH")]))
        cmd += ["-p", "_cpu_by_file"]
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cpu, wall = _children_cpu() - cpu0, time.perf_counter() - wall0
    if done.returncode != 0:
        sys.exit(f"fasttier: pytest failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return cpu, wall


def by_file(tsv: Path, top: int) -> None:
    """The `top` costliest files of one run: CPU seconds in all, own, in child processes, and tests."""
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for line in tsv.read_text(encoding="utf-8").splitlines():
        nodeid, own, kids = line.split("\t")
        f = files[nodeid.split("::")[0]]
        f[0] += float(own)
        f[1] += float(kids)
        f[2] += 1
    print(f"{'CPU s':>8} {'own':>8} {'children':>8} {'tests':>6}  file (the last run)")
    for name, (own, kids, n) in sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:top]:
        print(f"{own + kids:8.1f} {own:8.1f} {kids:8.1f} {int(n):6d}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sample", type=int, default=4, help="RADPATCH_TEST_SAMPLE (the real tier's 4)")
    parser.add_argument("--slice", type=int, default=0, help="RADPATCH_TEST_SLICE (the fast tier's 16) instead")
    parser.add_argument("--by-file", type=int, default=0, metavar="N", help="print the last run's N costliest files")
    parser.add_argument("--workers", type=int, default=0, metavar="N", help="pytest-xdist workers (0: one process)")
    parsed, rest = parser.parse_known_args()
    args = rest or DEFAULT
    cpus, walls = [], []
    tsv = Path(tempfile.mkdtemp(prefix="fasttier-")) / "tests.tsv" if parsed.by_file else None
    for i in range(parsed.runs):
        if tsv is not None:
            tsv.unlink(missing_ok=True)
        cpu, wall = run_once(args, parsed.sample, tsv, parsed.workers, parsed.slice)
        cpus.append(cpu)
        walls.append(wall)
        print(f"run {i + 1}: {cpu:.1f} CPU s, {wall:.1f} wall s", flush=True)
    split = f"RADPATCH_TEST_SLICE={parsed.slice}" if parsed.slice else f"RADPATCH_TEST_SAMPLE={parsed.sample}"
    print(
        f"{' '.join(args)} ({split}, {parsed.runs} runs): "
        f"CPU median {statistics.median(cpus):.1f} s (min {min(cpus):.1f}, max {max(cpus):.1f}); "
        f"wall median {statistics.median(walls):.1f} s (min {min(walls):.1f}, max {max(walls):.1f})"
    )
    if tsv is not None:
        by_file(tsv, parsed.by_file)


if __name__ == "__main__":
    main()

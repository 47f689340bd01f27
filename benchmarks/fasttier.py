#!/usr/bin/env python3
"""What a slice of the fast tier costs in CPU seconds: its median and spread over several runs.

    python benchmarks/fasttier.py [--runs 3] [--sample 4] [PYTEST ARGS...]

Runs `pytest -m "not real" -n 0 -q -p no:cacheprovider ARGS` (default: the twin-calls import family,
tests/importing/test_twin_calls_import.py, the family issue 22 profiled) `--runs` times in one process each,
with RADPATCH_TEST_SAMPLE=`--sample` as tools/test.sh sets it, and prints each run's CPU seconds (user +
system of pytest and every process it started, from getrusage) and wall seconds, then their medians and
spread. CPU seconds, not wall: the figure the machine's other load changes least. A benchmark, not a test:
it never fails on a figure (it fails only when pytest does).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT = ["tests/importing/test_twin_calls_import.py"]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(args: list[str], sample: int) -> tuple[float, float]:
    env = dict(os.environ, RADPATCH_TEST_SAMPLE=str(sample))
    cmd = [sys.executable, "-m", "pytest", "-m", "not real", "-n", "0", "-q", "-p", "no:cacheprovider", *args]
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cpu, wall = _children_cpu() - cpu0, time.perf_counter() - wall0
    if done.returncode != 0:
        sys.exit(f"fasttier: pytest failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sample", type=int, default=4, help="RADPATCH_TEST_SAMPLE (tools/test.sh's 4)")
    parsed, rest = parser.parse_known_args()
    args = rest or DEFAULT
    cpus, walls = [], []
    for i in range(parsed.runs):
        cpu, wall = run_once(args, parsed.sample)
        cpus.append(cpu)
        walls.append(wall)
        print(f"run {i + 1}: {cpu:.1f} CPU s, {wall:.1f} wall s", flush=True)
    print(
        f"{' '.join(args)} (RADPATCH_TEST_SAMPLE={parsed.sample}, {parsed.runs} runs): "
        f"CPU median {statistics.median(cpus):.1f} s (min {min(cpus):.1f}, max {max(cpus):.1f}); "
        f"wall median {statistics.median(walls):.1f} s (min {min(walls):.1f}, max {max(walls):.1f})"
    )


if __name__ == "__main__":
    main()

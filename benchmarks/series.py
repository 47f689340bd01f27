#!/usr/bin/env python3
"""A many-entry series applied at once, stacked on one large class (perf52): the shape of a
distribution's patch series (Django's 38 Debian patches, a third of them in sql/query.py's
`Query`, 100,000 characters), where apply proves every entry under each one again on its result
(prove.below).

    python benchmarks/series.py [--entries 16] [--methods 400] [--runs 3] [--compare DIR ...]

A synthetic distribution `rpseries` (one module, one class of --methods methods) is written as a
wheel (tests/lib/wheels) and pip-installed into a fresh venv; --entries registry entries each
`replace` one line in its own method. Each run: `apply` of every entry in one command,
`status --check`, `revert`, each a whole `python -m radpatch` process (start-up included): wall
time (perf_counter around it) and CPU time (user + system of its process tree, rusage). Prints the
median and min-max of --runs per command, for this checkout and for each --compare DIR (another
checkout's source tree, put first on PYTHONPATH), run round-robin so the host's drift hits all
alike. Every checkout's apply must write the same bytes (checked). Benchmark figures, not tests.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.lib.venvs import make_venv, pip, site_packages  # noqa: E402
from tests.lib.wheels import build_wheel  # noqa: E402

DIST = "rpseries"


def module_source(methods: int) -> str:
    body = "".join(
        f"    def m{i}(self, x):\n        y = x + {i}\n"
        f"        if y > {i * 3}:\n            y -= 1\n        return y * 2\n\n"
        for i in range(methods)
    )
    return f'"""A large class, patched by many entries."""\n\n\nclass Query:\n    limit = 10\n\n{body}'


def entry(n: int, method: int) -> str:
    return (
        f"summary: Series entry {n}\n"
        f"description: perf52 benchmark; changes m{method} of Query.\n"
        f"distribution: {DIST}\n"
        'supported: ">=1.0,<2"\n'
        f"modules:\n  target: {DIST}.core\n"
        "rewrites:\n"
        "  - id: factor\n"
        "    replace:\n"
        f"      scope: Query.m{method}\n"
        "      find: y * 2\n"
        "      with: y * 3\n"
    )


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        said = f"{done.stdout[-2000:]}{done.stderr[-3000:]}"
        raise SystemExit(f"series: {' '.join(argv[2:])} exited {done.returncode}:\n{said}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=16)
    ap.add_argument("--methods", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", nargs="*", default=[], help="other checkouts' source trees")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rpseries-") as tmp_:
        tmp = Path(tmp_)
        files = {f"{DIST}/__init__.py": "", f"{DIST}/core.py": module_source(args.methods)}
        wheel = build_wheel(tmp / "dist", DIST, "1.0", files)
        python = make_venv(tmp / "venv")
        pip(python, "install", "--no-deps", "--no-index", "--no-compile", str(wheel))
        site = site_packages(tmp / "venv")
        reg = tmp / "reg"
        reg.mkdir()
        step = max(1, args.methods // args.entries)
        names = [f"e{n:03d}" for n in range(args.entries)]
        for n, name in enumerate(names):
            (reg / f"{name}.yaml").write_text(entry(n, n * step))
        checkouts = {"this checkout": str(REPO), **{d: str(Path(d).resolve()) for d in args.compare}}
        base = {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_")}
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        written: dict[str, str] = {}
        for _ in range(args.runs):
            for label, src in checkouts.items():
                env = {**base, "PYTHONPATH": src}
                cmd = [sys.executable, "-m", "radpatch", "--python", str(python), "--registry", str(reg)]
                for verb, extra in (("apply", []), ("status --check", []), ("revert", [])):
                    wall, cpu, _ = timed([*cmd, *verb.split(), *extra, *names], env)
                    times.setdefault((label, verb), []).append((wall, cpu))
                    if verb == "apply":
                        written[label] = hashlib.sha256((site / DIST / "core.py").read_bytes()).hexdigest()
                shutil.rmtree(site / ".radpatch", ignore_errors=True)
        if len(set(written.values())) != 1:
            raise SystemExit(f"series: the checkouts' apply wrote different bytes: {written}")
    print(f"{args.entries} entries stacked on one class of {args.methods} methods; {args.runs} runs each")
    print(f"{'checkout':40s} {'command':15s} {'wall median (min-max)':>26s} {'CPU median (min-max)':>26s}")
    for (label, verb), got in times.items():
        walls, cpus = [w for w, _ in got], [c for _, c in got]
        w = f"{statistics.median(walls):.2f} ({min(walls):.2f}-{max(walls):.2f}) s"
        c = f"{statistics.median(cpus):.2f} ({min(cpus):.2f}-{max(cpus):.2f}) s"
        print(f"{label[-40:]:40s} {verb:15s} {w:>26s} {c:>26s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

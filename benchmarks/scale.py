#!/usr/bin/env python3
"""How radpatch's cost grows with the work: many patches, big modules, verify cold and warm.

    python benchmarks/scale.py [--runs 3] [--only patches,modules,verify] [--out benchmarks/results]

Writes benchmarks/results/scale.md (and scale.json). Benchmark figures, not tests: the issue's
targets are printed next to the medians, never asserted.

Set-up, as users run radpatch: radpatch's wheel is built from this checkout and pip-installed
(non-editable) into a temp venv; a synthetic distribution `rpscale` is written as a wheel and
pip-installed into the same venv, so radpatch patches a real installed distribution (RECORD,
INSTALLER, bytecode) in its own environment. Every figure is a whole `radpatch` process
(interpreter start-up included): wall time by perf_counter around fork/exec -> wait4, CPU time
as user + system from wait4's rusage (worker processes included). Each row: median and min-max
over --runs repetitions.

1. Patches: N = 1, 10, 50, 200 synthetic patches (one `replace` each, in its own function),
   - spread: one module per patch (N modules of 60 functions),
   - stacked: over 5 modules (N/5 patches on each module);
   `list`, `status` (nothing applied), `apply` (all N in one run), `status` (all applied),
   `revert` (all N in one run).
2. Module size: one rewrite on a module of 3k, 10k, 30k and 100k lines (top-level functions of 4
   lines): `apply`, `status` (applied), `revert` (a row slower than SLOW seconds after two
   repetitions stops there; each table says how many runs a row has).
3. verify: `radpatch verify kv_group_size` over its whole declared range (and the neighbours it
   probes) against the real package index with this machine's pip settings: cold (a new, empty
   RADPATCH_CACHE each run) and warm; bytes read from the index (verify --json's `fetched`).
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DIST = "rpscale"
COUNTS = (1, 10, 50, 200)
STACK_MODULES = 5
LINES = (3_000, 10_000, 30_000, 100_000)
FUNCS_PER_MODULE = 60
SLOW = 120.0  # seconds: a module-size row that took this long after two repetitions stops there


def say(msg: str) -> None:
    print(f"[scale] {msg}", file=sys.stderr, flush=True)


def run(argv: list[str | Path], **kw: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise SystemExit(
            f"scale: {' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return done


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    rc: int
    out: str
    err: str


def timed(argv: list[str | Path], env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> Sample:
    """One whole process: wall (perf_counter around fork/exec -> wait4), CPU (user + sys, rusage)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [str(a) for a in argv], stdout=out, stderr=err, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})}
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        rc = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        sample = Sample(wall, usage.ru_utime + usage.ru_stime, rc, out.read(), err.read())
    if rc not in ok:
        raise SystemExit(f"scale: {' '.join(map(str, argv))} exited {rc}:\n{sample.out[-2000:]}\n{sample.err[-3000:]}")
    return sample


def stats(samples: list[Sample]) -> dict[str, Any]:
    walls, cpus = [s.wall for s in samples], [s.cpu for s in samples]
    return {
        "runs": len(samples),
        "wall": statistics.median(walls),
        "wall_min": min(walls),
        "wall_max": max(walls),
        "cpu": statistics.median(cpus),
        "cpu_min": min(cpus),
        "cpu_max": max(cpus),
    }


# --- the synthetic distribution ------------------------------------------------------------------


def function(i: int) -> str:
    return f"def f{i}(x):\n    y = x + {i}\n    return y * 2\n\n"


def module_source(funcs: int) -> str:
    return '"""A synthetic module for radpatch\'s scaling benchmark."""\n\n' + "".join(
        function(i) for i in range(funcs)
    )


def record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(into: Path, modules: dict[str, str], version: str = "1.0") -> Path:
    info = f"{DIST}-{version}.dist-info"
    files = {f"{DIST}/__init__.py": b"", **{f"{DIST}/{m}.py": src.encode() for m, src in modules.items()}}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {version}\n\n".encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: radpatch-scale\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/top_level.txt"] = f"{DIST}\n".encode()
    record = "".join(f"{rel},sha256={record_hash(d)},{len(d)}\n" for rel, d in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    into.mkdir(parents=True, exist_ok=True)
    wheel = into / f"{DIST}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in files.items():
            zf.writestr(rel, data)
    return wheel


def patch_yaml(name: str, module: str, func: int) -> str:
    return (
        f"summary: Synthetic patch {name}\n"
        f"description: Scaling benchmark; changes one factor in f{func} of {module}.\n"
        f"distribution: {DIST}\n"
        f'supported: ">=1.0,<2"\n'
        f"modules:\n  target: {DIST}.{module}\n"
        f"rewrites:\n"
        f"  - id: factor\n"
        f"    replace:\n"
        f"      scope: f{func}\n"
        f"      find: y * 2\n"
        f"      with: y * 3\n"
    )


@dataclass
class Env:
    """A venv with radpatch's wheel; `install` puts a new build of rpscale in it."""

    root: Path
    radpatch_wheel: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def radpatch(self) -> Path:
        return self.root / "bin" / "radpatch"

    def install(self, modules: dict[str, str], scratch: Path) -> None:
        wheel = write_wheel(scratch / "dist", modules)
        state = next(self.root.glob("lib/python*/site-packages"), None)
        if state is not None and (state / ".radpatch").exists():
            run(["rm", "-rf", state / ".radpatch"])
        run(
            [
                self.python,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--force-reinstall",
                "--no-index",
                wheel,
            ]
        )


def make_env(tmp: Path) -> Env:
    dist = tmp / "radpatch-dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check", "-w", dist, REPO])
    (wheel,) = dist.glob("radpatch-*.whl")
    root = tmp / "venv"
    run([sys.executable, "-m", "venv", root])
    run([root / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel])
    return Env(root, wheel)


def write_registry(d: Path, patches: dict[str, tuple[str, int]]) -> Path:
    if d.exists():
        run(["rm", "-rf", d])
    d.mkdir(parents=True)
    for name, (module, func) in patches.items():
        (d / f"{name}.yaml").write_text(patch_yaml(name, module, func))
    return d


# --- the three parts ----------------------------------------------------------------------------


def bench_patches(env: Env, tmp: Path, runs: int) -> list[dict[str, Any]]:
    rows = []
    for layout in ("spread", "stacked"):
        for n in COUNTS:
            if layout == "spread":
                modules = {f"m{i:03d}": module_source(FUNCS_PER_MODULE) for i in range(n)}
                patches = {f"p{i:03d}": (f"m{i:03d}", i % FUNCS_PER_MODULE) for i in range(n)}
            else:
                count = min(STACK_MODULES, n)
                funcs = max(FUNCS_PER_MODULE, n // count + 1)
                modules = {f"s{i}": module_source(funcs) for i in range(count)}
                patches = {f"p{i:03d}": (f"s{i % count}", i // count) for i in range(n)}
            say(f"patches: {layout}, {n} patch(es) over {len(modules)} module(s)")
            env.install(modules, tmp)
            reg = write_registry(tmp / "registry", patches)
            base = [env.radpatch, "--registry", reg]
            names = sorted(patches)
            samples: dict[str, list[Sample]] = {
                k: [] for k in ("list", "status (none applied)", "apply", "status (all applied)", "revert")
            }
            for _ in range(runs):
                samples["list"].append(timed([*base, "list"]))
                samples["status (none applied)"].append(timed([*base, "status"]))
                samples["apply"].append(timed([*base, "apply", *names]))
                applied = timed([*base, "status", "--check", *names])
                samples["status (all applied)"].append(applied)
                samples["revert"].append(timed([*base, "revert", *names]))
            for cmd, got in samples.items():
                rows.append({"layout": layout, "patches": n, "modules": len(modules), "command": cmd, **stats(got)})
    return rows


def bench_modules(env: Env, tmp: Path, runs: int) -> list[dict[str, Any]]:
    rows = []
    for lines in LINES:
        funcs = lines // 4
        say(f"modules: one rewrite on a {lines:,}-line module ({funcs:,} functions)")
        env.install({"big": module_source(funcs)}, tmp)
        reg = write_registry(tmp / "registry", {"bigpatch": ("big", funcs // 2)})
        base = [env.radpatch, "--registry", reg]
        samples: dict[str, list[Sample]] = {"apply": [], "status (applied)": [], "revert": []}
        for i in range(runs):
            samples["apply"].append(timed([*base, "apply", "bigpatch"]))
            samples["status (applied)"].append(timed([*base, "status", "--check", "bigpatch"]))
            samples["revert"].append(timed([*base, "revert", "bigpatch"]))
            if i >= 1 and sum(s.wall for got in samples.values() for s in got) > SLOW:
                break  # a row this slow gets two repetitions (the table says how many)
        for cmd, got in samples.items():
            rows.append({"lines": lines, "command": cmd, **stats(got)})
    return rows


def bench_verify(env: Env, tmp: Path, runs: int) -> list[dict[str, Any]]:
    rows = []
    warm_cache = tmp / "verify-warm"
    cold: list[Sample] = []
    fetched: list[dict[str, int]] = []
    for i in range(runs):
        cache = warm_cache if i == 0 else tmp / f"verify-cold-{i}"
        say(f"verify: cold run {i + 1}/{runs}")
        s = timed([env.radpatch, "verify", "kv_group_size", "--json"], env={"RADPATCH_CACHE": str(cache)})
        cold.append(s)
        fetched.append(json.loads(s.out)["fetched"])
    warm: list[Sample] = []
    for i in range(runs):
        say(f"verify: warm run {i + 1}/{runs}")
        s = timed([env.radpatch, "verify", "kv_group_size", "--json"], env={"RADPATCH_CACHE": str(warm_cache)})
        warm.append(s)
        assert json.loads(s.out)["fetched"]["bytes"] == 0, "a warm run read from the index"
    data = json.loads(cold[0].out)
    versions = [r["version"] for r in data["results"]]
    rows.append(
        {
            "run": "cold",
            "releases": fetched[0]["releases"],
            "bytes": statistics.median(f["bytes"] for f in fetched),
            "bytes_min": min(f["bytes"] for f in fetched),
            "bytes_max": max(f["bytes"] for f in fetched),
            "wheel_bytes": fetched[0]["wheel_bytes"],
            "whole_wheels": fetched[0]["whole_wheels"],
            "versions": versions,
            "passed": data["passed"],
            "claimed": data["claimed"],
            **stats(cold),
        }
    )
    rows.append(
        {
            "run": "warm",
            "releases": 0,
            "bytes": 0,
            "bytes_min": 0,
            "bytes_max": 0,
            "wheel_bytes": fetched[0]["wheel_bytes"],
            "whole_wheels": 0,
            "versions": versions,
            "passed": data["passed"],
            "claimed": data["claimed"],
            **stats(warm),
        }
    )
    return rows


# --- the report ---------------------------------------------------------------------------------


def revision() -> str:
    head = run(["git", "-C", REPO, "rev-parse", "HEAD"]).stdout.strip()
    branch = run(["git", "-C", REPO, "rev-parse", "--abbrev-ref", "HEAD"]).stdout.strip()
    # the figures this writes (benchmarks/results) do not make the measured code a different one
    dirty = run(
        ["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks/results"]
    ).stdout.strip()
    return f"{head} ({branch}){' + uncommitted changes' if dirty else ''}"


def main_base() -> str:
    """Where this checkout's history meets main (what the engine rows measure, on a branch);
    "" on main itself."""
    done = subprocess.run(["git", "-C", str(REPO), "merge-base", "HEAD", "main"], capture_output=True, text=True)
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    base = done.stdout.strip() if done.returncode == 0 else ""
    return "" if not base or base == head else base[:12]


def cell(r: dict[str, Any], key: str) -> str:
    return f"{r[key]:.2f} ({r[key + '_min']:.2f}–{r[key + '_max']:.2f})"


def mib(n: float) -> str:
    return f"{n / (1 << 20):,.1f} MiB"


def write_markdown(path: Path, result: dict[str, Any]) -> None:
    m = result["meta"]
    lines = [
        "# radpatch at scale",
        "",
        f"Generated by `python benchmarks/scale.py` on {m['date']}: commit `{m['commit']}`, Python {m['python']}, "
        f"{m['cpus']} CPUs (load average {m['load']} at the start; the machine is shared), "
        f"{m['runs']} runs per row. "
        "Whole `radpatch` processes from a non-editable install of this checkout's wheel in a temp venv, on a "
        f"pip-installed synthetic distribution `{DIST}`. Seconds: median (min–max); "
        "CPU = user + system of the process "
        "and its workers. Wall time on a shared, loaded machine is noisy; CPU time is the steadier figure."
        + (
            f" The commit's history meets main at `{m['main_base']}`: "
            "the engine rows measure that main, plus what this "
            "branch changed."
            if m.get("main_base")
            else ""
        )
        + (f" {m['note']}" if m.get("note") else ""),
        "",
    ]
    if result.get("patches"):
        lines += [
            "## Many patches",
            "",
            *_kept(result, "patches"),
            "One `replace` per patch. *spread*: one module per patch; *stacked*: the patches share 5 modules "
            "(N/5 patches on each). `apply`/`revert` take all N names in one run; `status (all applied)` is "
            "`status --check` on all N.",
            "",
            "| layout | patches | modules | command | runs | CPU s | wall s |",
            "|---|---:|---:|---|---:|---:|---:|",
        ]
        lines += [
            f"| {r['layout']} | {r['patches']} | {r['modules']} | {r['command']} | {r['runs']} "
            f"| {cell(r, 'cpu')} | {cell(r, 'wall')} |"
            for r in result["patches"]
        ]
        by = {(r["layout"], r["patches"], r["command"]): r for r in result["patches"]}
        one, many = by.get(("stacked", 1, "status (all applied)")), by.get(("stacked", 200, "status (all applied)"))
        if one and many:
            lines += [
                "",
                f"Target: status with 200 stacked patches under 2× status with one: "
                f"{many['cpu']:.2f} s vs {one['cpu']:.2f} s CPU = **{many['cpu'] / one['cpu']:.1f}×** "
                f"(wall {many['wall'] / one['wall']:.1f}×).",
            ]
        lines.append("")
    if result.get("modules"):
        lines += [
            "## One rewrite, growing module",
            "",
            *_kept(result, "modules"),
            "Modules of 4-line top-level functions; the rewrite is in the middle one.",
            "",
            "| lines | command | runs | CPU s | wall s |",
            "|---:|---|---:|---:|---:|",
        ]
        lines += [
            f"| {r['lines']:,} | {r['command']} | {r['runs']} | {cell(r, 'cpu')} | {cell(r, 'wall')} |"
            for r in result["modules"]
        ]
        by = {(r["lines"], r["command"]): r for r in result["modules"]}
        ten, hundred = by.get((10_000, "apply")), by.get((100_000, "apply"))
        if ten and hundred:
            lines += [
                "",
                f"Target: apply on 100k lines within 10× the 10k figure: {hundred['cpu']:.2f} s vs "
                f"{ten['cpu']:.2f} s CPU = **{hundred['cpu'] / ten['cpu']:.1f}×**.",
            ]
        lines.append("")
    if result.get("verify"):
        cold, warm = result["verify"]
        vs = cold["versions"]
        lines += [
            "## verify kv_group_size",
            "",
            *_kept(result, "verify"),
            f"`radpatch verify kv_group_size` over its declared range and the neighbours it probes "
            f"({len(vs)} releases: {vs[0]} … {vs[-1]}; {cold['passed']} of {cold['claimed']} in the range pass), "
            "against the real package index with this machine's pip settings. Cold: a new empty `RADPATCH_CACHE` "
            "each run; warm: the first cold run's cache.",
            "",
            "| run | runs | releases read | bytes read | of the wheels' bytes | CPU s | wall s |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in (cold, warm):
            share = f"{100 * r['bytes'] / r['wheel_bytes']:.2f}%" if r["run"] == "cold" else "0"
            read = f"{mib(r['bytes'])} ({mib(r['bytes_min'])}–{mib(r['bytes_max'])})" if r["run"] == "cold" else "0"
            lines.append(
                f"| {r['run']} | {r['runs']} | {r['releases']} | {read} | {share} "
                f"| {cell(r, 'cpu')} | {cell(r, 'wall')} |"
            )
        lines += [
            "",
            f"The wheels themselves: {mib(cold['wheel_bytes'])}; {cold['whole_wheels']} downloaded whole. "
            "Targets: cold under 1% of the wheels' bytes "
            f"(**{100 * cold['bytes'] / cold['wheel_bytes']:.2f}%**) "
            f"and under 30 s wall (**{cold['wall']:.1f} s**); warm under 3 s (**{warm['wall']:.1f} s**).",
            "",
        ]
    path.write_text("\n".join(lines))


def _previous(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("meta"), dict) else {}


def _kept(result: dict[str, Any], part: str) -> list[str]:
    k = result.get("kept", {}).get(part)
    if not k:
        return []
    return [
        f"*These figures are from an earlier run (not repeated this time): {k['date']}, commit `{k['commit']}`, "
        f"load average {k['load']} at its start, {k['runs']} runs per row.*",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="patches,modules,verify")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument(
        "--note", default="", help="A sentence about the conditions of this run (printed under the header)."
    )
    args = ap.parse_args(argv)
    parts = set(args.only.split(","))
    meta = {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": revision(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "runs": args.runs,
        "main_base": main_base(),
        "note": args.note,
    }
    result: dict[str, Any] = {"meta": meta}
    previous = _previous(args.out / "scale.json")
    for name in ("verify", "patches", "modules"):
        if name not in parts and previous.get(name):  # a part not run this time keeps its earlier figures
            result[name] = previous[name]
            result.setdefault("kept", {})[name] = {
                k: previous["meta"].get(k) for k in ("date", "commit", "load", "runs")
            }
    steps: dict[str, Callable[[Env, Path, int], list[dict[str, Any]]]] = {
        "verify": bench_verify,
        "patches": bench_patches,
        "modules": bench_modules,
    }
    with tempfile.TemporaryDirectory(prefix="radpatch-scale-") as tmp:
        say("building radpatch's wheel and its venv")
        env = make_env(Path(tmp))
        for name, step in steps.items():
            if name in parts:
                result[name] = step(env, Path(tmp), args.runs)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scale.json").write_text(json.dumps(result, indent=1) + "\n")
    write_markdown(args.out / "scale.md", result)
    say(f"wrote {args.out / 'scale.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

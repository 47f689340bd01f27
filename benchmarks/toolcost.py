#!/usr/bin/env python3
"""What radpatch costs: wall time and peak memory of its commands on a real vLLM install.

    python benchmarks/toolcost.py [--vllm 0.33.0] [--runs 15] [--baseline REV] [--out benchmarks/results]

Writes benchmarks/results/toolcost.md (and toolcost.json).  Benchmark figures, not tests: it
prints the targets next to the medians but never fails on them.

Set-up, as users run radpatch: the wheel is built from this checkout; a fresh copy of the vLLM
release is made with the CPU harness (harness/vllm_cpu.py) and radpatch's wheel is pip-installed
into it, non-editable, as a container build does (`RUN pip install radpatch`; only libcst is
missing from the harness's dependency set).  A second, separate venv holds the same wheel for
`radpatch --python COPY` (the form the real-vLLM tests use).

Every figure is a whole process (interpreter start-up included), timed with perf_counter around
fork/exec -> wait4; its peak memory is the command's ru_maxrss as GNU time reports it
(`/usr/bin/time -f %M`: the largest process of the command's tree; `--python` also starts the
target interpreter once).  After one untimed
warm-up round, the commands run round-robin, `--runs` times each:

  status (nothing applied)          radpatch status
  pip show vllm                     <copy>/bin/python -m pip show vllm
  marker check                      grep -q _radiance_kv_group_size <target file>
  apply (from pristine)             radpatch apply kv_group_size
  status (applied)                  radpatch status
  revert                            radpatch revert kv_group_size
  status --python (other venv)      <bench venv>/bin/radpatch --python <copy>/bin/python status

then, with the target file edited by hand (upstream's `1.5` heuristic changed to `1.6`, so it
matches neither the pristine nor the patched form), `radpatch status` again, which must report
`drifted`; the file is restored afterwards.

With --baseline REV, radpatch as of git revision REV is built from `git archive` and installed
the same way into a second fresh copy; every command then runs on both builds in turn, and the
report adds the ratio of the two CPU times pair by pair (a pair shares the host's speed of the
moment, which on this VM drifts by a factor of two within a day).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _bench_env as bench  # noqa: E402

PATCH = "kv_group_size"
MARKER = "_radiance_kv_group_size"
TARGETS = {"status_vs_pip_show": 0.5, "apply_seconds": 1.5}


GNU_TIME = Path("/usr/bin/time")


def timed(argv: list[str | Path], cwd: Path) -> dict[str, Any]:
    """Run argv once: wall seconds, exit code, peak RSS (MiB), output.

    The command runs under GNU time (`/usr/bin/time -f %M`), which reports the ru_maxrss its own
    wait4 returns for the command.  (The child's ru_maxrss as seen from here would not do: a
    process forked from this Python interpreter starts with the interpreter's resident pages
    counted in its high-water mark, which survives exec.)  Without GNU time, wait4's figure is
    used and is only an upper bound.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as rss:
        cmd = [str(a) for a in argv]
        if GNU_TIME.is_file():
            cmd = [str(GNU_TIME), "-f", "%M", "-o", rss.name, *cmd]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
        lines = [line for line in Path(rss.name).read_text().splitlines() if line.strip()]
    if GNU_TIME.is_file():
        # GNU time writes "Command exited with non-zero status N" before %M on failure
        maxrss_kib = int(lines[-1])
    else:
        maxrss_kib = usage.ru_maxrss
    # CPU: user + system of the whole tree (wait4 counts the descendants the child waited for):
    # steadier than wall time on a VM whose host gives it more or less of a core over a run
    return {
        "seconds": wall,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "rc": proc.returncode,
        "maxrss_mib": maxrss_kib / 1024,
        "output": text,
    }


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    secs = [s["seconds"] for s in samples]
    rss = [s["maxrss_mib"] for s in samples]
    cpu = [s["cpu_seconds"] for s in samples]
    return {
        "runs": len(samples),
        "median_s": statistics.median(secs),
        "min_s": min(secs),
        "median_cpu_s": statistics.median(cpu),
        "min_cpu_s": min(cpu),
        "max_cpu_s": max(cpu),
        "max_s": max(secs),
        "median_rss_mib": statistics.median(rss),
        "max_rss_mib": max(rss),
        "exit_codes": sorted({s["rc"] for s in samples}),
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclasses.dataclass
class Side:
    """One build of radpatch under test: a fresh vLLM copy with its wheel pip-installed, and a
    second venv holding the same wheel for `radpatch --python COPY`."""

    label: str
    copy: Path  # the copy's python
    radpatch: Path
    other: Path  # radpatch in the other venv
    target: Path
    pristine_sha: str

    def commands(self) -> list[tuple[str, list[str | Path]]]:
        return [
            ("radpatch status (nothing applied)", [self.radpatch, "status"]),
            ("pip show vllm", [self.copy, "-m", "pip", "show", "vllm"]),
            ("marker check: grep -q (not applied)", ["grep", "-q", MARKER, self.target]),
            ("radpatch apply kv_group_size (from pristine)", [self.radpatch, "apply", PATCH]),
            ("radpatch status (applied)", [self.radpatch, "status"]),
            ("marker check: grep -q (applied)", ["grep", "-q", MARKER, self.target]),
            ("radpatch revert kv_group_size", [self.radpatch, "revert", PATCH]),
            ("radpatch --python COPY status (from another venv)", [self.other, "--python", self.copy, "status"]),
        ]


DRIFT = "radpatch status (target edited by hand: drifted)"


def make_side(label: str, venv: Path, wheel: Path, vllm: str, cwd: Path) -> Side:
    copy = bench.fresh_vllm(vllm)
    bench.say(f"pip install {wheel.name} ({label}) into a vLLM {vllm} copy (non-editable)")
    # --no-deps + libcst: everything else radpatch needs is already in the harness's
    # dependency set, which pip must not touch (it is shared by every copy).
    bench.run(
        [copy, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", wheel, "libcst>=1.1"],
        cwd=cwd,
    )
    radpatch = copy.parent / "radpatch"
    (entry,) = json.loads(bench.run([radpatch, "status", "--json", PATCH], cwd=cwd).stdout)
    if entry["state"] != "not-applied":
        raise SystemExit(f"toolcost: fresh copy reports {entry['state']}")
    target = Path(entry["files"][0]["path"])
    return Side(label, copy, radpatch, venv / "bin" / "radpatch", target, sha256(target))


def edit_by_hand(target: Path) -> str:
    """Change upstream's heuristic in the target so it matches neither form; returns the text before."""
    text = target.read_text()
    edited = text.replace("max_num_layers < min_num_layers * 1.5", "max_num_layers < min_num_layers * 1.6", 1)
    if edited == text:
        raise SystemExit("toolcost: cannot find upstream's heuristic to edit")
    target.write_text(edited)
    return text


@dataclasses.dataclass
class Measured:
    samples: list[dict[str, list[dict[str, Any]]]]  # per side: command -> its timed runs
    outputs: dict[str, str]  # what this checkout's commands printed (last run)
    drift_status: dict[str, Any]  # `status --json` of the hand-edited file
    apply_on_drift: dict[str, Any]  # {"rc", "output"} of `apply` refusing it


def measure(sides: list[Side], runs: int, cwd: Path) -> Measured:
    """Samples per side and command. Each command runs on every side in turn (the side that goes
    first alternates by round), so a pair of samples shares the host's speed of the moment."""
    samples: list[dict[str, list[dict[str, Any]]]] = [{} for _ in sides]
    outputs: dict[str, str] = {}
    plans = [side.commands() for side in sides]
    for rnd in range(runs + 1):  # round 0: warm-up, not counted
        order = list(range(len(sides))) if rnd % 2 == 0 else list(reversed(range(len(sides))))
        for c, (name, _) in enumerate(plans[0]):
            for i in order:
                result = timed(plans[i][c][1], cwd)
                expected = 1 if name == "marker check: grep -q (not applied)" else 0
                if result["rc"] != expected:
                    raise SystemExit(f"toolcost: {name} ({sides[i].label}) exited {result['rc']}:\n{result['output']}")
                if rnd:
                    samples[i].setdefault(name, []).append(result)
                if i == 0:
                    outputs.setdefault(name, result["output"].strip())
        for side in sides:
            if sha256(side.target) != side.pristine_sha:
                raise SystemExit(f"toolcost: revert ({side.label}) did not restore the file byte for byte")
        bench.say(f"round {rnd}/{runs} done" + (" (warm-up)" if rnd == 0 else ""))

    # drift: an edit by hand that is neither the pristine nor the patched form
    texts = [edit_by_hand(side.target) for side in sides]
    try:
        for rnd in range(runs + 1):
            order = list(range(len(sides))) if rnd % 2 == 0 else list(reversed(range(len(sides))))
            for i in order:
                result = timed([sides[i].radpatch, "status"], cwd)
                if rnd:
                    samples[i].setdefault(DRIFT, []).append(result)
                if i == 0:
                    outputs[DRIFT] = result["output"].strip()
        drift_status = json.loads(bench.run([sides[0].radpatch, "status", "--json", PATCH], cwd=cwd).stdout)[0]
        refused = timed([sides[0].radpatch, "apply", PATCH], cwd)
    finally:
        for side, text in zip(sides, texts):
            side.target.write_text(text)
    for side in sides:
        if sha256(side.target) != side.pristine_sha:
            raise SystemExit(f"toolcost: could not restore the edited file ({side.label})")
    return Measured(samples, outputs, drift_status, {"rc": refused["rc"], "output": refused["output"].strip()})


def baseline_wheel(rev: str) -> tuple[Path, Path]:
    """(venv, wheel) for radpatch as of git revision `rev` of this checkout."""
    with tempfile.TemporaryDirectory(prefix="radpatch-baseline-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", bench.REPO, "archive", rev], capture_output=True, check=False)
        if archive.returncode != 0:
            raise SystemExit(f"toolcost: git archive {rev}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", src], input=archive.stdout, check=True)
        return bench.radpatch_venv(src)


def paired(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    cpu = [x["cpu_seconds"] / y["cpu_seconds"] for x, y in zip(a, b)]
    rss = [x["maxrss_mib"] - y["maxrss_mib"] for x, y in zip(a, b)]
    return {
        "pairs": len(cpu),
        "cpu_ratio_median": statistics.median(cpu),
        "cpu_ratio_min": min(cpu),
        "cpu_ratio_max": max(cpu),
        "rss_a": statistics.median(x["maxrss_mib"] for x in a),
        "rss_b": statistics.median(y["maxrss_mib"] for y in b),
        "rss_diff_median": statistics.median(rss),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", default="0.33.0")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also measure radpatch as of git revision REV, command by command in turn "
        "with this checkout, and report the paired ratios",
    )
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)

    cwd = bench.bench_cache() / "work"
    cwd.mkdir(exist_ok=True)
    builds = [("this checkout", *bench.radpatch_venv())]
    if args.baseline:
        builds.append((args.baseline, *baseline_wheel(args.baseline)))
    sides: list[Side] = []
    try:
        for label, venv, wheel in builds:
            sides.append(make_side(label, venv, wheel, args.vllm, cwd))
        measured = measure(sides, args.runs, cwd)
    finally:
        for side in sides:
            bench.remove_copy(side.copy)

    samples, drift_json = measured.samples, measured.drift_status
    stats = {name: summary(s) for name, s in samples[0].items()}
    pairs = {name: paired(samples[0][name], samples[1][name]) for name in samples[0]} if args.baseline else {}

    pip_show = stats["pip show vllm"]["median_s"]
    status_s = stats["radpatch status (nothing applied)"]["median_s"]
    status_applied = stats["radpatch status (applied)"]["median_s"]
    apply_s = stats["radpatch apply kv_group_size (from pristine)"]["median_s"]
    verdicts = [
        (
            f"radpatch status ≤ {TARGETS['status_vs_pip_show']:.0%} of pip show vllm",
            max(status_s, status_applied) <= TARGETS["status_vs_pip_show"] * pip_show,
            f"status {status_s * 1000:.0f} ms (applied: {status_applied * 1000:.0f} ms) vs pip show "
            f"{pip_show * 1000:.0f} ms = {max(status_s, status_applied) / pip_show:.0%}",
        ),
        (f"apply < {TARGETS['apply_seconds']} s", apply_s < TARGETS["apply_seconds"], f"{apply_s * 1000:.0f} ms"),
        (
            "status notices a hand edit (drifted)",
            drift_json["state"] == "drifted",
            f"`radpatch status` says {drift_json['state']!r} and names the rewrite and scope that "
            "differ (output below); `apply` refuses",
        ),
    ]
    report = {
        "vllm": args.vllm,
        "runs": args.runs,
        "wheel": builds[0][2].name,
        "revision": bench.checkout_revision(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}",
        "stats": stats,
        "verdicts": verdicts,
        "drift_status": drift_json,
        "apply_on_drift": measured.apply_on_drift,
        "outputs": measured.outputs,
        "baseline": args.baseline,
        "paired": pairs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "toolcost.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    write_markdown(args.out / "toolcost.md", report)
    for name, st in stats.items():
        print(
            f"{name:55s} median {st['median_s'] * 1000:7.0f} ms  "
            f"(min {st['min_s'] * 1000:.0f}, max {st['max_s'] * 1000:.0f})  "
            f"CPU {st['median_cpu_s'] * 1000:.0f} ms  peak RSS {st['median_rss_mib']:.1f} MiB"
        )
    for name, pr in pairs.items():
        print(
            f"vs {args.baseline}: {name:55s} CPU ratio {pr['cpu_ratio_median']:.2f} "
            f"({pr['cpu_ratio_min']:.2f}-{pr['cpu_ratio_max']:.2f})  peak {pr['rss_a']:.2f} / {pr['rss_b']:.2f} MiB"
        )
    for what, ok, detail in verdicts:
        print(f"{'met    ' if ok else 'NOT MET'} {what}: {detail}")
    print(f"wrote {args.out / 'toolcost.md'}")
    return 0


def write_markdown(path: Path, r: dict[str, Any]) -> None:
    L = ["# What radpatch costs", ""]
    L.append(
        f"Generated by `python benchmarks/toolcost.py --vllm {r['vllm']} --runs {r['runs']}` "
        f"on {r['date']} ({r['machine']}; radpatch wheel `{r['wheel']}` built from "
        f"checkout {r['revision']}, pip-installed, "
        f"non-editable, into a fresh copy of vLLM {r['vllm']} from the CPU harness). "
        "Whole-process wall time and CPU time (user + system of the command's process tree), "
        "interpreter start-up included; medians of "
        f"{r['runs']} runs per command after one warm-up round, run round-robin; peak "
        "memory is the command's ru_maxrss as `/usr/bin/time -f %M` reports it (the largest "
        "process of its tree). Benchmark figures, not tests."
    )
    L.append("")
    L.append(
        "The VM's host speed drifts (the same `pip show` took 1.0–2.3 s on one day), so the last "
        "column gives each row's CPU median as a share of `pip show vllm`'s in the same run: "
        "that is the figure to compare between runs (the drifted row runs after the others, "
        "so its share carries the drift of those minutes; the paired table below does not)."
    )
    L.append("")
    L.append("| command | median | min | max | CPU median (min–max) | peak RSS (median / max) | CPU ÷ pip show |")
    L.append("|---|---|---|---|---|---|---|")
    yardstick = r["stats"]["pip show vllm"]["median_cpu_s"]
    for name, st in r["stats"].items():
        L.append(
            f"| {name} | **{st['median_s'] * 1000:.0f} ms** | {st['min_s'] * 1000:.0f} ms "
            f"| {st['max_s'] * 1000:.0f} ms | {st['median_cpu_s'] * 1000:.0f} ms "
            f"({st['min_cpu_s'] * 1000:.0f}–{st['max_cpu_s'] * 1000:.0f}) | {st['median_rss_mib']:.1f} / "
            f"{st['max_rss_mib']:.1f} MiB | {st['median_cpu_s'] / yardstick:.0%} |"
        )
    if r.get("paired"):
        L.append("")
        L.append(
            f"Against radpatch as of `{r['baseline']}`, built and installed the same way into its own "
            "fresh copy: each command ran on both builds in turn (which went first alternating by "
            "round), so each pair shares the host's speed of the moment. Ratios are this checkout's "
            "CPU time over the baseline's, pair by pair (below 1: this checkout is cheaper)."
        )
        L.append("")
        L.append(f"| command | CPU ratio median (min–max) | peak RSS median: this / `{r['baseline']}` |")
        L.append("|---|---|---|")
        for name, pr in r["paired"].items():
            if name.startswith("marker check") or name == "pip show vllm":
                continue  # the same command on both sides: a control, not a comparison
            L.append(
                f"| {name} | **{pr['cpu_ratio_median']:.2f}** "
                f"({pr['cpu_ratio_min']:.2f}–{pr['cpu_ratio_max']:.2f}) "
                f"| {pr['rss_a']:.2f} / {pr['rss_b']:.2f} MiB |"
            )
        ctl = r["paired"]["pip show vllm"]
        L.append(
            f"| control: pip show vllm (the same command in both copies) | {ctl['cpu_ratio_median']:.2f} "
            f"({ctl['cpu_ratio_min']:.2f}–{ctl['cpu_ratio_max']:.2f}) "
            f"| {ctl['rss_a']:.2f} / {ctl['rss_b']:.2f} MiB |"
        )
    L.append("")
    L.append("Targets:")
    L.append("")
    for what, ok, detail in r["verdicts"]:
        L.append(f"- {what}: {'met' if ok else '**not met**'} — {detail}")
    L.append("")
    L.append("What the commands printed (last run):")
    L.append("")
    for name in (
        "radpatch status (nothing applied)",
        "radpatch apply kv_group_size (from pristine)",
        "radpatch status (applied)",
        "radpatch revert kv_group_size",
        "radpatch status (target edited by hand: drifted)",
    ):
        L.append(f"- `{name}`:")
        L.append("")
        L.append("  ```")
        L.extend("  " + line for line in r["outputs"].get(name, "").splitlines())
        L.append("  ```")
    L.append("")
    L.append(f"With the target edited by hand, `apply` refuses (exit {r['apply_on_drift']['rc']}):")
    L.append("")
    L.append("```")
    L.extend(r["apply_on_drift"]["output"].splitlines())
    L.append("```")
    path.write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())

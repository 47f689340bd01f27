#!/usr/bin/env python3
"""What radpatch costs: wall time and peak memory of its commands on a real vLLM install.

    python benchmarks/toolcost.py [--vllm 0.33.0] [--runs 15] [--out benchmarks/results]

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
"""

from __future__ import annotations

import argparse
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
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
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
    return {"seconds": wall, "cpu_seconds": usage.ru_utime + usage.ru_stime, "rc": proc.returncode,
            "maxrss_mib": maxrss_kib / 1024, "output": text}


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    secs = [s["seconds"] for s in samples]
    rss = [s["maxrss_mib"] for s in samples]
    cpu = [s["cpu_seconds"] for s in samples]
    return {"runs": len(samples), "median_s": statistics.median(secs), "min_s": min(secs),
            "median_cpu_s": statistics.median(cpu), "min_cpu_s": min(cpu), "max_cpu_s": max(cpu),
            "max_s": max(secs), "median_rss_mib": statistics.median(rss),
            "max_rss_mib": max(rss), "exit_codes": sorted({s["rc"] for s in samples})}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", default="0.33.0")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)

    venv, wheel = bench.radpatch_venv()
    wheel_name = wheel.name
    copy = bench.fresh_vllm(args.vllm)
    cwd = bench.bench_cache() / "work"
    cwd.mkdir(exist_ok=True)
    try:
        bench.say(f"pip install {wheel.name} into the vLLM {args.vllm} copy (non-editable)")
        # --no-deps + libcst: everything else radpatch needs is already in the harness's
        # dependency set, which pip must not touch (it is shared by every copy).
        bench.run([copy, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                   "--no-deps", wheel, "libcst>=1.1"], cwd=cwd)
        radpatch = copy.parent / "radpatch"
        other = venv / "bin" / "radpatch"
        (entry,) = json.loads(bench.run([radpatch, "status", "--json", PATCH], cwd=cwd).stdout)
        target = Path(entry["files"][0]["path"])
        pristine_sha = sha256(target)
        if entry["state"] != "not-applied":
            raise SystemExit(f"toolcost: fresh copy reports {entry['state']}")

        commands: list[tuple[str, list[str | Path]]] = [
            ("radpatch status (nothing applied)", [radpatch, "status"]),
            ("pip show vllm", [copy, "-m", "pip", "show", "vllm"]),
            ("marker check: grep -q (not applied)", ["grep", "-q", MARKER, target]),
            ("radpatch apply kv_group_size (from pristine)", [radpatch, "apply", PATCH]),
            ("radpatch status (applied)", [radpatch, "status"]),
            ("marker check: grep -q (applied)", ["grep", "-q", MARKER, target]),
            ("radpatch revert kv_group_size", [radpatch, "revert", PATCH]),
            ("radpatch --python COPY status (from another venv)",
             [other, "--python", copy, "status"]),
        ]
        samples: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in commands}
        outputs: dict[str, str] = {}
        for rnd in range(args.runs + 1):  # round 0: warm-up, not counted
            for name, cmd in commands:
                result = timed(cmd, cwd)
                expected = 1 if name == "marker check: grep -q (not applied)" else 0
                if result["rc"] != expected:
                    raise SystemExit(f"toolcost: {name} exited {result['rc']}:\n"
                                     f"{result['output']}")
                if rnd:
                    samples[name].append(result)
                outputs.setdefault(name, result["output"].strip())
            if sha256(target) != pristine_sha:
                raise SystemExit("toolcost: revert did not restore the file byte for byte")
            bench.say(f"round {rnd}/{args.runs} done" + (" (warm-up)" if rnd == 0 else ""))

        # drift: an edit by hand that is neither the pristine nor the patched form
        text = target.read_text()
        edited = text.replace("max_num_layers < min_num_layers * 1.5",
                              "max_num_layers < min_num_layers * 1.6", 1)
        if edited == text:
            raise SystemExit("toolcost: cannot find upstream's heuristic to edit")
        drift_name = "radpatch status (target edited by hand: drifted)"
        samples[drift_name] = []
        try:
            target.write_text(edited)
            for rnd in range(args.runs + 1):
                result = timed([radpatch, "status"], cwd)
                if rnd:
                    samples[drift_name].append(result)
            outputs[drift_name] = result["output"].strip()
            drift_json = json.loads(bench.run([radpatch, "status", "--json", PATCH],
                                              cwd=cwd).stdout)[0]
            apply_refused = timed([radpatch, "apply", PATCH], cwd)
        finally:
            target.write_text(text)
        if sha256(target) != pristine_sha:
            raise SystemExit("toolcost: could not restore the edited file")
    finally:
        bench.remove_copy(copy)

    stats = {name: summary(s) for name, s in samples.items()}
    pip_show = stats["pip show vllm"]["median_s"]
    status_s = stats["radpatch status (nothing applied)"]["median_s"]
    status_applied = stats["radpatch status (applied)"]["median_s"]
    apply_s = stats["radpatch apply kv_group_size (from pristine)"]["median_s"]
    verdicts = [
        (f"radpatch status ≤ {TARGETS['status_vs_pip_show']:.0%} of pip show vllm",
         max(status_s, status_applied) <= TARGETS["status_vs_pip_show"] * pip_show,
         f"status {status_s * 1000:.0f} ms (applied: {status_applied * 1000:.0f} ms) vs pip show "
         f"{pip_show * 1000:.0f} ms = {max(status_s, status_applied) / pip_show:.0%}"),
        (f"apply < {TARGETS['apply_seconds']} s", apply_s < TARGETS["apply_seconds"],
         f"{apply_s * 1000:.0f} ms"),
        ("status notices a hand edit (drifted)", drift_json["state"] == "drifted",
         f"`radpatch status` says {drift_json['state']!r} and names the rewrite and scope that "
         "differ (output below); `apply` refuses"),
    ]
    report = {"vllm": args.vllm, "runs": args.runs, "wheel": wheel_name,
              "revision": bench.checkout_revision(),
              "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}",
              "stats": stats, "verdicts": verdicts, "drift_status": drift_json,
              "apply_on_drift": {"rc": apply_refused["rc"],
                                 "output": apply_refused["output"].strip()},
              "outputs": outputs}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "toolcost.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    write_markdown(args.out / "toolcost.md", report)
    for name, st in stats.items():
        print(f"{name:55s} median {st['median_s'] * 1000:7.0f} ms  "
              f"(min {st['min_s'] * 1000:.0f}, max {st['max_s'] * 1000:.0f})  "
              f"CPU {st['median_cpu_s'] * 1000:.0f} ms  peak RSS {st['median_rss_mib']:.1f} MiB")
    for what, ok, detail in verdicts:
        print(f"{'met    ' if ok else 'NOT MET'} {what}: {detail}")
    print(f"wrote {args.out / 'toolcost.md'}")
    return 0


def write_markdown(path: Path, r: dict[str, Any]) -> None:
    L = ["# What radpatch costs", ""]
    L.append(f"Generated by `python benchmarks/toolcost.py --vllm {r['vllm']} --runs {r['runs']}` "
             f"on {r['date']} ({r['machine']}; radpatch wheel `{r['wheel']}` built from "
             f"checkout {r['revision']}, pip-installed, "
             f"non-editable, into a fresh copy of vLLM {r['vllm']} from the CPU harness). "
             "Whole-process wall time and CPU time (user + system of the command's process tree), "
             "interpreter start-up included; medians of "
             f"{r['runs']} runs per command after one warm-up round, run round-robin; peak "
             "memory is the command's ru_maxrss as `/usr/bin/time -f %M` reports it (the largest "
             "process of its tree). Benchmark figures, not tests.")
    L.append("")
    L.append("| command | median | min | max | CPU median (min–max) | peak RSS (median / max) |")
    L.append("|---|---|---|---|---|---|")
    for name, st in r["stats"].items():
        L.append(f"| {name} | **{st['median_s'] * 1000:.0f} ms** | {st['min_s'] * 1000:.0f} ms "
                 f"| {st['max_s'] * 1000:.0f} ms | {st['median_cpu_s'] * 1000:.0f} ms "
                 f"({st['min_cpu_s'] * 1000:.0f}–{st['max_cpu_s'] * 1000:.0f}) | {st['median_rss_mib']:.1f} / "
                 f"{st['max_rss_mib']:.1f} MiB |")
    L.append("")
    L.append("Targets:")
    L.append("")
    for what, ok, detail in r["verdicts"]:
        L.append(f"- {what}: {'met' if ok else '**not met**'} — {detail}")
    L.append("")
    L.append("What the commands printed (last run):")
    L.append("")
    for name in ("radpatch status (nothing applied)", "radpatch apply kv_group_size (from pristine)",
                 "radpatch status (applied)", "radpatch revert kv_group_size",
                 "radpatch status (target edited by hand: drifted)"):
        L.append(f"- `{name}`:")
        L.append("")
        L.append("  ```")
        L.extend("  " + line for line in r["outputs"].get(name, "").splitlines())
        L.append("  ```")
    L.append("")
    L.append("With the target edited by hand, `apply` refuses (exit "
             f"{r['apply_on_drift']['rc']}):")
    L.append("")
    L.append("```")
    L.extend(r["apply_on_drift"]["output"].splitlines())
    L.append("```")
    path.write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())

"""Issue 6.1 — crash at any moment: radpatch processes really killed with SIGKILL.

* deterministic: RADPATCH_FAULT (radpatch/faults.py) kills `apply`/`revert` between the two files
  of the 2-file test patch, after both files, and before the record;
* exhaustive: strace kills the radpatch process right before each state-changing syscall (mkdir,
  rename, unlinkat, rmdir) of a whole apply and a whole revert;
* random (real vLLM 0.33.0, flagship kv_group_size): >= 50 kills at seeded random moments.

After every kill: each target file is byte-identical to its original or its patched form and
compiles; status agrees with the files; the next apply/revert completes and leaves the
environment settled (files, record, status, no journal).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import time
from collections import Counter

import pytest

from tests.lib.installed import Env, assert_forms_and_compile, assert_settled, assert_status_consistent
from tests.lib.processes import clean_env

# --- helpers --------------------------------------------------------------------------------------


def settle(env: Env, op: str, cli: bool = False) -> subprocess.CompletedProcess[str]:
    """Run `op` to completion: it must recover any interrupted run and succeed."""
    out = env.run(op, env.patch)
    assert out.returncode == 0, f"{op} after a crash failed ({out.returncode}):\n{out.stdout}{out.stderr}"
    assert_settled(env, applied=(op == "apply"), strict=False, cli=cli)
    return out


# --- deterministic fault points between the files of a 2-file patch ---------------------------------

FAULTS = [
    # (op, RADPATCH_FAULT, expected forms of (alpha, beta) right after the kill)
    ("apply", "after-file:1", ("patched", "original")),
    ("apply", "before-file:2", ("patched", "original")),
    ("apply", "after-file:2", ("patched", "patched")),
    ("apply", "before-record:1", ("patched", "patched")),
    ("revert", "after-file:1", ("original", "patched")),
    ("revert", "before-record:1", ("original", "original")),
]


@pytest.mark.parametrize("op,fault,mid", FAULTS, ids=[f"{o}-{f}" for o, f, _ in FAULTS])
def test_fault_point_between_files(demo_env: Env, op: str, fault: str, mid: tuple[str, str]) -> None:
    env = demo_env
    if op == "revert":
        settle(env, "apply")
    before_record = env.record()
    out = env.run(op, env.patch, fault=fault)
    assert out.returncode == -signal.SIGKILL, f"the fault point did not kill radpatch: {out.returncode} {out.stderr}"
    assert (env.state_dir / "journal").is_dir(), "killed inside the commit: the journal must be there"
    forms = assert_forms_and_compile(env)
    assert tuple(forms[r] for r in env.targets) == mid
    assert env.record() == before_record, "the record changed although the run died before writing it"
    assert_status_consistent(env, forms)  # the real `radpatch status --json`

    # the same command again finishes the job (rolling the interrupted run back first)
    again = settle(env, op)
    if set(mid) != {"patched" if op == "revert" else "original"}:
        assert "recovered from an interrupted run" in again.stdout, again.stdout


@pytest.mark.parametrize(
    "op,fault", [("apply", "after-file:1"), ("revert", "after-file:1"), ("revert", "before-record:1")]
)
def test_fault_point_then_opposite_command(demo_env: Env, op: str, fault: str) -> None:
    """The interrupted run is rolled back (its record was not written) whatever runs next."""
    env = demo_env
    if op == "revert":
        settle(env, "apply")
    assert env.run(op, env.patch, fault=fault).returncode == -signal.SIGKILL
    assert_status_consistent(env, assert_forms_and_compile(env))
    other = "revert" if op == "apply" else "apply"
    settle(env, other)
    settle(env, op)


# --- strace: SIGKILL at every state-changing syscall of a whole run ---------------------------------

SYSCALLS = ("mkdir", "rename", "unlinkat", "rmdir")


def _kill_points(env: Env, op: str) -> list[tuple[str, int, str]]:
    """(syscall, n, what) for every state-changing syscall of one `op` run of the radpatch process
    itself (bytecode writes under __pycache__ left out: they change no state radpatch relies on)."""
    log = env.venv.parent / f"strace-{op}.log"
    cmd = ["strace", "-qq", "-o", str(log), "-e", "trace=" + ",".join(SYSCALLS), *env.cmd(op, env.patch)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=clean_env(), cwd="/")
    assert out.returncode == 0, out.stderr
    seen: Counter[str] = Counter()
    points = []
    for m in re.finditer(r"^(\w+)\((.*)$", log.read_text(), re.M):
        name = m.group(1)
        seen[name] += 1
        if "__pycache__" not in m.group(2):
            points.append((name, seen[name], m.group(2)[:160]))
    return points


@pytest.mark.strace
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_sigkill_at_every_state_changing_syscall(demo_env: Env) -> None:
    """Kill apply/revert right before each of its mkdir/rename/unlinkat/rmdir syscalls.

    The kill is real: strace delivers SIGKILL to the radpatch process at that syscall. The points
    are every step of a commit: the journal's temp dir, the journal's rename into place, each
    file's os.replace, the record's os.replace, and each step of removing the journal.
    """
    env = demo_env
    settle(env, "apply", cli=False)  # creates .radpatch/, so that both counted runs are typical
    settle(env, "revert", cli=False)
    points = {"apply": _kill_points(env, "apply")}
    points["revert"] = _kill_points(env, "revert")
    settle(env, "revert", cli=False)
    assert len(points["apply"]) >= 8 and len(points["revert"]) >= 8, points
    failures: list[str] = []
    litter: list[str] = []
    total = 0
    for i in range(max(len(p) for p in points.values())):
        for op in ("apply", "revert"):
            if i >= len(points[op]):
                continue
            syscall, n, what = points[op][i]
            start = "patched" if op == "revert" else "original"
            if set(env.forms().values()) != {start}:
                settle(env, "apply" if op == "revert" else "revert", cli=False)
            total += 1
            where = f"{op} killed at {syscall} #{n} ({what})"
            cmd = [
                "strace",
                "-qq",
                "-o",
                "/dev/null",
                "-e",
                f"trace={syscall}",
                "-e",
                f"inject={syscall}:signal=KILL:when={n}",
                *env.cmd(op, env.patch),
            ]
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=clean_env(), cwd="/")
            if out.returncode != -signal.SIGKILL:
                failures.append(f"{where}: not killed (exit {out.returncode})")
            try:
                assert_status_consistent(env, assert_forms_and_compile(env), cli=False)
            except AssertionError as exc:
                failures.append(f"{where}: right after the kill: {exc}")
            done = env.run(op, env.patch)  # the same command again must recover and complete
            if done.returncode != 0:
                failures.append(f"{where}: the next `{op}` failed with exit {done.returncode}: {done.stderr.strip()}")
                _reset(env)  # a real user would be stuck here; get back to a known state to go on
                continue
            try:
                litter += assert_settled(env, applied=(op == "apply"), strict=False, cli=False)
            except AssertionError as exc:
                failures.append(f"{where}: after the next `{op}`: {exc}")
    print(f"\n{total} kill points; temp files/journals left behind after recovery: {sorted(set(litter))}")
    assert not failures, f"{len(failures)} of {total} kill points broke a guarantee:\n" + "\n".join(failures)


def _reset(env: Env) -> None:
    """Back to pristine by hand (only after radpatch itself failed to recover)."""
    shutil.rmtree(env.state_dir / "journal", ignore_errors=True)
    (env.state_dir / "record.json").unlink(missing_ok=True)
    for rel in env.targets:
        env.path(rel).write_bytes(env.original[rel])


# --- random SIGKILLs on the flagship patch against real vLLM 0.33.0 --------------------------------


@pytest.mark.vllm
def test_sigkill_at_random_moments_kv_group_size(vllm_install_env: Env) -> None:
    env = vllm_install_env
    rng = random.Random(0x6AD9A7C4)

    def timed(op: str) -> float:
        t0 = time.monotonic()
        out = env.run(op, env.patch)
        took = time.monotonic() - t0
        assert out.returncode == 0, out.stderr
        return took

    runtime: dict[str, float] = {}
    for op in ("apply", "revert", "apply", "revert"):
        runtime[op] = max(runtime.get(op, 0.0), timed(op))
    assert_settled(env, applied=False)
    started = time.monotonic()
    kills = 0
    landed: Counter[str] = Counter()
    litter: list[str] = []
    iteration = 0
    while kills < 52:
        iteration += 1
        assert iteration < 200, "too many runs finished before their kill"
        current = set(env.forms().values())
        natural = "apply" if current == {"original"} else "revert"
        op = natural if rng.random() < 0.9 else ("revert" if natural == "apply" else "apply")
        # half the kills anywhere in the run, half in its last 40% (planning is done, the commit runs)
        t = runtime[op]
        delay = rng.uniform(0.0, t) if rng.random() < 0.5 else rng.uniform(0.6 * t, 1.02 * t)
        proc = env.popen(op, env.patch)
        t0 = time.monotonic()
        try:
            proc.wait(timeout=delay)
            killed = False
            if op == natural:  # the machine got faster than the estimate: aim by this run from now on
                runtime[op] = time.monotonic() - t0
        except subprocess.TimeoutExpired:
            killed = True
            os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        journal = (env.state_dir / "journal").exists()
        forms = assert_forms_and_compile(env)
        assert_status_consistent(env, forms, cli=False)
        if not killed:
            assert proc.returncode == 0, f"{op} (not killed) failed: {err}"
            landed["finished before the kill"] += 1
            continue
        kills += 1
        landed[f"{op} killed, file {forms[env.targets[0]]}{', journal present' if journal else ''}"] += 1
        if kills % 5 == 0:
            assert_status_consistent(env, forms)  # the real `radpatch status --json`
        if kills % 10 == 0:
            op = rng.choice(["apply", "revert"])
            litter += assert_settled_after(env, op)
    # the end: both commands complete and the file comes back byte for byte
    litter += assert_settled_after(env, "apply")
    check = env.run("status", "--check")
    assert check.returncode == 0, check.stderr
    litter += assert_settled_after(env, "revert")
    assert env.path(env.targets[0]).read_bytes() == env.original[env.targets[0]]
    elapsed = time.monotonic() - started
    print(
        f"\n{kills} kills in {elapsed:.0f}s; runtime apply {runtime['apply']:.2f}s revert {runtime['revert']:.2f}s; "
        f"where they landed: {dict(landed)}; left behind: {sorted(set(litter))}"
    )
    # the work is bounded (52 kills, under 200 runs); how long it takes is a benchmark's business


def assert_settled_after(env: Env, op: str) -> list[str]:
    out = env.run(op, env.patch)
    assert out.returncode == 0, f"{op} after kills failed ({out.returncode}): {out.stderr}"
    return assert_settled(env, applied=(op == "apply"), strict=False)

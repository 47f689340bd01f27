"""Issue 6.2 — concurrent runs: real radpatch processes started at once on one environment.

N parallel applies (then reverts) are serialised by the fcntl lock and equal one run; a lock
whose holder is SIGKILLed never blocks the next run.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.lib.installed import Env, assert_forms_and_compile, assert_settled, assert_status_consistent

N = 6


def _all_at_once(env: Env, ops: list[str]) -> list[subprocess.CompletedProcess[str]]:
    procs = [env.popen(op, env.patch) for op in ops]
    results = []
    for op, p in zip(ops, procs):
        out, err = p.communicate(timeout=600)
        results.append(subprocess.CompletedProcess([op], p.returncode, out, err))
    return results


def _parallel_equals_single(env: Env) -> None:
    results = _all_at_once(env, ["apply"] * N)
    assert [r.returncode for r in results] == [0] * N, [r.stderr for r in results]
    did = [r for r in results if f"{env.patch}: applied to" in r.stdout]
    assert len(did) == 1, f"{len(did)} of {N} parallel applies wrote the patch: {[r.stdout for r in results]}"
    assert all("already applied" in r.stdout for r in results if r not in did), [r.stdout for r in results]
    assert_settled(env, applied=True)  # file bytes == the single run's bytes, one record entry, no leftovers

    results = _all_at_once(env, ["revert"] * N)
    assert [r.returncode for r in results] == [0] * N, [r.stderr for r in results]
    did = [r for r in results if f"{env.patch}: reverted" in r.stdout]
    assert len(did) == 1, f"{len(did)} of {N} parallel reverts wrote: {[r.stdout for r in results]}"
    assert_settled(env, applied=False)


def test_parallel_applies_and_reverts_equal_one_run(demo_env: Env) -> None:
    _parallel_equals_single(demo_env)


@pytest.mark.vllm
def test_parallel_applies_and_reverts_equal_one_run_kv_group_size(vllm_install_env: Env) -> None:
    _parallel_equals_single(vllm_install_env)


def test_racing_applies_and_reverts_stay_consistent(demo_env: Env) -> None:
    """Applies and reverts at once: each decides under the lock; the end state is whole and recorded."""
    env = demo_env
    for ops in (["apply", "revert"] * 3, ["revert", "apply"] * 3):
        results = _all_at_once(env, ops)
        assert [r.returncode for r in results] == [0] * len(ops), [r.stderr for r in results]
        forms = assert_forms_and_compile(env)
        assert len(set(forms.values())) == 1, f"racing runs left the patch half-applied: {forms}"
        applied = set(forms.values()) == {"patched"}
        assert_settled(env, applied=applied)
        assert_status_consistent(env, forms)


HOLDER = """
import fcntl, os, sys, time
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(600)
"""


def test_lock_of_a_killed_holder_does_not_block(demo_env: Env) -> None:
    """A process holding the lock is SIGKILLed while `apply` waits for it: apply then goes on."""
    env = demo_env
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(env.state_dir / "lock")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        proc = env.popen("apply", env.patch)
        assert proc.stderr is not None
        waited, deadline = b"", time.monotonic() + 120
        while b"waiting for another radpatch process" not in waited and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                waited += chunk
        assert b"waiting for another radpatch process" in waited, f"apply did not wait for the lock: {waited!r}"
        time.sleep(1)
        assert proc.poll() is None, "apply stopped waiting although the lock is still held"
        assert env.forms() == {r: "original" for r in env.targets}, "apply wrote while another process held the lock"
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        out, err = proc.communicate(timeout=60)
        err = waited.decode() + err
    finally:
        if holder.poll() is None:
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait()
    assert proc.returncode == 0, err
    assert "waiting for another radpatch process" in err
    assert str(env.state_dir / "lock") in err, err
    assert_settled(env, applied=True)


def test_radpatch_killed_inside_the_lock_does_not_block(demo_env: Env) -> None:
    """radpatch itself SIGKILLed while holding the lock (mid-commit, via RADPATCH_FAULT): the next
    run gets the lock at once, recovers and completes (with a timeout, so a hang fails)."""
    env = demo_env
    killed = env.run("apply", env.patch, fault="after-file:1")
    assert killed.returncode == -signal.SIGKILL
    try:
        out = env.run("apply", env.patch, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.fail("apply blocked on the lock of a killed radpatch process")
    assert out.returncode == 0, out.stderr
    assert "waiting for another" not in out.stderr  # it got the lock at once: it never waited
    assert_settled(env, applied=True, strict=False)

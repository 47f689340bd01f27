"""apply's overlap refusal and revert's applied-dependent refusal run under the installation's
lock (engine.apply / engine.revert), not before it: a run that waits for the lock decides on what
the run holding it left, so an apply that slips in between cannot be stacked on or pulled from under.

Real radpatch processes on a fake site-packages: the first is stopped (RADPATCH_FAULT ...:stop)
while it holds the lock, before it writes; the second starts and waits for the lock; the first
goes on and finishes; the second must then refuse, and leave every byte as the first left it."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.lib.overlaps import AT_TOTAL, CORE, text
from tests.lib.processes import clean_env
from tests.lib.site import Site
from tests.lib.toy import UPPER

REPO = Path(__file__).resolve().parents[2]
WAITING = "waiting for another radpatch process"


def start(site: Site, reg: Path, *args: str, fault: str | None = None) -> subprocess.Popen[str]:
    """`radpatch --registry REG ARGS` in a process of its own, on `site` as its environment."""
    env = clean_env(PYTHONPATH=os.pathsep.join([str(site.root), str(REPO)]))
    if fault:
        env["RADPATCH_FAULT"] = fault
    return subprocess.Popen(
        [sys.executable, "-m", "radpatch", "--registry", str(reg), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=site.root.parent,
    )


def stopped(proc: subprocess.Popen[str]) -> None:
    """Wait until `proc` stops itself at its fault point (it holds the lock there)."""
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), f"the first run ended instead of stopping: {proc.communicate()}"


def waits_for_the_lock(proc: subprocess.Popen[str]) -> str:
    """Read `proc`'s stderr until it says it waits for the lock; what it said so far."""
    assert proc.stderr is not None
    said, deadline = b"", time.monotonic() + 300
    while WAITING.encode() not in said and time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            said += chunk
    assert WAITING.encode() in said, f"the second run did not wait for the lock: {said!r}"
    return said.decode()


def race(first: subprocess.Popen[str], second_args: tuple[str, ...], site: Site, reg: Path) -> tuple[int, str]:
    """`first` stopped holding the lock; the second run waits for it; `first` finishes; the
    second's exit code and stderr."""
    stopped(first)
    try:
        second = start(site, reg, *second_args)
        said = waits_for_the_lock(second)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, out + err
    _, err2 = second.communicate(timeout=300)
    return second.returncode, said + err2


def test_an_overlapping_entry_applied_while_apply_waits_for_the_lock_is_refused(
    site: Site, write_registry: Any
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    write_registry("a", text(AT_TOTAL.format(id="a", n=1)))
    reg = write_registry("b", text(AT_TOTAL.format(id="b", n=2)))  # the same gap, no `requires:`
    first = start(site, reg, "apply", "a", fault="before-file:1:stop")
    code, err = race(first, ("apply", "b"), site, reg)
    core = (site.root / "toypkg/core.py").read_text()
    assert code == 1, err
    assert "a and b overlap" in err or "b and a overlap" in err, err
    assert "total = 1" in core and "total = 2" not in core, core  # a's change alone, as the first run left it


def test_a_dependent_applied_while_revert_waits_for_the_lock_keeps_its_requirement(
    site: Site, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    write_registry("upper", UPPER)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    first = start(site, toy, "apply", "upper", fault="before-file:1:stop")
    code, err = race(first, ("revert", "toy"), site, toy)
    assert code == 1, err
    assert "toy: upper is applied and requires it (`requires:`)" in err, err
    assert "radpatch revert upper toy" in err, err
    core = (site.root / "toypkg/core.py").read_text()
    assert "size = 5" in core and "spec, cfg=None" in core, core  # upper on toy, both still applied

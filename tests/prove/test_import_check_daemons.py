"""`apply --import-check` on an import that starts a daemon in its own session (`setsid()`): killing
the check's process group cannot reach it, and it ran on after radpatch ended (fb38 #2). The check's
interpreter now runs under a subreaper launcher (prove/import_reaper.py) that kills every process
below it once the import ends or times out.

Generated: how the import detaches its process (a fork that calls setsid, a double fork, a
subprocess in a new session, one more in the ordinary process group) times how the import goes on
(it imports; it hangs past the time limit). Every process started writes its pid to a directory; the
oracle reads /proc after apply returns: none of them is still running."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.processes import pid_directory, running
from tests.lib.registry import entry_head
from tests.lib.site import Site

HEAD = """\
import os
import subprocess
import sys
import time

PIDS = {pids!r}
_before = len(os.listdir(PIDS))
_SLEEPER = "import os, time; open(os.path.join(%r, str(os.getpid())), 'w').close(); time.sleep(3600)" % PIDS


def _sleep_here():
    open(os.path.join(PIDS, str(os.getpid())), "w").close()
    while True:
        time.sleep(60)


LIMIT = 3
"""
DETACH = {  # module-level code that leaves a process running, detached from the import's group or not
    "fork-setsid": "if os.fork() == 0:\n    os.setsid()\n    _sleep_here()\n",
    "double-fork": (
        "_mid = os.fork()\nif _mid == 0:\n    os.setsid()\n    if os.fork() == 0:\n        _sleep_here()\n"
        "    os._exit(0)\nos.waitpid(_mid, 0)\n"
    ),
    "popen-new-session": "_p = subprocess.Popen([sys.executable, '-c', _SLEEPER], start_new_session=True)\n",
    "popen-same-group": "_p = subprocess.Popen([sys.executable, '-c', _SLEEPER])\n",
}
WAIT = "while len(os.listdir(PIDS)) == _before:  # the process has started\n    time.sleep(0.01)\n"
THEN = {"imports": "", "hangs": "while True:\n    time.sleep(1)\n"}


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    with pid_directory(tmp_path / "pids") as where:
        yield where


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize(("detach", "then"), sample(itertools.product(DETACH, THEN)))
def test_a_process_the_import_detaches_is_killed_with_it(
    site: Site, write_registry: Any, radpatch: Any, pids: Path, detach: str, then: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = HEAD.format(pids=str(pids)) + DETACH[detach] + WAIT + THEN[then]
    site.install("icd", "1.0", {"icd/__init__.py": "", "icd/core.py": text})
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    entry = entry_head("daemons", "icd", {"core": "icd.core"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK_TIMEOUT", "3")

    r = radpatch("--registry", str(write_registry("dm", entry)), "apply", "--dry-run", "--import-check", "dm")

    started = [int(f.name) for f in pids.iterdir()]
    assert started, r  # the import did start its process (once patched, and unpatched when it hangs)
    assert [p for p in started if running(p)] == [], f"left running after apply: {r}"
    assert r.code == 0, r
    first = r.out.splitlines()[0]
    if then == "imports":
        assert first == f"dm: import check: icd.core imports once patched ({sys.executable})", first
    else:
        assert first.startswith("dm: import check inconclusive for icd.core: the patched import did not finish"), first

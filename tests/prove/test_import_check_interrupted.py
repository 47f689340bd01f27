"""SIGTERM or SIGINT to radpatch while the target's code runs in a check (`apply --import-check`,
or the guarded-import check of a plain apply) left the import's processes running and the check's
temporary copies on disk (imp39, issue 21 I3): SIGTERM ended radpatch at once. Now both end it as
Ctrl-C does (`radpatch: interrupted`, exit 130) once the launcher has killed what is below it and
the copies are removed.

Generated: the signal (SIGTERM, SIGINT) times where the target's code is running (the patched
module under --import-check, a module one of its importers, the package `__init__` the
guarded-import check imports) times whether the import started a daemon in its own session first.
radpatch is a real process with its own TMPDIR; the import tells the test it runs by opening a
fifo the test reads (the signal is sent only then, no sleep), then blocks on a second fifo nobody
writes. The oracle: radpatch's exit status and last line, no process the import started running,
and nothing left in its TMPDIR."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lib.fallback_entry import ENTRY, REWRITE
from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

BLOCK = """\
import os
_ready, _block, _pids = {ready!r}, {block!r}, {pids!r}
{daemon}with open(_ready, "w") as _f:
    _f.write(str(os.getpid()))
open(_block).read()
"""
DAEMON = (
    "if os.fork() == 0:\n    os.setsid()\n    open(os.path.join(_pids, str(os.getpid())), 'w').close()\n"
    "    import time\n    while True:\n        time.sleep(60)\nwhile not os.listdir(_pids):\n    pass\n"
)
SIGNALS = {"TERM": signal.SIGTERM, "INT": signal.SIGINT}
WHERE = ("import-check", "importer", "guarded")
GUARDED = "try:\n    from rpin_missing import f\nexcept ImportError:\n    def f():\n        return 1\n"


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat.rpartition(b")")[2].split()[0] != b"Z"


@pytest.mark.processes  # radpatch as its own process, signalled
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize(("sig", "where", "daemon"), sample(itertools.product(SIGNALS, WHERE, (False, True))))
def test_a_signal_during_a_check_kills_its_processes_and_removes_its_copies(
    site: Site, write_registry: Any, tmp_path: Path, sig: str, where: str, daemon: bool
) -> None:
    ready, block, pids, tmp = tmp_path / "ready", tmp_path / "block", tmp_path / "pids", tmp_path / "tmp"
    os.mkfifo(ready)
    os.mkfifo(block)
    pids.mkdir()
    tmp.mkdir()
    code = BLOCK.format(ready=str(ready), block=str(block), pids=str(pids), daemon=DAEMON if daemon else "")
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    if where == "guarded":
        site.install("rpin", "1.0", {"rpin/__init__.py": code, "rpin/core.py": GUARDED})
        reg, extra = write_registry("in", ENTRY.format(rewrite=REWRITE).replace("rpfb", "rpin")), []
    else:
        user = "from rpin import core\n" + code
        files = {"rpin/__init__.py": "", "rpin/core.py": (code if where == "import-check" else "") + "LIMIT = 3\n"}
        site.install("rpin", "1.0", {**files, **({"rpin/user.py": user} if where == "importer" else {})})
        head = entry_head("in", "rpin", {"core": "rpin.core"})
        reg, extra = (
            write_registry("in", head + f"  - id: r\n    file: core\n    replace: {spec}\n"),
            ["--import-check"],
        )
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(site.root)}
    cmd = [sys.executable, "-m", "radpatch", "--registry", str(reg), "apply", "--dry-run", *extra, "in"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    importing = 0
    try:
        with open(ready) as f:  # returns once the import has opened it: the target's code is running
            importing = int(f.read())
        proc.send_signal(SIGNALS[sig])
        out, err = proc.communicate(timeout=300)  # a bound on a hang, not a timed assertion
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        started = [importing, *(int(p.name) for p in pids.iterdir())]
        left = [p for p in started if p and _running(p)]
        for p in left:  # what outlived radpatch (without the fix): not left to run on
            os.kill(p, signal.SIGKILL)
    assert left == [], f"left running: {left}; {err}"
    assert sorted(p.name for p in tmp.iterdir()) == [], err
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert err.strip().splitlines()[-1] == "radpatch: interrupted", err
    assert not daemon or list(pids.iterdir()), "the import did start its daemon"

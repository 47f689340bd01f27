"""What the import check's subprocess leaves behind, ended (import_process.py): the target
interpreter runs a small standard-library launcher that makes itself a child subreaper
(`prctl(PR_SET_CHILD_SUBREAPER)` through ctypes), starts the import's interpreter under it and
waits; once that ends (or on SIGTERM, a timeout), it kills every process below it, walking
/proc by parent id, then reaps them, a bounded number of rounds. So a daemon the import starts
with `setsid()` (its own session and process group, where killing the group cannot reach it) is
re-parented to the launcher when its parent exits, found, and killed. The launcher writes what it
did to a file radpatch hands it: whether it could become a subreaper, how many it killed, and the
processes still there after the last round (then named in the check's output).

SIGTERM and SIGINT to radpatch while such a subprocess runs (`interruptible`) end radpatch as
Ctrl-C does (KeyboardInterrupt: `radpatch: interrupted`, exit 130), after the launcher has killed
what is below it and the temporary copies are removed; a signal that comes while they are being
removed (`deferred`) is acted on once they are gone, and a second one is ignored until then."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass

ROUNDS = 100  # kill-and-look rounds at most, 20 ms apart: a process that forks as fast as it is killed ends the bound
STOP_GRACE = 10.0  # seconds radpatch gives the launcher to end what is below it after SIGTERM

# Standard library only, and the least of it (json, subprocess and their imports were more than half its
# start): the interpreter is started as subprocess.Popen starts it (close_fds: the report's descriptor is
# the only other one it holds; restore_signals), the report written as the JSON json.dumps writes.
LAUNCHER = r"""
import os, signal, sys, time
script, report = sys.argv[1], int(sys.argv[2])
reaper = False
try:
    import ctypes
    reaper = ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass


class Stop(BaseException):
    pass


def _stop(signum, frame):
    raise Stop()


signal.signal(signal.SIGTERM, _stop)
code = 0
try:
    child = os.posix_spawn(
        sys.executable,
        [sys.executable, "-I", "-S", "-B", "-c", script],
        os.environ,
        file_actions=[(os.POSIX_SPAWN_CLOSE, report)],
        setsigdef=[getattr(signal, s) for s in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, s)],
    )
    code = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
except Stop:
    pass
signal.signal(signal.SIGTERM, signal.SIG_IGN)


def below():
    parents = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open("/proc/" + entry + "/stat", "rb") as f:
                    fields = f.read().rpartition(b")")[2].split()
            except OSError:
                continue
            if fields[0] != b"Z":
                parents.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [os.getpid()]
    while todo:
        for pid in parents.get(todo.pop(), ()):
            out.append(pid)
            todo.append(pid)
    return out


killed, left = set(), []
for _ in range(ROUNDS):
    left = below()
    if not left:
        break
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        except OSError:
            pass
    time.sleep(0.02)
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
try:
    said = '{"reaper": %s, "killed": %d, "left": [%s]}'
    os.write(report, (said % ("true" if reaper else "false", len(killed), ", ".join(map(str, below())))).encode())
except OSError:
    pass
if code < 0:
    if -code not in (signal.SIGKILL, signal.SIGSTOP):  # those have no handler to put back
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
os._exit(code & 0xFF)
""".replace("ROUNDS", str(ROUNDS))


def command(executable: str, script: str, report_fd: int) -> list[str]:
    """The target interpreter running `script` (`-I -S -B -c`) under the launcher."""
    return [executable, "-I", "-S", "-B", "-c", LAUNCHER, script, str(report_fd)]


@dataclass(frozen=True)
class Reaped:
    reaper: bool = True  # the launcher could become a subreaper (else only what stays in the process tree is found)
    killed: int = 0
    left: tuple[int, ...] = ()  # still there after the last round

    @property
    def said(self) -> str:
        """ "" when nothing is left, else a clause for the check's line."""
        if not self.left:
            return ""
        pids = ", ".join(map(str, self.left[:8]))
        return (
            f"; {len(self.left)} process(es) the import started could not be killed after {ROUNDS} rounds (pid {pids})"
        )


def read(fd: int) -> Reaped:
    """The launcher's report from the file at `fd` (rewound), or the default when it wrote none."""
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 1 << 16)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return Reaped()
    left = data.get("left")
    pids = tuple(p for p in left if isinstance(p, int)) if isinstance(left, list) else ()
    return Reaped(data.get("reaper") is True, int(data.get("killed") or 0), pids)


class _Signals:
    hit = 0  # the signal that came, 0: none
    raised = False
    deferring = 0  # nesting depth of `deferred`
    depth = 0  # nesting depth of `interruptible`


def _on_signal(signum: int, frame: object) -> None:
    if _Signals.hit:
        return  # the first one is being acted on: the cleanup it started is not cut short
    _Signals.hit = signum
    if not _Signals.deferring:
        _Signals.raised = True
        raise KeyboardInterrupt


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While a subprocess of the target runs: SIGTERM and SIGINT raise KeyboardInterrupt (once),
    so the `finally` blocks that kill it and remove its copies run (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _Signals.depth:
        _Signals.depth += 1
        try:
            yield
        finally:
            _Signals.depth -= 1
        return
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    _Signals.hit, _Signals.raised, _Signals.depth = 0, False, 1
    try:
        yield
    finally:
        _Signals.depth = 0
        for s, handler in old.items():
            signal.signal(s, handler)
        hit, raised = _Signals.hit, _Signals.raised
        _Signals.hit, _Signals.raised = 0, False
        if hit and not raised:  # it came while nothing could be cut short
            raise KeyboardInterrupt


@contextlib.contextmanager
def deferred(act: bool = True) -> Iterator[None]:
    """Starting a subprocess, or removing a temporary copy: a signal that comes meanwhile is acted
    on once this is done (`act`), or at the next `pending()`."""
    _Signals.deferring += 1
    try:
        yield
    finally:
        _Signals.deferring -= 1
    if act:
        pending()


def pending() -> None:
    """Act on a signal that came while it was deferred."""
    if _Signals.hit and not _Signals.deferring and not _Signals.raised and _Signals.depth:
        _Signals.raised = True
        raise KeyboardInterrupt

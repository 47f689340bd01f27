"""One run of the target interpreter for the import check (import_process.py, guarded_imports.py):
inside a watch of the install (import_watch.py: what the read-only hook could not stop is found
after the fact), under the subreaper launcher (import_reaper.py), in its own process group and an empty working
directory, the request on stdin from a file, its answer read from a file and its stderr from a
pipe as it comes (the last 4 KiB kept); the interpreter waited for, never what it leaves behind,
which is killed on the way out."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence

from radpatch.errors import EnvironmentProblem
from radpatch.prove import import_overlay, import_reaper, import_watch, read_only

# the start of a question's script (asked): the request read, the install read-only, site run, `answer(a)` to reply
QUESTION = (
    read_only.READ_ONLY
    + r"""
import json, os, sys
_out = os.dup(1)
os.dup2(2, 1)  # what the imports print is not the answer
request = json.loads(sys.stdin.read())
sys.path[:] = request["paths"] + [p for p in sys.path if p not in request["paths"]]  # the target's, then its stdlib
_blocked = _read_only([*request["first"], os.getcwd()])  # the install read-only (read_only.READ_ONLY)
_children(_blocked)  # and to the Python processes the imports start
sys.path[:0] = request["first"]  # the copy of the module's top-level package
# site runs only now (-S), the hook in place: the target's code sees its venv's prefix and sysconfig
# paths (not the base interpreter's), and its .pth files have run, as when the venv imports it
import site
site.main()


def answer(a):
    os.write(_out, json.dumps({**a, "blocked": _refused(_blocked)[:3]}).encode())
    os._exit(0)
"""
)
_MAX_ANSWER = 1 << 26  # the answer, with its importers' tracebacks (up to 400 frames each, 64 of them)
_STDERR_TAIL = 4096
_POLL = 0.05  # seconds between looks at whether the import's process has ended


def run(
    executable: str, script: str, request: bytes, timeout: float, import_path: Sequence[str], check: import_watch.Check
) -> tuple[bytes, int, bytes, str, bool]:
    """The target interpreter running `script` (under the launcher) given `request`: its answer,
    exit status, stderr's tail, what it left behind that could not be killed, and whether it ended
    in time. Also guarded_imports' subprocess. Watched (import_watch.child: `import_path` is the
    target's, whose site directories are the install; `check` what the run is for, as a refusal
    says it)."""
    with (
        import_watch.child(executable, import_path, check),
        import_overlay.scratch("radpatch-import-check-") as cwd,
        tempfile.TemporaryFile() as request_file,
        tempfile.TemporaryFile() as answer,
        tempfile.TemporaryFile() as report,
    ):
        request_file.write(request)
        request_file.seek(0)
        try:
            with import_reaper.deferred(act=False):  # a signal while it starts: acted on in _killing
                proc = subprocess.Popen(
                    import_reaper.command(executable, script, report.fileno()),  # under a subreaper launcher
                    stdin=request_file,
                    pass_fds=(report.fileno(),),
                    stdout=answer,  # a file, not a pipe: a process the import forks keeps it open
                    stderr=subprocess.PIPE,  # read as it comes, its tail kept: what the import prints takes no disk
                    cwd=cwd,  # an empty directory: whatever the import writes relative to it goes away
                    env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # -B for the interpreters the import starts
                    start_new_session=True,  # its own process group: a timeout kills what it started too
                )
        except OSError as exc:
            raise EnvironmentProblem(
                f"the target interpreter {executable} cannot be run for the import check ({exc.strerror or exc})",
                "give --python the path of an existing interpreter",
            )
        with _killing(proc):
            assert proc.stderr is not None
            finished, tail = _wait(proc, proc.stderr.fileno(), timeout)
        reaped = import_reaper.read(report.fileno()).said
        answer.seek(0)
        return answer.read(_MAX_ANSWER) if finished else b"", proc.returncode, tail, reaped, finished


def asked(
    executable: str,
    import_path: Sequence[str],
    script: str,
    request: bytes,
    top: tuple[str, str] | None,
    timeout: float,
    check: import_watch.Check,
) -> tuple[bytes, bool]:
    """A question for the target interpreter (guarded_imports, enum_members): `script` run with the JSON
    `request` (plus `first`: the copy of `top`, the module's top-level package, import_overlay), a
    Ctrl-C meanwhile acted on once it is cleaned up; its answer (paths mapped back to the install) and
    whether it ended in time. Raises EnvironmentProblem when it cannot be run."""
    with import_reaper.interruptible(), import_overlay.overlay([top] if top else []) as moved:
        sent = {**json.loads(request), "first": list(moved.values())}
        out, _, _, _, finished = run(executable, script, json.dumps(sent).encode(), timeout, import_path, check)
        return import_overlay.back(out, moved, True), finished


def _wait(proc: subprocess.Popen[bytes], stderr: int, timeout: float) -> tuple[bool, bytes]:
    """Wait at most `timeout` s for `proc` to end (not for its stderr to close: a process the import
    forked may hold it), reading its stderr as it comes; whether it ended, and stderr's last bytes."""
    deadline = time.monotonic() + timeout
    tail = b""
    os.set_blocking(stderr, False)
    with selectors.DefaultSelector() as sel:
        sel.register(stderr, selectors.EVENT_READ)
        while True:
            ended = proc.poll() is not None
            left = deadline - time.monotonic()
            if sel.get_map() and (ended or sel.select(max(0.0, min(left, _POLL)))):
                tail = _drain(sel, stderr, tail)
            elif not sel.get_map() and not ended and left > 0:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(left)
                continue
            if ended:
                return True, tail
            if left <= 0:
                return False, tail


def _drain(sel: selectors.BaseSelector, fd: int, tail: bytes) -> bytes:
    """Read what `fd` holds now (at most 1 MiB: a process printing without end holds it forever),
    keeping the last _STDERR_TAIL bytes; unregister it at its end."""
    for _ in range(16):
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return tail
        if not chunk:
            sel.unregister(fd)
            return tail
        tail = (tail + chunk)[-_STDERR_TAIL:]
    return tail


@contextlib.contextmanager
def _killing(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """On the way out (a timeout, Ctrl-C, any error): the launcher, still running, is asked (SIGTERM)
    to kill every process below it, given STOP_GRACE seconds; then its whole group is killed, then
    it is reaped. Ended by itself, it has killed what was below it already."""
    try:
        import_reaper.pending()
        yield
    finally:
        with import_reaper.deferred(act=False):  # not cut short by a second signal
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    proc.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(import_reaper.STOP_GRACE)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # also what stayed in its group
            proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()

"""Many programs, each run as `python -I -c PROGRAM` runs it in a fresh interpreter, by one process
of the target: a parent that imports nothing beyond what the interpreter's start imported forks a
child per program; the child runs it and exits, the parent's modules stay as the start left them,
so each child begins with what a fresh interpreter has (sys.modules, no module a sibling imported).
One process per target instead of one per case for the tests whose truth is a fresh interpreter's
(a submodule read works only where something imported it); tests/prove/test_fresh_runs.py checks
that a child starts as a fresh interpreter does.

fresh_run runs one program so, by a parent kept per (interpreter, flags) in the test process (a
forkserver: it reads a request, forks a child for it and says how it ended), for the tests that
check one case at a time (about 900 interpreters a fast-tier run)."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# what a child does with its program, in both parents below: run it in __main__'s names as the start
# left them and exit as the interpreter would (SystemExit's code, a traceback and 1, SIGINT's death)
_CHILD = r"""        code = 0
        try:
            exec(compile(program, "<string>", "exec"), dict(main))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            if code == 1 and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
        except BaseException as exc:
            sys.excepthook(*sys.exc_info())
            code = 1
            if isinstance(exc, KeyboardInterrupt):  # the interpreter ends by SIGINT then
                import signal
                sys.stderr.flush()
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGINT)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
"""

# the parent: only names the start already imported (os, sys); each child runs its program in the
# names __main__ has at the start (not the parent's); each child's stdout and stderr go
# to files of its own, its exit status to the parent's one line of output
_PARENT = r"""
main = dict(globals())  # __main__'s names as the start left them, before the parent binds its own
import os, sys
out = sys.argv.pop(1)  # the children see sys.argv as `-I -c` leaves it: ["-c"]
statuses = []
for i, program in enumerate(sys.stdin.read().split("\0")):
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        for fd, name in ((1, "out"), (2, "err")):
            os.dup2(os.open(os.path.join(out, f"{i}.{name}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
{child}    statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
print(" ".join(map(str, statuses)))
""".replace("{child}", _CHILD)


@dataclass(frozen=True)
class Run:
    """One program's run: its exit status, stdout and stderr (as subprocess.run would give them)."""

    returncode: int
    stdout: str
    stderr: str


def fresh_runs(executable: str, programs: Sequence[str], tmp: Path) -> list[Run]:
    """Each of `programs` (none may hold a NUL) run by `executable` as in a fresh `-I -c` process."""
    assert all("\0" not in p for p in programs)
    if not programs:
        return []
    tmp.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [executable, "-I", "-c", _PARENT, str(tmp)], input="\0".join(programs), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    statuses = [int(s) for s in done.stdout.split()]
    assert len(statuses) == len(programs), done.stdout
    return [
        Run(code, (tmp / f"{i}.out").read_text(), (tmp / f"{i}.err").read_text()) for i, code in enumerate(statuses)
    ]


# the kept parent: as _PARENT, but a request at a time on fd 0 (10 ASCII digits of length, then
# out-file prefix, cwd, program and argv, NUL-separated), the child's exit status on fd 1; the
# child reads /dev/null as stdin (subprocess.run's callers here give it none to read)
_SERVER = r"""
main = dict(globals())
import os, sys
def read(n):
    got = b""
    while len(got) < n:
        chunk = os.read(0, n - len(got))
        if not chunk:
            os._exit(0)
        got += chunk
    return got
while True:
    out, cwd, program, *args = read(int(read(10))).decode("utf-8", "surrogateescape").split("\0")
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        for fd, name in ((1, "out"), (2, "err")):
            os.dup2(os.open(out + "." + name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        os.chdir(cwd)
        sys.argv[:] = ["-c", *args]
{child}    os.write(1, b"%d\n" % os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
""".replace("{child}", _CHILD)

_servers: dict[tuple[str, tuple[str, ...]], tuple[int, subprocess.Popen[bytes], str]] = {}
_count = itertools.count()


def fresh_run(executable: str, program: str, args: Sequence[str] = (), flags: Sequence[str] = ("-I",)) -> Run:
    """`program` run as `executable FLAGS -c program ARGS` runs it in a fresh process (flags with -I),
    in the current directory, with nothing to read on stdin; by the kept parent of (executable, flags)."""
    assert "-I" in flags and all("\0" not in a for a in (program, *args))
    key = (executable, tuple(flags))
    kept = _servers.get(key)
    if kept is None or kept[0] != os.getpid() or kept[1].poll() is not None:
        proc = subprocess.Popen([executable, *flags, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        kept = _servers[key] = (os.getpid(), proc, tempfile.mkdtemp(prefix="fresh-run-"))
    _, proc, tmp = kept
    assert proc.stdin is not None and proc.stdout is not None
    out = os.path.join(tmp, str(next(_count)))
    request = "\0".join([out, os.getcwd(), program, *args]).encode("utf-8", "surrogateescape")
    proc.stdin.write(b"%010d" % len(request) + request)
    proc.stdin.flush()
    status = proc.stdout.readline()
    assert status, "the fresh-run parent ended"
    runs = []
    for name in ("out", "err"):
        with open(f"{out}.{name}", encoding="utf-8", errors="replace") as f:
            runs.append(f.read())
        os.unlink(f"{out}.{name}")
    return Run(int(status), runs[0], runs[1])


@atexit.register
def _close() -> None:
    for owner, proc, tmp in _servers.values():
        if owner == os.getpid():
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait()
            shutil.rmtree(tmp, ignore_errors=True)

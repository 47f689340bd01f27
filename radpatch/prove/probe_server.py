"""A long-lived target interpreter for prove.target_probe's later probes: the first probe of a target
in a process runs one-shot (`python -I -S -c PROBE`, what the checks of an odd interpreter rely
on); the next ones are sent to one `python -I -S` process per target interpreter that runs the
same probe program on each request, as the one-shot process runs it (its stdin the request, its
stdout the answer, __main__'s start-up names as its globals). It loads radpatch's analysis
packages once instead of once per probe; between requests it drops the import system's caches
(the path finders, the zip archives' directories), so a file added since the last request is found.

Requests and answers are JSON, each framed by its length (10 ASCII digits). A server that dies,
closes its output or answers out of frame is dropped and the probe is run one-shot (its answer
or its error are the one-shot's, word for word); the next probe starts a new server. One that
does not answer within the timeout is killed and the probe fails as a one-shot one would. Servers
are closed at exit. A forked child (the verify pool's workers, which end by os._exit without
running atexit) forgets its parent's, never writes to their pipes, and runs its probes one-shot,
so it leaves no server behind.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import subprocess
import threading
import time

from radpatch.errors import RadpatchError

_HEAD = 10  # the frame: the length of what follows, in ASCII digits

# the server: runs `probe` (argv[1]) per request as `python -I -S -c probe` runs it, reading the
# request from its stdin and writing its answer to its stdout; an exception ends the server
_SERVER = r"""
main = dict(globals())
import importlib, io, sys
probe = compile(sys.argv.pop(1), "<string>", "exec")
rd, wr = sys.stdin.buffer, sys.stdout.buffer
meta = None
while True:
    head = rd.read(10)
    if len(head) < 10:
        break
    request = rd.read(int(head))
    importlib.invalidate_caches()
    sys.path_importer_cache.clear()
    sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(request)), io.StringIO()
    exec(probe, dict(main))
    answer = sys.stdout.getvalue().encode("utf-8", "surrogatepass")
    sys.stdin, sys.stdout = sys.__stdin__, sys.__stdout__
    if meta is None:
        meta = list(sys.meta_path)  # with the first request's finder of the served packages
    sys.meta_path[:] = meta
    wr.write(b"%010d" % len(answer) + answer)
    wr.flush()
"""


class Hung(RadpatchError):
    """The server did not answer within the timeout (it is killed)."""


class _Server:
    def __init__(self, executable: str, probe: str) -> None:
        self.owner = os.getpid()
        self.proc = subprocess.Popen(
            [executable, "-I", "-S", "-c", _SERVER, probe],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def ask(self, request: bytes, timeout: float) -> bytes | None:
        """The answer to `request`; None when the server ended or broke the frame (it is closed).
        Hung when it does not answer in time."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        out = self.proc.stdout.fileno()
        pending = memoryview(b"%010d" % len(request) + request)
        got = bytearray()
        want = _HEAD
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            if pending:
                os.set_blocking(self.proc.stdin.fileno(), False)
                sel.register(self.proc.stdin.fileno(), selectors.EVENT_WRITE)
            sel.register(out, selectors.EVENT_READ)
            while len(got) < want:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.close(kill=True)
                    raise Hung("the probe server did not answer in time")
                for key, _ in sel.select(left):
                    if key.fd == out:
                        chunk = os.read(out, max(want - len(got), 1 << 16))
                        if not chunk:
                            self.close(kill=True)
                            return None
                        got += chunk
                        if want == _HEAD and len(got) >= _HEAD:
                            if not got[:_HEAD].isdigit():
                                self.close(kill=True)
                                return None
                            want = _HEAD + int(got[:_HEAD])
                    else:
                        try:
                            pending = pending[os.write(key.fd, pending) :]
                        except BlockingIOError:
                            continue
                        except OSError:  # a broken pipe: the server ended
                            self.close(kill=True)
                            return None
                        if not pending:
                            sel.unregister(key.fd)
        if len(got) != want:
            self.close(kill=True)
            return None
        return bytes(got[_HEAD:])

    def close(self, kill: bool = False) -> None:
        """End the server and reap it: EOF on its stdin, or SIGKILL."""
        for name, server in list(_servers.items()):
            if server is self:
                del _servers[name]
        if self.owner != os.getpid():
            return
        with contextlib.suppress(OSError):
            if kill:
                self.proc.kill()
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        assert self.proc.stdout is not None
        self.proc.stdout.close()


_servers: dict[tuple[str, str], _Server] = {}
_lock = threading.Lock()


def ask(executable: str, served: str, probe: str, first: bytes, request: bytes, timeout: float) -> bytes | None:
    """The answer to `request` of `executable`'s server running `probe` with the analysis packages
    of digest `served`; a new server is sent `first` (the request with those packages in) instead.
    None when the server cannot answer (run the probe one-shot); Hung when it did not answer in time."""
    if _forked:
        return None
    with _lock:  # one request at a time on a server's pipes
        return _ask(executable, served, first, request, timeout, probe)


def _ask(executable: str, served: str, first: bytes, request: bytes, timeout: float, probe: str) -> bytes | None:
    key = (executable, served)
    server = _servers.get(key)
    if server is not None and (server.owner != os.getpid() or server.proc.poll() is not None):
        server.close()
        server = None
    if server is None:
        try:
            server = _servers[key] = _Server(executable, probe)
        except OSError:
            return None
        request = first
    try:
        return server.ask(request, timeout)
    except OSError:
        server.close(kill=True)
        return None


def close_all() -> None:
    for server in list(_servers.values()):
        server.close()


_orphans: list[_Server] = []  # a forked child's copies of its parent's servers, never reaped here
_forked = False  # this process is a fork of one that imported this module: one-shot probes only


def _forget() -> None:
    """In a forked child: the parent's servers are the parent's. The child closes its copies of
    their pipes (a server ends when its parent closes its stdin, not when every child has)."""
    global _forked
    _forked = True
    for server in _servers.values():
        for pipe in (server.proc.stdin, server.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
    _orphans.extend(_servers.values())
    _servers.clear()


atexit.register(close_all)
os.register_at_fork(after_in_child=_forget)

"""The import check: import each patched module in the target interpreter before anything is written.

The proof steps (steps.py) judge the patched text; some failures only show when Python runs it: an
`import tomllib` on a 3.10 target, a payload that imports from the module it is inserted into
(ImportError while the module is half initialised), an import-time call the patch breaks. So,
when asked (`apply --import-check`, RADPATCH_IMPORT_CHECK=1), each patched module is imported by
the target interpreter itself, in a subprocess: radpatch never imports the target in its own
process. The subprocess gets a small standard-library script (no radpatch on its path) that puts a
finder first on `sys.meta_path`; it serves the planned bytes of every file the run changes, at
their real paths, so nothing is written and nothing else is shadowed.

Why it sits in prove/ and not among steps.STEPS: it is a proof about the planned changes, run
after the others and before the write, but it needs the installed environment (the rest of the
package, its dependencies) and the whole run's files at once, so only `apply` runs it, never
`verify`, and only when asked: it costs one interpreter start and real imports per module.

How it decides: the patched import is compared with the pristine one (the current bytes, served
the same way). The pristine module importing and the patched one failing is a refusal, whatever
line raises. When both fail, only a failure both share is inconclusive, reported with the pristine
import's error; import_failures.py tells which failures are shared (the same one, or a module this
image lacks, confirmed by importing it on its own pristine) and names the line the patch added on
the traceback, if any. The target sends the traceback's frames as data (file, line, function,
module). The pristine import runs only when the patched one fails (or times out).

What the served module is seen as: its code object comes from the planned bytes, and so does its
source for whatever reads it through linecache (inspect.getsource in a kernel decorator, a
traceback); `site` runs only once the finder is in place (`-S`, then site.main()), so a .pth or
sitecustomize that imports the package at interpreter start imports the served bytes, not the
file on disk. A module that opens its own `__file__` still reads the disk (a documented limit).
A module the target interpreter would import from another copy (state.imported: a checkout or a
zip archive earlier on its import path) is not imported: serving the patched file in its place
would import what never runs; its verdict is inconclusive, naming the copy.

Import cycles (cycles.py): when the patched module imports fine, each module of its package on an
import cycle a new import of the patch closes is imported first too, in its own subprocess.

Bounds: `-I` (no PYTHON* variables, no user site, no script directory; the target's site-packages
and .pth files as its own programs see them) and `-B` (no bytecode written into the install;
PYTHONDONTWRITEBYTECODE for the interpreters the import starts); a time limit per import
(RADPATCH_IMPORT_CHECK_TIMEOUT seconds, default 300), after which the subprocess's whole process
group is killed; then the pristine module is imported with the same limit, and a hang only the
patched module has (the pristine one imports) is a refusal, else inconclusive. The check waits for
the interpreter, not for what the import leaves behind (a forked worker holding its output): that
group is killed once the interpreter ends. What the import prints is read as it comes, its last
4 KiB kept, none of it written to disk. No network: an audit hook makes every socket connection,
send and name lookup raise OSError inside the import.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from radpatch import faults
from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.install.environment import PythonEnv
from radpatch.prove.cycles import closed_cycles
from radpatch.prove.import_failures import Attempt, Frame, Judged, judge
from radpatch.prove.plan import PlannedFile
from radpatch.state.imported import shadows

TIMEOUT_VARIABLE = "RADPATCH_IMPORT_CHECK_TIMEOUT"
DEFAULT_TIMEOUT = 300.0  # seconds per import: a vLLM module imports torch, which takes tens of seconds on a slow CPU
_MAX_ANSWER = 1 << 20
_STDERR_TAIL = 4096
_POLL = 0.05  # seconds between looks at whether the import's process has ended

# Runs in the target interpreter: standard library only, Python 3.10+ (radpatch's oldest target).
# Its answer goes to a duplicate of the original stdout; the module's own prints go to stderr.
_SCRIPT = r"""
import base64, importlib, importlib.machinery, importlib.util, json, os, sys, traceback
_answer = os.dup(1)
os.dup2(2, 1)
req = json.loads(sys.stdin.buffer.read())
files = {p: base64.b64decode(b) for p, b in req["files"].items()}
modules = req["modules"]
for root in req["roots"]:
    if root not in sys.path:
        sys.path.append(root)

def _no_network(event, args):
    if event in ("socket.connect", "socket.sendto") and isinstance(args[1], (str, bytes)):
        return  # a Unix socket: local
    if event in ("socket.connect", "socket.sendto", "socket.getaddrinfo", "socket.gethostbyname",
                 "socket.gethostbyaddr"):
        raise OSError(101, "no network during radpatch's import check (" + event + ")")

sys.addaudithook(_no_network)

class _ServedLoader(importlib.machinery.SourceFileLoader):
    def get_data(self, path):
        if path in files:
            return files[path]
        return super().get_data(path)

    def get_code(self, fullname):  # never the on-disk bytecode: it is of the bytes on disk
        return self.source_to_code(files[self.path], self.path)

class _Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        where = modules.get(name)
        if where is None:
            return None
        package = [os.path.dirname(where)] if os.path.basename(where) == "__init__.py" else None
        return importlib.util.spec_from_file_location(
            name, where, loader=_ServedLoader(name, where), submodule_search_locations=package)

# What asks for a served file's source (inspect.getsource, tracebacks: linecache) gets the served
# text, not the file on disk; mtime None keeps linecache.checkcache from dropping it.
import linecache
for _path, _data in files.items():
    try:
        _lines = importlib.util.decode_source(_data).splitlines(True)
    except Exception:
        continue
    linecache.cache[_path] = (len(_data), None, _lines, _path)

sys.meta_path.insert(0, _Finder)
# site runs only now (-S): a .pth or sitecustomize that imports the package gets the served bytes.
import site
site.main()
out = {"radpatch": 1, "ok": True, "error": "", "kind": "", "missing": False}
out.update({"preloaded": None, "frames": []})
_FRAMES = 200
try:
    importlib.import_module(req["import"])
    _spec = getattr(sys.modules.get(req["import"]), "__spec__", None)
    if getattr(_spec, "origin", None) in files and not isinstance(getattr(_spec, "loader", None), _ServedLoader):
        out["preloaded"] = _spec.origin  # loaded from disk before the finder was in place: not what was served
except BaseException as exc:
    out["ok"] = False
    _notes = exc.__dict__.pop("__notes__", None)  # add_note() lines follow the exception's own line
    out["error"] = traceback.format_exception_only(type(exc), exc)[-1].strip()[:500]
    if _notes is not None:
        exc.__notes__ = _notes
    out["kind"] = type(exc).__module__ + "." + type(exc).__qualname__
    out["missing"] = isinstance(exc, ImportError)  # ModuleNotFoundError and any subclass
    every = traceback.extract_tb(exc.__traceback__)
    names, tb = [], exc.__traceback__
    while tb is not None:  # each frame's module (its globals' __name__), in extract_tb's order
        names.append(str(tb.tb_frame.f_globals.get("__name__", "")))
        tb = tb.tb_next
    every = [[f.filename, f.lineno or 0, f.name, n] for f, n in zip(every, names)]  # outermost first
    if len(every) > 2 * _FRAMES:  # a deep recursion: its outermost and innermost frames tell
        every = every[:_FRAMES] + every[-_FRAMES:]
    out["frames"] = every
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except BaseException:
        pass
os.write(_answer, json.dumps(out).encode())
os._exit(0)
"""

Say = Callable[[str], None]


class Result(Enum):
    OK = "ok"
    REFUSED = "refused"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class ImportCheckVerdict:
    module: str  # the name imported
    patches: tuple[str, ...]  # the patches that change its file
    result: Result
    reason: str = ""  # for a refusal: the patched import's error; inconclusive: why it cannot tell
    unpatched_imports: bool = False  # a refusal where the pristine module (or the cycle's module) imports


@dataclass(frozen=True)
class _Served:
    """What one subprocess is given: the bytes of every changed file, by path and by module name."""

    files: dict[str, bytes]
    modules: dict[str, str]
    roots: tuple[str, ...]


def import_name(module: str) -> str:
    """The name `import` uses for a registry module: a package's `__init__` is the package."""
    return module[: -len(".__init__")] if module.endswith(".__init__") else module


def timeout_from_env() -> float:
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e6:
        raise UsageError(
            f"{TIMEOUT_VARIABLE}={raw!r} is not a number of seconds",
            f"set it to a positive number, e.g. {TIMEOUT_VARIABLE}=600, or unset it for {DEFAULT_TIMEOUT:g}",
        )
    return value


def run(env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], say: Say) -> None:
    """Check every module `planned` (patch name, change) changes; say each verdict, refuse on the first refusal."""
    for v in check(env, planned, timeout_from_env()):
        who = ", ".join(v.patches)
        if v.result is Result.OK:
            say(f"{who}: import check: {v.module} imports once patched ({env.executable})")
        elif v.result is Result.INCONCLUSIVE:
            say(f"{who}: import check inconclusive for {v.module}: {v.reason}; not a refusal")
        else:
            where = f"{env.executable}, Python {'.'.join(map(str, env.version))}"
            raise RefusedError(
                f"{who}: import check: {v.module} does not import once patched: {v.reason}"
                + (f"; it imports unpatched ({where})" if v.unpatched_imports else f" ({where})"),
                "the patched code fails when this interpreter imports it: fix the registry entry "
                "(or limit its versions); nothing was written",
            )


def check(env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], timeout: float) -> Iterator[ImportCheckVerdict]:
    """Import each changed module patched, then, only if that fails, pristine; yield a verdict per module."""
    faults.point("import-check")  # the crash-test hook: a plain apply never reaches this line
    patched, pristine = _served(planned)
    by_module: dict[str, list[str]] = {}
    for name, change in planned:
        who = by_module.setdefault(import_name(change.module), [])
        if name not in who:
            who.append(name)
    shadowed = {import_name(sh.module): sh for sh in shadows(env, sorted({(c.module, c.path) for _, c in planned}))}
    for module, who in by_module.items():
        if module in shadowed:  # serving the patched file in its place would import what never runs
            why = f"{shadowed[module].describe()}, so importing the patched file says nothing of what runs"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
            continue
        after = _attempt(env.executable, patched, module, timeout)
        if after.preloaded:
            why = "the interpreter had already imported it from its file on disk, so the patched bytes were not run"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
            continue
        if after.ok:
            yield _first_in_cycle(env.executable, planned, patched, pristine, module, tuple(who), timeout)
            continue
        before = _attempt(env.executable, pristine, module, timeout)
        if after.timed_out and before.ok:  # a hang only the patched module has is the patch's own
            why = f"the patched import {after.error}, and the unpatched module imports within that time"
            yield ImportCheckVerdict(module, tuple(who), Result.REFUSED, why, unpatched_imports=True)
            continue
        if after.timed_out:
            why = f"the patched import {after.error}; the unpatched import {before.error or 'fails too'}"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
            continue
        if before.ok:
            yield ImportCheckVerdict(module, tuple(who), Result.REFUSED, after.described, unpatched_imports=True)
        elif before.timed_out:
            why = f"the patched import fails ({after.described}) and the unpatched import {before.error}"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
        else:
            j = _judge(env.executable, after, before, patched, pristine, timeout)
            yield ImportCheckVerdict(module, tuple(who), Result.REFUSED if j.refused else Result.INCONCLUSIVE, j.reason)


def _judge(
    executable: str, after: Attempt, before: Attempt, patched: _Served, pristine: _Served, timeout: float
) -> Judged:
    """Both imports failed: whose failure it is (import_failures.judge), asking the pristine install
    to import, on its own, a module the patched import failed in."""
    names = {p: m for m, p in patched.modules.items()}
    return judge(
        after, before, patched.files, pristine.files, names, lambda m: _attempt(executable, pristine, m, timeout)
    )


def _first_in_cycle(
    executable: str,
    planned: Sequence[tuple[str, PlannedFile]],
    patched: _Served,
    pristine: _Served,
    module: str,
    who: tuple[str, ...],
    timeout: float,
) -> ImportCheckVerdict:
    """`module` imports once patched; so must each module of its package on an import cycle a new
    import of the patch closes, imported first (each in its own subprocess, patched, then pristine
    if that fails): `b` imports `a`, the patch makes `a` import from `b`, and `import b` fails."""
    changes = [c for _, c in planned if import_name(c.module) == module]
    if not changes:
        return ImportCheckVerdict(module, who, Result.OK)
    first, last = changes[0], changes[-1]
    depth = len(first.module.split(".")) - 1
    if first.path.name == "__init__.py" and not first.module.endswith(".__init__"):
        depth += 1  # `pkg.sub` names pkg/sub/__init__.py
    if len(first.path.parents) <= depth:
        return ImportCheckVerdict(module, who, Result.OK)
    root = first.path.parents[depth]
    cycle = closed_cycles(root, module, first.before, last.after, patched.files)
    for other in cycle:
        after = _attempt(executable, patched, other, timeout)
        if after.ok or after.timed_out:
            continue
        before = _attempt(executable, pristine, other, timeout)
        judged = (
            Judged(True, after.described)
            if before.ok
            else _judge(executable, after, before, patched, pristine, timeout)
        )
        if judged.refused:  # the pristine module imports, or fails otherwise: the failure is the cycle's
            why = f"importing {other} first (it imports {module} back, a cycle the patch closes): {judged.reason}"
            return ImportCheckVerdict(module, who, Result.REFUSED, why, unpatched_imports=before.ok)
    return ImportCheckVerdict(module, who, Result.OK)


def _served(planned: Sequence[tuple[str, PlannedFile]]) -> tuple[_Served, _Served]:
    """The patched run serves each file's last planned bytes, the pristine run its current bytes."""
    after: dict[str, bytes] = {}
    before: dict[str, bytes] = {}
    modules: dict[str, str] = {}
    roots: dict[str, None] = {}
    for _, change in planned:
        path = str(change.path)
        before.setdefault(path, change.before)  # stacked changes: the first one's before is what is on disk
        after[path] = change.after
        modules[import_name(change.module)] = path
        parts = change.module.split(".")
        root = change.path.parents[len(parts) - 1] if len(change.path.parents) >= len(parts) else None
        if root is not None and root.joinpath(*parts[:-1], parts[-1] + ".py") == change.path:
            roots.setdefault(str(root), None)  # so the package imports even from a directory -I leaves out
    return _Served(after, modules, tuple(roots)), _Served(before, modules, tuple(roots))


def _attempt(executable: str, served: _Served, module: str, timeout: float) -> Attempt:
    request = json.dumps(
        {
            "import": module,
            "files": {p: base64.b64encode(b).decode("ascii") for p, b in served.files.items()},
            "modules": served.modules,
            "roots": list(served.roots),
        }
    ).encode()
    with (
        tempfile.TemporaryDirectory(prefix="radpatch-import-check-") as cwd,
        tempfile.TemporaryFile() as request_file,
        tempfile.TemporaryFile() as answer,
    ):
        request_file.write(request)
        request_file.seek(0)
        try:
            proc = subprocess.Popen(
                [executable, "-I", "-S", "-B", "-c", _SCRIPT],
                stdin=request_file,
                stdout=answer,  # a file, not a pipe: a process the import forks keeps it open, and nobody waits on it
                stderr=subprocess.PIPE,  # read as it comes, its tail kept: whatever the import prints takes no disk
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
            if not finished:
                return Attempt(False, f"did not finish within {timeout:g} s (killed)", timed_out=True)
        answer.seek(0)
        out = answer.read(_MAX_ANSWER)
    return _answer(out, proc.returncode, tail.decode("utf-8", "replace"), {p: m for m, p in served.modules.items()})


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
    """On the way out (a timeout, Ctrl-C, any error), kill the subprocess's whole group, then reap it."""
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # also what the import started and left behind
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _answer(out: bytes, code: int, stderr_tail: str, modules: dict[str, str]) -> Attempt:
    try:
        answer = json.loads(out[:_MAX_ANSWER]) if out else None
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("radpatch") == 1:
        ok, error = answer.get("ok") is True, str(answer.get("error", ""))
        raw = answer.get("frames")
        frames = tuple(
            Frame(str(f[0]), f[1], str(f[2]), str(f[3]))
            for f in (raw if isinstance(raw, list) else ())
            if isinstance(f, list) and len(f) == 4 and isinstance(f[1], int)
        )
        own = [f for f in frames if f.path in modules]  # the frames in a changed file
        at = f"{modules[own[-1].path]} line {own[-1].line}" if own else ""
        return Attempt(
            ok,
            error,
            at,
            preloaded=bool(answer.get("preloaded")),
            frames=frames,
            kind=str(answer.get("kind", "")),
            missing=answer.get("missing") is True,
        )
    last = (stderr_tail.strip().splitlines() or ["no output"])[-1][:200]
    how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
    return Attempt(False, f"the interpreter ended during the import without an answer ({how}: {last})", ended=how)

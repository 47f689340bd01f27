"""The import check's subprocess (import_check.py): the target interpreter, `-I -S -B`, given a
standard-library script and the served files on stdin (from a file), its answer read from a file
and its output from a pipe, as it comes, the last 4 KiB kept; the interpreter waited for, never what
it leaves behind, which is killed with its process group and, a daemon in its own session included,
by the subreaper launcher it runs under (import_reaper.py); the run itself is import_runner.py's."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Sequence

from radpatch.prove import import_overlay, import_reaper, import_watch, read_only
from radpatch.prove.import_failures import Attempt, Frame
from radpatch.prove.import_runner import _MAX_ANSWER, run

# Runs in the target interpreter: standard library only, Python 3.10+ (radpatch's oldest target).
# Its answer goes to a duplicate of the original stdout; the module's own prints go to stderr.
_SCRIPT = (
    read_only.READ_ONLY
    + r"""
import base64, importlib, importlib.machinery, importlib.util, json, os, sys, traceback
_answer = os.dup(1)
os.dup2(2, 1)
req = json.loads(sys.stdin.buffer.read())
files = {p: base64.b64decode(b) for p, b in req["files"].items()}
modules = req["modules"]
for root in req["roots"]:
    if root not in sys.path:
        sys.path.append(root)
_blocked = _read_only([*req["first"], os.getcwd()])  # the install read-only (read_only.READ_ONLY)
_children(_blocked)  # and to the Python processes the imports start
sys.path[:0] = req["first"]  # the copies of the changed packages (import_overlay.py), before all

def _no_network(event, args):
    if event in ("socket.connect", "socket.sendto") and isinstance(args[1], (str, bytes)):
        return  # a Unix socket: local
    if event in ("socket.connect", "socket.sendto", "socket.getaddrinfo", "socket.gethostbyname",
                 "socket.gethostbyaddr"):
        raise OSError(101, "no network during radpatch's import check (" + event + ")")

sys.addaudithook(_no_network)

class ServedLoader(importlib.machinery.SourceFileLoader):
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
            name, where, loader=ServedLoader(name, where), submodule_search_locations=package)

# What asks for a served file's source (inspect.getsource, tracebacks: linecache) gets the served
# text, not the file on disk; mtime None keeps linecache.checkcache from dropping it.
import linecache
for _path, _data in files.items():
    try:
        _parts = importlib.util.decode_source(_data).split("\n")  # lines as Python counts them (not at ^L)
        _lines = [_line + "\n" for _line in (_parts[:-1] if _parts[-1] == "" else _parts)]
    except Exception:
        continue
    linecache.cache[_path] = (len(_data), None, _lines, _path)

sys.meta_path.insert(0, _Finder)
# site runs only now (-S): a .pth or sitecustomize that imports the package gets the served bytes.
import site
site.main()
_FRAMES = 200

def _imported(name):
    r = {"ok": True, "error": "", "kind": "", "missing": False, "preloaded": None, "frames": []}
    _forget(_blocked)
    try:
        importlib.import_module(name)
        _spec = getattr(sys.modules.get(name), "__spec__", None)
        if getattr(_spec, "origin", None) in files and not isinstance(getattr(_spec, "loader", None), ServedLoader):
            r["preloaded"] = _spec.origin  # loaded from disk before the finder was in place: not what was served
    except BaseException as exc:
        r["ok"] = False
        _notes = exc.__dict__.pop("__notes__", None)  # add_note() lines follow the exception's own line
        r["error"] = traceback.format_exception_only(type(exc), exc)[-1].strip()[:500]
        if _notes is not None:
            exc.__notes__ = _notes
        r["kind"] = type(exc).__module__ + "." + type(exc).__qualname__
        r["missing"] = isinstance(exc, ImportError)  # ModuleNotFoundError and any subclass
        every = traceback.extract_tb(exc.__traceback__)
        names, tb = [], exc.__traceback__
        while tb is not None:  # each frame's module (its globals' __name__), in extract_tb's order
            names.append(str(tb.tb_frame.f_globals.get("__name__", "")))
            tb = tb.tb_next
        every = [[f.filename, f.lineno or 0, f.name, n] for f, n in zip(every, names)]  # outermost first
        if len(every) > 2 * _FRAMES:  # a deep recursion: its outermost and innermost frames tell
            every = every[:_FRAMES] + every[-_FRAMES:]
        r["frames"] = every
    r["blocked"] = _refused(_blocked)[:8]  # writes into the install the hook refused
    return r

out = {"radpatch": 1, **_imported(req["import"])}
# then the modules that import it (import_importers.py), each in turn in the same process, once it imports
out["also"] = [_imported(name) for name in req.get("also", [])] if out["ok"] else []
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except BaseException:
        pass
os.write(_answer, json.dumps(out).encode())
os._exit(0)
"""
)


@dataclasses.dataclass(frozen=True)
class Served:
    """What one subprocess is given: the bytes of every changed file, by path and by module name."""

    files: dict[str, bytes]
    modules: dict[str, str]
    roots: tuple[str, ...]
    tops: tuple[tuple[str, str], ...] = ()  # (site directory, top-level entry) of each changed module, copied
    left: list[str] = dataclasses.field(default_factory=list)  # what its imports left that could not be killed


def attempt(executable: str, served: Served, module: str, timeout: float) -> Attempt:
    return attempts(executable, served, module, (), timeout)[0]


def attempts(
    executable: str, served: Served, module: str, also: Sequence[str], timeout: float
) -> tuple[Attempt, list[Attempt]]:
    """Import `module`, then, when it imports, each of `also` in turn in the same process: its
    Attempt and theirs (none when it fails)."""
    with import_reaper.interruptible(), import_overlay.overlay(served.tops) as moved:
        request = json.dumps(
            {
                "import": module,
                "also": list(also),
                "files": {
                    import_overlay.into(p, moved): base64.b64encode(b).decode("ascii") for p, b in served.files.items()
                },
                "modules": {m: import_overlay.into(p, moved) for m, p in served.modules.items()},
                "roots": list(served.roots),
                "first": list(moved.values()),
            }
        ).encode()
        out, code, tail, reaped, finished = run(
            executable, _SCRIPT, request, timeout, served.roots, import_watch.IMPORT_CHECK
        )
    if reaped:
        served.left.append(reaped)
    if not finished:
        return Attempt(False, f"did not finish within {timeout:g} s (killed)", timed_out=True, reaped=reaped), []
    out, tail = import_overlay.back(out, moved, True), import_overlay.back(tail, moved, False)
    main, rest = _answer(out, code, tail.decode("utf-8", "replace"), {p: m for m, p in served.modules.items()})
    return dataclasses.replace(main, reaped=reaped), rest


def _answer(out: bytes, code: int, stderr_tail: str, modules: dict[str, str]) -> tuple[Attempt, list[Attempt]]:
    try:
        answer = json.loads(out[:_MAX_ANSWER]) if out else None
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("radpatch") == 1:
        also = answer.get("also")
        return _one(answer, modules), [_one(a, modules) for a in (also if isinstance(also, list) else ())]
    last = (stderr_tail.strip().splitlines() or ["no output"])[-1][:200]
    how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
    return Attempt(False, f"the interpreter ended during the import without an answer ({how}: {last})", ended=how), []


def _one(answer: object, modules: dict[str, str]) -> Attempt:
    """One import's result as the target reports it."""
    if not isinstance(answer, dict):
        return Attempt(False, "the interpreter's answer is malformed")
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
        blocked=tuple(str(b) for b in blocked) if isinstance(blocked := answer.get("blocked"), list) else (),
    )

"""Where the import check's imports run (import_process.py): a copy of each changed module's
top-level package (or top-level module file), made in a temporary directory for each subprocess
and put first on its import path, so what an import writes next to its own `__file__` (a cache
file, a directory of compiled kernels) lands in the copy and the install stays byte for byte as it
was. Files of LINK_FROM bytes or more (a compiled extension of hundreds of MB) are symbolic links to
the installed file, not copies: an import that writes over one of them in place still writes the
install (a documented limit); one that writes a new file next to them writes the copy. A sibling
`<package>.libs` directory (auditwheel's, found by `$ORIGIN/../<package>.libs`) is linked too. The
paths the subprocess reports back (tracebacks, error text) are mapped to the installed ones.

A top-level module that is one file (`mod.py`, no package) is copied with what lies beside it that
is not code: its loose data files copied (or linked, as above), its directories that are not
packages copied when they hold only data (at most MAX_BESIDE entries), else linked, so a module
reading a data file next to its `__file__` reads it in the copy.

Writes through other paths into the install (`sysconfig.get_paths()['purelib']`,
`importlib.metadata.distribution(...).locate_file(...)`, a dependency's own directory, a linked
file) are refused inside the subprocess: READ_ONLY is an audit hook that raises PermissionError for
a write, a removal, a rename or a mode change under the interpreter's prefixes, its sysconfig paths
and its import path (the copies and the working directory excepted), resolved through links, and
keeps the paths it refused for the check's answer. The processes the import starts carry the same
hook when they run Python with its site step and the environment they were given (a
`[sys.executable, ...]` subprocess, any interpreter of the machine): READ_ONLY's `_children` puts a
`sitecustomize.py` first on PYTHONPATH that installs it, with the parent's roots and allowed
paths, then runs the `sitecustomize` it stands in front of; what they were refused is added to
the answer. Not seen (a documented limit): a write by compiled code, by a process that is not
Python, or by Python started with -I, -E or -S or without the environment (multiprocessing's
children of the check's own `-I` interpreter among them)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence

from radpatch.errors import EnvironmentProblem
from radpatch.prove import import_reaper
from radpatch.prove.import_failures import READ_ONLY_SAID

LINK_FROM = 1 << 20  # bytes: files this large are linked, not copied
_CODE = (".py", ".pyc", ".pyw", ".pth", ".so", ".pyd")  # beside a one-file module: not its data
MAX_BESIDE = 256  # entries beside a one-file module carried at most (a checkout's root may hold many)

# Runs in the target interpreter (standard library, Python 3.10+): `_read_only(allowed)` puts the
# hook in place and returns the list it appends each refused path to; a child's (CHILD below) is
# given its parent's roots and the file to write what it refused to.
_HOOK = r"""
class _Paths(list):
    roots, allowed, sink = (), (), None


def _read_only(allowed, inherited=(), sink=None):
    import os, sys, tempfile
    had_sysconfig = "sysconfig" in sys.modules
    import sysconfig

    def real(p, follow=True):
        p = os.path.abspath(p)
        if follow:
            return os.path.realpath(p)
        return os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))

    def under(p, roots):
        return any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for r in roots)

    allowed = [real(p) for p in allowed]
    tmp = real(tempfile.gettempdir())
    wanted = [*sys.path, sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
    try:
        wanted += list(sysconfig.get_paths().values())
    except Exception:
        pass
    if not had_sysconfig:  # imported before site set the venv's prefix (-S), it keeps the base's: imported anew
        sys.modules.pop("sysconfig", None)
    roots = [r for r in inherited if isinstance(r, str) and r]  # a child's: its parent's roots too
    for p in wanted:
        r = real(p) if isinstance(p, str) and p else ""
        if r and r != os.sep and not under(tmp, [r]) and os.path.isdir(r) and r not in roots:
            roots.append(r)
    blocked = _Paths()
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def check(path, follow=True):
        if path is None or isinstance(path, int):
            return
        try:
            p = real(os.fsdecode(os.fspath(path)), follow)
        except Exception:
            return
        if under(p, allowed) or not under(p, roots):
            return
        if len(blocked) < 64:
            blocked.append(p)
        if sink:
            try:
                with open(sink, "a") as said:
                    said.write(p + "\n")
            except OSError:
                pass
        raise PermissionError(13, "READ_ONLY_SAID", p)

    follow = {"os.truncate": (0,), "os.chmod": (0,), "os.chown": (0,), "os.utime": (0,), "os.chflags": (0,),
              "os.setxattr": (0,), "os.removexattr": (0,), "shutil.copyfile": (1,), "shutil.copymode": (1,),
              "shutil.copystat": (1,), "sqlite3.connect": (0,)}
    own = {"os.remove": (0,), "os.rmdir": (0,), "os.rename": (0, 1), "os.link": (1,), "os.symlink": (1,),
           "shutil.rmtree": (0,), "shutil.move": (0, 1)}

    def hook(event, args):
        if event == "open":
            mode, flags = args[1], args[2]
            if (not any(c in mode for c in "wax+")) if isinstance(mode, str) else not (flags or 0) & writes:
                return
            check(args[0])
        elif event == "os.mkdir":
            if not os.path.lexists(args[0]):
                check(args[0], False)
        elif event in follow:
            for i in follow[event]:
                check(args[i])
        elif event in own:
            for i in own[event]:
                check(args[i], False)

    sys.addaudithook(hook)
    blocked.roots, blocked.allowed = roots, allowed
    return blocked
""".replace("READ_ONLY_SAID", READ_ONLY_SAID)

# The parent's side: `_children(blocked)` once the hook is in place, `_refused(blocked)` for the
# answer, `_forget(blocked)` between imports.
_PARENT = r"""

def _children(blocked):
    # Every Python process started from here with its site step and this environment carries the
    # same hook (CHILD, first on PYTHONPATH); the paths they were refused are written to a file.
    import json, os
    home = os.path.realpath(os.path.join(os.getcwd(), ".radpatch-read-only"))
    os.mkdir(home)
    blocked.sink = os.path.join(home, "refused")
    open(blocked.sink, "w").close()
    with open(os.path.join(home, "sitecustomize.py"), "w") as f:
        f.write(CHILD)
    os.environ["RADPATCH_READ_ONLY"] = json.dumps(
        {"allowed": list(blocked.allowed), "roots": list(blocked.roots), "sink": blocked.sink, "home": home})
    os.environ["PYTHONPATH"] = os.pathsep.join([home] + [p for p in [os.environ.get("PYTHONPATH")] if p])


def _refused(blocked):  # the paths refused here and in the processes started from here
    seen = list(blocked)
    if blocked.sink:
        try:
            with open(blocked.sink) as f:
                seen += f.read().splitlines()
        except OSError:
            pass
    return sorted({p for p in seen if p})


def _forget(blocked):
    del blocked[:]
    if blocked.sink:
        open(blocked.sink, "w").close()
"""

# A child's sitecustomize.py (READ_ONLY's `_children`): the hook with its parent's roots and
# allowed paths, then the sitecustomize it stands in front of, as site would have run it.
_CHILD_TAIL = r"""

def _radpatch_child():
    import importlib.machinery, importlib.util, json, os, sys
    try:
        cfg = json.loads(os.environ.get("RADPATCH_READ_ONLY", "null"))
    except ValueError:
        cfg = None
    if not isinstance(cfg, dict):
        return
    _read_only(cfg["allowed"], cfg["roots"], cfg["sink"])
    rest = [p for p in sys.path if os.path.realpath(p or os.curdir) != cfg["home"]]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


_radpatch_child()
"""
READ_ONLY = _HOOK + _PARENT + "\nCHILD = " + repr(_HOOK + _CHILD_TAIL) + "\n"


@contextlib.contextmanager
def overlay(tops: Sequence[tuple[str, str]]) -> Iterator[dict[str, str]]:
    """Copies of each (site directory, top-level entry) of `tops`; yields {site directory: its copy's}.
    A copy that cannot be made (no space left in the temporary directory) is refused, saying so:
    the check never falls back to importing from the install."""
    with scratch("radpatch-import-overlay-") as tmp:
        try:
            moved = _made(tmp, tops)
        except (OSError, shutil.Error) as exc:
            raise EnvironmentProblem(
                f"the import check could not copy the patched package to {tmp} ({_why(exc)})",
                "free space in the temporary directory (TMPDIR), or apply without --import-check",
            )
        yield moved


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[str]:
    """A temporary directory, removed on the way out; a SIGTERM or SIGINT while it is made or
    removed is acted on once it is gone (import_reaper.deferred)."""
    with import_reaper.deferred():
        tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        yield tmp
    finally:
        with import_reaper.deferred():
            shutil.rmtree(tmp, ignore_errors=True)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)[:200]


def _made(tmp: str, tops: Sequence[tuple[str, str]]) -> dict[str, str]:
    moved: dict[str, str] = {}
    for root, entry in tops:
        into = moved.setdefault(root, os.path.join(tmp, str(len(moved))))
        os.makedirs(into, exist_ok=True)
        src, dst = os.path.join(root, entry), os.path.join(into, entry)
        if os.path.lexists(dst) or not os.path.exists(src):
            continue
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True, copy_function=_copy)
        else:
            _copy(src, dst)
        if entry.endswith(".py"):
            _beside(root, into)
        libs = entry.removesuffix(".py") + ".libs"
        if os.path.isdir(os.path.join(root, libs)) and not os.path.lexists(os.path.join(into, libs)):
            os.symlink(os.path.join(root, libs), os.path.join(into, libs))
    return moved


def _beside(root: str, into: str) -> None:
    """What lies beside a one-file module that is not code: data files copied (or linked), directories
    that are not packages (nor metadata, nor bytecode) copied or linked; at most MAX_BESIDE entries."""
    with os.scandir(root) as it:
        entries = sorted(it, key=lambda e: e.name)
    carried = 0
    for e in entries:
        dst = os.path.join(into, e.name)
        if carried >= MAX_BESIDE or os.path.lexists(dst) or e.name.endswith(_CODE) or ".cpython-" in e.name:
            continue
        if e.is_dir():
            package = os.path.exists(os.path.join(e.path, "__init__.py"))
            if package or e.name == "__pycache__" or e.name.endswith((".dist-info", ".egg-info", ".libs")):
                continue
            if _data_only(e.path):
                shutil.copytree(e.path, dst, symlinks=True, copy_function=_copy)
            else:
                os.symlink(e.path, dst)
        elif e.is_file():
            _copy(e.path, dst)
        carried += 1


def _data_only(path: str) -> bool:
    """A directory of at most MAX_BESIDE entries, none of them code (else it is linked, not copied:
    a namespace package such as `nvidia/`)."""
    count = 0
    for _, dirs, files in os.walk(path):
        count += len(dirs) + len(files)
        if count > MAX_BESIDE or any(f.endswith(_CODE) for f in files):
            return False
    return True


def _copy(src: str, dst: str) -> None:
    """A small regular file copied; a large one, or one this user cannot read, linked; a socket or a
    pipe left out."""
    st = os.stat(src)
    if not stat.S_ISREG(st.st_mode):
        return
    if st.st_size >= LINK_FROM or not os.access(src, os.R_OK):
        os.symlink(src, dst)
    else:
        shutil.copy2(src, dst)  # its time kept: a __pycache__ entry stays valid for it


def into(path: str, moved: dict[str, str]) -> str:
    """`path` under its site directory's copy (unchanged when it is under none)."""
    for root, copy in moved.items():
        if path.startswith(root + os.sep):
            return copy + path[len(root) :]
    return path


def back(data: bytes, moved: dict[str, str], quoted: bool) -> bytes:
    """`data` with each copy's paths turned back into the installed ones (`quoted`: inside JSON strings)."""
    for root, copy in moved.items():
        a, b = (json.dumps(copy)[1:-1], json.dumps(root)[1:-1]) if quoted else (copy, root)
        data = data.replace((a + os.sep).encode(), (b + os.sep).encode())
    return data

"""The import check's read-only install (import_process.py, guarded_imports.py). Writes into the
install through any path (`sysconfig.get_paths()['purelib']`,
`importlib.metadata.distribution(...).locate_file(...)`, a dependency's own directory, a linked
file) are refused inside the subprocess: READ_ONLY is an audit hook that raises PermissionError for
a write, a removal, a rename or a mode change under the interpreter's prefixes, its sysconfig paths
and its import path (the copies and the working directory excepted), resolved through links, and
keeps the paths it refused for the check's answer. The processes the import starts carry the same
hook when they run Python with its site step and the environment they were given (a
`[sys.executable, ...]` subprocess, any interpreter of the machine): READ_ONLY's `_children` puts a
`sitecustomize.py` first on PYTHONPATH that installs it, with the parent's roots and allowed
paths, then runs the `sitecustomize` it stands in front of; what they were refused is added to
the answer. Not stopped by the hook: a write by compiled code, by a process that is not Python, or
by Python started with -I, -E or -S or without the environment (multiprocessing's children of the
check's own `-I` interpreter among them). Those are found after the fact in the install:
`install_roots` are the site directories of the target's import path and its scripts directory,
`snapshot` records (kind, size, mtime_ns, ctime_ns, inode) of every file and directory under them
before the check, and `changed` names what differs after
it (import_watch.py compares them around every child, and refuses the run then)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from radpatch.prove.import_failures import READ_ONLY_SAID

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
    # with -S, sys.prefix is still the base's: the venv (pyvenv.cfg above the interpreter) by its own files
    scripts = os.path.dirname(os.path.abspath(sys.executable)) if sys.executable else ""
    wanted += [scripts] if scripts else []
    if scripts and os.path.isfile(os.path.join(os.path.dirname(scripts), "pyvenv.cfg")):
        wanted.append(os.path.dirname(scripts))
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


Snapshot = dict[str, tuple[int, int, int, int, int]]  # path -> (kind, size, mtime_ns, ctime_ns, inode)


def install_roots(import_path: Sequence[str], scripts: str) -> list[str]:
    """The install's directories: the site directories of the target's import path (a directory named
    site-packages or dist-packages, or holding a distribution's .dist-info/.egg-info) and its scripts
    directory (the interpreter's own: a venv's bin/), resolved, each once: a nested one is left out,
    its parent is walked. Not the interpreter's whole prefix (on a system Python that is /usr), nor a
    source checkout an editable install or PYTHONPATH puts on the path (its .git, its other venvs)."""
    sites = [p for p in import_path if os.path.isdir(p) and _is_site(p)]
    resolved = sorted({os.path.realpath(p) for p in [*sites, scripts] if os.path.isdir(p)})
    kept: list[str] = []
    for r in resolved:
        if not any(r == k or r.startswith(k.rstrip(os.sep) + os.sep) for k in kept):
            kept.append(r)
    return kept


def _is_site(path: str) -> bool:
    if os.path.basename(os.path.normpath(path)) in ("site-packages", "dist-packages"):
        return True
    try:
        return any(e.name.endswith((".dist-info", ".egg-info")) for e in os.scandir(path))
    except OSError:
        return False


def snapshot(roots: Sequence[str]) -> Snapshot:
    """Every file, link and directory under `roots` (links not followed): its kind, size, mtime_ns,
    ctime_ns (a write that puts the size and mtime back still moves it) and inode; an entry that
    cannot be read is left out (so is one that vanishes while walked)."""
    out: Snapshot = {}
    todo = list(roots)
    while todo:
        d = todo.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            out[e.path] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            if stat.S_ISDIR(st.st_mode):
                todo.append(e.path)
    return out


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """The paths created, removed or changed (size, mtime, ctime, inode or kind) between two snapshots; of a
    changed directory only its own entries that changed count (a directory's mtime moves with them)."""
    paths = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    dirs = {p for p in paths if stat.S_ISDIR((before.get(p) or after.get(p) or (0,))[0])}
    explained = {p for p in dirs if any(q.startswith(p + os.sep) for q in paths - {p})}
    return sorted(paths - explained)

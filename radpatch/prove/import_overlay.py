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

Every other write into the install is refused inside the subprocess: read_only.READ_ONLY."""

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

LINK_FROM = 1 << 20  # bytes: files this large are linked, not copied
_CODE = (".py", ".pyc", ".pyw", ".pth", ".so", ".pyd")  # beside a one-file module: not its data
MAX_BESIDE = 256  # entries beside a one-file module carried at most (a checkout's root may hold many)


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

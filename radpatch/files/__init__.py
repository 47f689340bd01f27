"""Read files without blocking on a FIFO and write them atomically, over exactly the bytes expected;
the bytecode kept fresh is `bytecode`'s."""

from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.files.bytecode import drop_bytecode, unlink_quietly

MAX_MODULE = 256 << 20  # no Python module radpatch patches is near this; a larger 'module' is not one


def _regular_fd(file: Path) -> int:
    """A descriptor of `file` opened for reading without blocking, if it is a regular file; a
    FIFO, device or directory is an OSError (opening a FIFO normally waits for a writer)."""
    fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(file))
    except BaseException:
        os.close(fd)
        raise
    return fd


def head_lines(file: Path, limit: int = 1 << 20) -> Iterator[str]:
    """The lines of a regular text file (UTF-8, undecodable bytes replaced) from its start, `limit`
    characters at most in all (a METADATA header is a few KiB; a file of one endless line costs no
    more than the limit). Anything but a regular file is an OSError, as for read_regular."""
    with io.TextIOWrapper(os.fdopen(_regular_fd(file), "rb"), encoding="utf-8", errors="replace") as fh:
        read = 0
        while read < limit:
            line = fh.readline(limit - read)
            if not line:
                return
            read += len(line)
            yield line


def read_regular(file: Path, limit: int = MAX_MODULE) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. A FIFO, device or directory (say a
    payload path naming /dev/zero or a named pipe) is an OSError, never a read that blocks or
    never ends; so is a larger file (read no further than limit + 1 bytes)."""
    fd = _regular_fd(file)
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(file))
        return b"".join(chunks)
    finally:
        os.close(fd)


class ChangedMeanwhile(EnvironmentProblem):
    """The file is no longer what radpatch planned to replace (another process wrote it)."""


WRITER_HINT = "run as a user who may write the installation (root in an image build)"


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new temporary file in `path`'s directory (so os.replace and os.link stay on its file system)."""
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".radpatch-tmp", dir=path.parent)


def _fill(fd: int, data: bytes) -> None:
    """Write `data` to the new temporary file `fd`, on disk before it is linked or renamed into place."""
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write(path: Path, data: bytes, expect: str | None = None) -> None:
    """Temp file in the same directory, fsync, os.replace, mode and owner preserved.

    With `expect` (a sha256), the write is conditional: the file is hashed again right before
    the replace, and if it is no longer those bytes (a concurrent `pip install`, an editor) it is
    left alone and ChangedMeanwhile raised."""
    if path.is_symlink():
        raise EnvironmentProblem(
            f"{path} is a symlink; radpatch does not write through links",
            "patch the file it points to, installed as a regular file",
        )
    try:
        st = path.stat()
        fd, tmp = _temp_beside(path)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot write {path}: {exc.strerror}", WRITER_HINT)
    try:
        _fill(fd, data)
        os.chmod(tmp, st.st_mode & 0o7777)
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass
        if expect is not None and _digest(path) != expect:
            raise ChangedMeanwhile(
                f"{path} changed while radpatch was writing (another process replaced it); radpatch left it alone",
                "let the other process (pip?) finish, then run radpatch again",
            )
        os.replace(tmp, path)
    except OSError as exc:
        unlink_quietly(tmp)
        raise EnvironmentProblem(f"cannot write {path}: {exc.strerror}; the file is unchanged")
    except BaseException:
        unlink_quietly(tmp)
        raise
    fsync_dir(path.parent)


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except FileNotFoundError:
        return None


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def missing_dirs(path: Path, root: Path) -> tuple[Path, ...]:
    """The directories between `root` and `path`'s parent that do not exist, outermost first:
    what creating `path` makes (and what removing it may take away again)."""
    out: list[Path] = []
    d = path.parent
    while d != root and root in d.parents and not d.is_dir():
        out.append(d)
        d = d.parent
    return tuple(reversed(out))


@dataclass(frozen=True)
class Creating:
    """How create_new words its refusals: `cannot {verb} PATH`, `PATH appeared while radpatch was
    {doing} it`, then `{again}`. `explained`: every failure says nothing was written and who may write."""

    verb: str = "create"
    doing: str = "creating"
    again: str = "run radpatch again"
    explained: bool = False


def new_file_mode() -> int:
    """The mode `open()` gives a new file under the process's umask (mkstemp's is 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def create_new(path: Path, data: bytes, dirs: tuple[Path, ...] = (), wording: Creating = Creating()) -> None:
    """Create `path` holding `data`, never over a file that exists: complete under a temporary
    name, then linked into place, which fails (ChangedMeanwhile) if a file appeared meanwhile.
    `dirs` (outermost first) are made first; the file's mode is what pip gives a new file."""
    cannot = f"cannot {wording.verb} {path}"
    unwritten = "; nothing was written" if wording.explained else ""
    try:
        for d in dirs:
            d.mkdir(exist_ok=True)
        fd, tmp = _temp_beside(path)
    except OSError as exc:
        raise EnvironmentProblem(f"{cannot}: {exc.strerror}{unwritten}", WRITER_HINT)
    try:
        _fill(fd, data)
        os.chmod(tmp, new_file_mode())
        os.link(tmp, path)
    except FileExistsError:
        raise ChangedMeanwhile(
            f"{path} appeared while radpatch was {wording.doing} it (another process wrote it); radpatch left it alone",
            f"let the other process (pip?) finish, then {wording.again}",
        )
    except OSError as exc:
        raise EnvironmentProblem(
            f"{cannot}: {exc.strerror}; nothing was written", WRITER_HINT if wording.explained else ""
        )
    finally:
        unlink_quietly(tmp)
    fsync_dir(path.parent)


def remove_module(path: Path, expect: str, dirs: tuple[Path, ...] = ()) -> None:
    """Delete the module `path` only if it is still the bytes of sha256 `expect` (else
    ChangedMeanwhile), with its cached bytecode; then each of `dirs` (radpatch made them, outermost
    first) that is empty, innermost first, with an empty `__pycache__` in it."""
    if path.is_symlink():
        raise EnvironmentProblem(
            f"{path} is a symlink; radpatch does not delete through links", "remove the link yourself"
        )
    try:
        if _digest(path) != expect:
            raise ChangedMeanwhile(
                f"{path} changed while radpatch was removing it (another process replaced it); radpatch left it alone",
                "let the other process (pip?) finish, then run radpatch again",
            )
        os.unlink(path)
    except FileNotFoundError:
        raise ChangedMeanwhile(f"{path} was removed by another process meanwhile", "run radpatch again")
    except OSError as exc:
        raise EnvironmentProblem(f"cannot remove {path}: {exc.strerror}; the file is unchanged")
    fsync_dir(path.parent)
    drop_bytecode(path)
    remove_empty(dirs)


def remove_empty(dirs: tuple[Path, ...]) -> None:
    """Remove each of `dirs` (outermost first) that is empty but for an empty `__pycache__`, innermost first."""
    for d in reversed(dirs):
        for inner in (d / "__pycache__", d):
            try:
                inner.rmdir()
            except OSError:
                pass
        fsync_dir(d.parent)

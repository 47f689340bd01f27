"""Modules imported from a zip archive (a `.zip` or zipped `.egg` on the import path: zipimport).
A path such as `/opt/app.zip/pkg/mod.py` names a member of the archive `/opt/app.zip`: it is no
file, so reading it as one fails with "Not a directory". state.imported looks modules up in such
archives (a zip that provides the package shadows the install like a checkout does), and the
engine-start self-check reads the member the engine imported. Standard library only (the
self-check loads no more)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

MEMBER_MAX = 64 << 20  # a module larger than this is no source file radpatch wrote


def split(path: Path | str) -> tuple[Path, str] | None:
    """(archive, member) when `path` lies inside a zip archive, else None (one stat for a path
    that exists)."""
    p = Path(path)
    if os.path.lexists(p):
        return None
    for parent in p.parents:
        if os.path.isdir(parent):
            return None
        if os.path.isfile(parent):
            if not zipfile.is_zipfile(parent):
                return None
            return parent, p.relative_to(parent).as_posix()
    return None


def read(archive: Path, member: str) -> bytes:
    """The bytes of `member`; FileNotFoundError when the archive has no such member, OSError when
    it cannot be read."""
    try:
        with zipfile.ZipFile(archive) as z:
            info = z.getinfo(member)
            if info.file_size > MEMBER_MAX:
                raise OSError(f"{archive}: {member} is larger than {MEMBER_MAX} bytes")
            return z.read(info)
    except KeyError:
        raise FileNotFoundError(f"{archive} has no member {member}") from None
    except (zipfile.BadZipFile, ValueError, RuntimeError, NotImplementedError) as exc:
        raise OSError(f"{archive}: {exc}") from None


def module_in(archive: Path, package_dir: str, name: str) -> Path | None:
    """The member zipimport would load for the module `name` in the archive's directory
    `package_dir` (a package's `__init__` first, then a module; source named before bytecode), as
    a path inside the archive, or None."""
    try:
        with zipfile.ZipFile(archive) as z:
            names = set(z.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    base = f"{package_dir}/{name}" if package_dir else name
    for member in (f"{base}/__init__.py", f"{base}/__init__.pyc", f"{base}.py", f"{base}.pyc"):
        if member in names:
            return archive / member
    return None

"""The one wheel builder, and the one place a wheel is fetched from the package index.

- build_wheel: a pure-Python wheel laid out as a build backend writes it (the files, METADATA,
  WHEEL, a RECORD hashing them all), for distributions a test invents;
- build_project: a source tree (radpatch itself, tests/fixtures/rpdemo) built by its own backend
  with `pip wheel`, offline when the backend is importable here;
- download_wheel: a release's wheel from the package index, fetched once into a cache directory;
- Wheels: the releases a test serves from a loopback index (tests/releases/conftest.py's `loopback`).
"""

from __future__ import annotations

import csv
import fcntl
import importlib.util
import io
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from tests.lib.processes import run
from tests.lib.site import record_hash

Wheels = dict[str, dict[str, str | bytes]]  # version -> the files of its wheel (build_wheel's), for an index


def build_wheel(into: Path, dist: str, version: str, files: Mapping[str, str | bytes]) -> Path:
    """A wheel laid out like the ones on the index: the files, then METADATA, WHEEL and a RECORD."""
    name = dist.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    contents = {rel: data if isinstance(data, bytes) else data.encode() for rel, data in files.items()}
    contents[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n".encode()
    contents[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: radpatch-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for rel, data in contents.items():
        writer.writerow([rel, f"sha256={record_hash(data)}", len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    contents[f"{info}/RECORD"] = record.getvalue().encode()
    into.mkdir(parents=True, exist_ok=True)
    path = into / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in contents.items():
            zf.writestr(rel, data)
    return path


def build_project(project: Path, out: Path) -> Path:
    """`pip wheel` of a source tree; without build isolation when the backend is importable here
    (hatchling is a test dependency), so no download; otherwise pip fetches the backend."""
    offline = importlib.util.find_spec("hatchling") or importlib.util.find_spec("setuptools")
    isolation = ["--no-build-isolation"] if offline else []
    before = set(out.glob("*.whl"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "--quiet", "--wheel-dir", out, project)
    (wheel,) = set(out.glob("*.whl")) - before
    return wheel


def download_wheel(requirement: str, dest: Path, pattern: str) -> Path:
    """The wheel for `requirement` (`pip download --no-deps --only-binary`), kept in `dest`: the
    first run downloads it, later ones find it there (`pattern` globs its file name). The download
    goes to a temp dir renamed into place, so a killed run leaves no half wheel; a lock beside
    `dest` makes concurrent runs wait for one download."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.parent / f".{dest.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _download_locked(requirement, dest, pattern)


def _download_locked(requirement: str, dest: Path, pattern: str) -> Path:
    found = sorted(dest.glob(pattern))
    if found:
        return found[0]
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".tmp-{dest.name}-"))
    try:
        run(
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "--only-binary=:all:",
            "-d",
            tmp,
            requirement,
        )
        assert list(tmp.glob(pattern)), f"pip download {requirement} gave no {pattern}"
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    (wheel,) = dest.glob(pattern)
    return wheel


def unlike_record(data: bytes, rel: str) -> bytes:
    """The wheel `data` with the file `rel`'s bytes changed and RECORD kept (a tampered or mixed-up file)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info.filename, body + b"# changed\n" if info.filename == rel else body)
    return out.getvalue()

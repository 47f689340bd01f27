"""A module's bytecode kept from going stale: every cached .pyc of a written module dropped and a
checked-hash one (PEP 552) written for the target interpreter; a removed module's dropped."""

from __future__ import annotations

import importlib.util
import marshal
import os
import py_compile
import subprocess
import tempfile
from pathlib import Path
from types import CodeType


def _write_pyc(cfile: Path, pyc: bytes, source: Path) -> None:
    """Write a .pyc as py_compile does (atomically, the source's mode made writable); a
    failure leaves no bytecode, which is fine: the interpreter compiles the source on import."""
    tmp = ""
    try:
        cfile.parent.mkdir(parents=True, exist_ok=True)  # PYTHONPYCACHEPREFIX: a tree of its own
        mode = (source.stat().st_mode | 0o200) & 0o666
        fd, tmp = tempfile.mkstemp(dir=cfile.parent, prefix=f".{cfile.name}.")
        with os.fdopen(fd, "wb") as out:
            out.write(pyc)
        os.chmod(tmp, mode)
        os.replace(tmp, cfile)
    except OSError:
        if tmp:
            unlink_quietly(tmp)


def unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def checked_pyc(source: bytes, code: CodeType) -> bytes:
    """The checked-hash .pyc (PEP 552) of `source`, compiled by this interpreter as `code`."""
    return (
        importlib.util.MAGIC_NUMBER
        + (0b11).to_bytes(4, "little")
        + importlib.util.source_hash(source)
        + marshal.dumps(code)
    )


def refresh_bytecode(path: Path, python: str, same_interpreter: bool, pyc: bytes | None = None) -> None:
    """Drop every cached .pyc of `path`, then write a checked-hash .pyc for the target interpreter:
    `pyc` when given (the proof compiled the file already: checked_pyc), else compiled here.

    A timestamp .pyc can miss a same-second, same-size edit; a checked-hash one is validated
    against the source's hash on every import, so it can never be stale.
    """
    drop_bytecode(path)
    if same_interpreter and pyc is not None:
        _write_pyc(Path(importlib.util.cache_from_source(str(path))), pyc, path)
        return
    if same_interpreter:
        try:
            py_compile.compile(
                str(path),
                cfile=importlib.util.cache_from_source(str(path)),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
            )
        except (py_compile.PyCompileError, OSError):
            pass  # no bytecode is fine: the interpreter compiles the source on import
        return
    code = (
        "import py_compile, sys; py_compile.compile(sys.argv[1], doraise=False, "
        "invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)"
    )
    try:
        subprocess.run([python, "-c", code, str(path)], capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        pass  # the stale .pyc files are gone already; the interpreter will compile on import


def drop_bytecode(path: Path) -> None:
    """Delete every cached .pyc of the module `path` (a removed module must not import from its bytecode)."""
    cache = path.parent / "__pycache__"
    for old in cache.glob(f"{path.stem}.*.pyc") if cache.is_dir() else []:
        unlink_quietly(str(old))

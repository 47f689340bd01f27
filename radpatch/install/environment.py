"""Resolve the target environment and an installed distribution from its metadata only.

Nothing here imports the target package: the interpreter is asked for its search path, and the
distribution is found by its *.dist-info directory (install.dist_infos: METADATA for the version;
RECORD for hashes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.files import read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.dist_infos import canonical_name

# sys.path[0] is the directory of the script or "" (the current directory) for `-c`: what the
# target's own programs (`vllm serve`, a service's entry point) import from never includes it, so
# an unpacked wheel in the directory radpatch happens to run from is never mistaken for the install.
_PROBE = (
    "import json, sys, sysconfig; p = sys.path[1:] if sys.path[:1] == [''] else sys.path; "
    "print(json.dumps({'executable': sys.executable, 'path': p, "
    "'purelib': sysconfig.get_paths()['purelib'], 'version': list(sys.version_info[:3])}))"
)


@dataclass(frozen=True)
class PythonEnv:
    executable: str
    paths: tuple[Path, ...]
    purelib: Path
    version: tuple[int, int]
    # the whole import path in order, zip archives (and zipped eggs) included: `paths` holds only its
    # directories; state.imported asks where a module is found with this one (a zip may shadow the install)
    import_path: tuple[Path, ...] = ()

    @property
    def is_current(self) -> bool:
        return (
            Path(self.executable).resolve() == Path(sys.executable).resolve()
            or self.version == sys.version_info[:2]
            and self.purelib == Path(sysconfig.get_paths()["purelib"])
        )


OLDEST_PYTHON = (3, 10)  # the oldest Python radpatch supports, for itself and for the targets it patches


def python_env(python: str | None) -> PythonEnv:
    """The environment of `python`: an interpreter, or a virtual environment's directory (as pip's
    --python takes); radpatch's own when None. Nothing of the target is imported."""
    if python is None:
        return PythonEnv(
            sys.executable,
            _dirs(_import_path()),
            Path(sysconfig.get_paths()["purelib"]),
            (sys.version_info[0], sys.version_info[1]),
            _entries(_import_path()),
        )
    exe = interpreter(python)
    try:
        out = subprocess.run([exe, "-c", _PROBE], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise EnvironmentProblem(
            f"--python {python}: no such interpreter",
            "give the path of a python executable or of a venv directory, e.g. /opt/venv",
        )
    except subprocess.TimeoutExpired:
        raise EnvironmentProblem(
            f"--python {python}: the interpreter did not answer within 60 s",
            "check that it starts: run it with -c pass",
        )
    except OSError as exc:
        raise EnvironmentProblem(
            f"--python {python}: cannot run it ({exc.strerror})",
            "give the path of a python executable or of a venv directory",
        )
    return _parse_probe(python, out)


def interpreter(python: str) -> str:
    """`python` itself, or the interpreter of the virtual environment directory `python` names."""
    path = Path(python)
    try:
        if not path.is_dir():
            return python
        found = [path / rel for rel in ("bin/python", "bin/python3", "Scripts/python.exe") if (path / rel).is_file()]
    except OSError as exc:  # a directory on the way this user may not enter (att63 F9)
        raise EnvironmentProblem(
            f"--python {python}: cannot read it ({exc.strerror or exc})",
            "run radpatch as a user who may read that path (the one that owns the environment), or give another path",
        ) from None
    if found:
        return str(found[0])
    raise EnvironmentProblem(
        f"--python {python}: a directory without bin/python, so not a virtual environment",
        "give a venv directory (the one holding pyvenv.cfg) or the path of a python executable",
    )


def _parse_probe(python: str, out: subprocess.CompletedProcess[str]) -> PythonEnv:
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    first_error = (out.stderr.strip().splitlines() or [""])[-1][:200]
    if out.returncode != 0:
        raise EnvironmentProblem(
            f"--python {python}: the interpreter failed to report its paths "
            f"(exit {out.returncode}: {first_error or 'no message'})",
            "check that it is a Python 3.10+ interpreter: run it with --version",
        )
    try:
        info = json.loads(lines[-1]) if lines else None
        if info is None:
            raise TypeError("no answer")
        env = PythonEnv(
            str(info["executable"]),
            _dirs([str(p) for p in info["path"]]),
            Path(info["purelib"]),
            (int(info["version"][0]), int(info["version"][1])),
            _entries([str(p) for p in info["path"]]),
        )
        if not (
            isinstance(info["path"], list) and isinstance(info["executable"], str) and isinstance(info["purelib"], str)
        ):
            raise TypeError("unexpected types")
        full = ".".join(str(int(x)) for x in info["version"])
    except (ValueError, TypeError, KeyError, IndexError):
        said = (lines[-1] if lines else out.stdout.strip() or "nothing")[:120]
        raise EnvironmentProblem(
            f"--python {python}: answered radpatch's interpreter probe unexpectedly ({said!r})",
            "give a CPython 3.10+ interpreter; "
            "a wrapper script must pass -c CODE through to python and print nothing else",
        )
    if env.version < OLDEST_PYTHON:
        oldest = ".".join(map(str, OLDEST_PYTHON))
        what = (
            f"Python {full}; radpatch cannot reason about Python 2 code"
            if env.version[0] < 3
            else f"Python {full}, older than the oldest Python radpatch supports ({oldest})"
        )
        raise EnvironmentProblem(
            f"--python {python}: is {what}",
            f"point --python at a Python {oldest}+ environment (vLLM itself needs 3.10+)",
        )
    return env


def _import_path() -> list[str]:
    """radpatch's own sys.path without the current directory that `python -m radpatch` puts first (see _PROBE)."""
    first = sys.path[:1]
    if first and (first[0] == "" or os.path.realpath(first[0]) == os.path.realpath(os.getcwd())):
        return sys.path[1:]
    return sys.path


def _entries(entries: list[str]) -> tuple[Path, ...]:
    """The import path's directories and files (zip archives), in order."""
    seen: dict[Path, None] = {}
    for e in entries:
        if e and (os.path.isdir(e) or os.path.isfile(e)):
            seen.setdefault(Path(e).resolve(), None)
    return tuple(seen)


def _dirs(entries: list[str]) -> tuple[Path, ...]:
    seen: dict[Path, None] = {}
    for e in entries:
        if e and os.path.isdir(e):
            seen.setdefault(Path(e).resolve(), None)
    return tuple(seen)


@dataclass(frozen=True)
class Installed:
    name: str
    version: Version
    dist_info: Path
    root: Path  # the directory the distribution's files are installed relative to
    editable: bool = field(default=False)
    provides: str = ""  # set when recognised by the package it installs, not by a name the entry gives
    python: str = ""  # the target interpreter that imports it (install.locate sets it), when known

    def recorded_sha256(self, relpath: str) -> str | None:
        """RECORD's sha256 (hex) of the file at `relpath`, or None when RECORD lists it without one."""
        return wheel_record.sha256_of(self.dist_info / "RECORD", relpath)


def installed_from(dist_info: Path, name: str | None = None) -> Installed:
    """The distribution `dist_info` describes (`name`: as its directory's name spells it, by default)."""
    name = name or dist_infos.name_of(dist_info)
    try:
        meta = dist_infos.metadata(dist_info)
    except OSError as exc:
        raise EnvironmentProblem(f"{dist_info}: cannot read METADATA ({exc.strerror})")
    if meta.name is not None and canonical_name(meta.name) == canonical_name(name):
        name = meta.name  # as the project spells it (the directory name is normalised)
    version = meta.version
    try:
        parsed = Version(version or "")
    except ValueError:  # InvalidVersion, or a number too long to convert
        found = version if version is None or len(version) <= 60 else version[:57] + "..."
        raise EnvironmentProblem(f"{dist_info}/METADATA: no valid Version (found {found!r})", f"reinstall {name}")
    return Installed(name, parsed, dist_info, dist_info.parent, _is_editable(dist_info))


def _is_editable(dist_info: Path) -> bool:
    try:
        info = json.loads(read_regular(dist_info / "direct_url.json", limit=1 << 20))
    except (OSError, ValueError, RecursionError):
        return False
    dir_info = info.get("dir_info") if isinstance(info, dict) else None
    return isinstance(dir_info, dict) and dir_info.get("editable") is True


def module_path(dist: Installed, relpath: str, missing_ok: bool = False) -> Path:
    """Where the module `relpath` of `dist` is; refused unless it is a regular file there, or
    (`missing_ok`: a module an entry creates) nothing is there yet."""
    path = dist.root / relpath
    linked = linked_directory(dist.root, relpath, lambda: wheel_record.rows(dist.dist_info / "RECORD"))
    if linked is not None:  # att60 F10: a directory link would take the write outside the install
        raise EnvironmentProblem(
            f"{linked} is a symbolic link to {linked.resolve()}, outside {dist.root}: radpatch does not write "
            f"through links ({relpath})",
            f"install {dist.name} as regular files (pip install --force-reinstall --no-deps {dist.name}), or leave "
            "the module out of the entry",
        )
    if path.is_file() or path.is_symlink():
        return path
    if path.exists():  # a directory, FIFO or device where the module should be: never read or replace it
        raise EnvironmentProblem(
            f"cannot read {path}: not a regular file",
            f"reinstall {dist.name} (pip install --force-reinstall --no-deps {dist.name})",
        )
    if dist.editable:
        raise RefusedError(
            f"{dist.name} {dist.version} is an editable install (pip install -e); {relpath} is not under {dist.root}",
            "radpatch patches installed files only: install a wheel of it, or patch the source tree with git",
        )
    if missing_ok:
        return path
    if dist.recorded_sha256(relpath) is not None:  # installed, then deleted: it is put back, not re-declared
        raise RefusedError(
            f"{dist.name} {dist.version} has no {relpath} under {dist.root}: its RECORD lists it (deleted since)",
            f"put it back as installed with `radpatch restore {relpath}` (or reinstall {dist.name}), then run "
            "radpatch again",
        )
    raise RefusedError(
        f"{dist.name} {dist.version} has no {relpath} under {dist.root}",
        "the module this patch declares for this version is not installed; check the registry's modules",
    )


def linked_directory(root: Path, relpath: str, recorded: Callable[[], Iterable[str]]) -> Path | None:
    """The first directory on the way from `root` to `relpath` that is a link to somewhere outside
    `root` and under which no file of `recorded()` (RECORD's paths, read only then) lies, or None: a file under it is
    not in the install, whatever its path says. A package directory the wheel was installed through
    (`toypkg -> /elsewhere/toypkg`, its files in RECORD) is the install's."""
    here, inside = root, root.resolve()
    for part in relpath.split("/")[:-1]:
        here = here / part
        if here.is_symlink() and not here.resolve().is_relative_to(inside):
            prefix = here.relative_to(root).as_posix() + "/"
            return None if any(r.startswith(prefix) for r in recorded()) else here
    return None

"""Resolve the target environment and an installed distribution from its metadata only.

Nothing here imports the target package: the interpreter is asked for its search path, and the
distribution is found by its *.dist-info directory (METADATA for the version, RECORD for hashes).
"""

from __future__ import annotations

import base64
import csv
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from radpatch.errors import EnvironmentProblem, RefusedError

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

    @property
    def is_current(self) -> bool:
        return Path(self.executable).resolve() == Path(sys.executable).resolve() or self.version == sys.version_info[:2] and self.purelib == Path(sysconfig.get_paths()["purelib"])


def python_env(python: str | None) -> PythonEnv:
    if python is None:
        return PythonEnv(sys.executable, _dirs(_import_path()), Path(sysconfig.get_paths()["purelib"]), (sys.version_info[0], sys.version_info[1]))
    try:
        out = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True)
        info = json.loads(out.stdout)
    except FileNotFoundError:
        raise EnvironmentProblem(f"--python {python}: no such interpreter", "give the path of a python executable, e.g. /opt/venv/bin/python")
    except (subprocess.SubprocessError, ValueError, OSError) as exc:
        raise EnvironmentProblem(f"--python {python}: could not ask the interpreter for its paths ({exc})")
    return PythonEnv(info["executable"], _dirs(info["path"]), Path(info["purelib"]), (int(info["version"][0]), int(info["version"][1])))


def _import_path() -> list[str]:
    """radpatch's own sys.path without the current directory that `python -m radpatch` puts first (see _PROBE)."""
    first = sys.path[:1]
    if first and (first[0] == "" or os.path.realpath(first[0]) == os.path.realpath(os.getcwd())):
        return sys.path[1:]
    return sys.path


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

    @cached_property
    def record(self) -> dict[str, str]:
        """RECORD: relative path -> sha256 hex (files RECORD lists without a hash are left out)."""
        out: dict[str, str] = {}
        try:
            with open(self.dist_info / "RECORD", newline="", encoding="utf-8") as fh:
                for row in csv.reader(fh):
                    if len(row) >= 2 and row[1].startswith("sha256="):
                        digest = base64.urlsafe_b64decode(row[1][7:] + "=" * (-len(row[1][7:]) % 4))
                        out[row[0]] = digest.hex()
        except OSError:
            pass
        return out


def installed_from(dist_info: Path, name: str) -> Installed:
    version = None
    try:
        with open(dist_info / "METADATA", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break  # end of the header
                key, _, value = line.partition(":")
                if key == "Version" and version is None:
                    version = value.strip()
                elif key == "Name" and canonicalize_name(value.strip()) == canonicalize_name(name):
                    name = value.strip()  # as the project spells it (the directory name is normalised)
    except OSError as exc:
        raise EnvironmentProblem(f"{dist_info}: cannot read METADATA ({exc.strerror})")
    try:
        parsed = Version(version or "")
    except InvalidVersion:
        raise EnvironmentProblem(f"{dist_info}/METADATA: no valid Version (found {version!r})", f"reinstall {name}")
    return Installed(name, parsed, dist_info, dist_info.parent, _is_editable(dist_info))


def _is_editable(dist_info: Path) -> bool:
    try:
        info = json.loads((dist_info / "direct_url.json").read_text())
    except (OSError, ValueError):
        return False
    return bool(isinstance(info, dict) and info.get("dir_info", {}).get("editable"))


def module_path(dist: Installed, relpath: str) -> Path:
    path = dist.root / relpath
    if path.is_file() or path.is_symlink():
        return path
    if dist.editable:
        raise RefusedError(
            f"{dist.name} {dist.version} is an editable install (pip install -e); {relpath} is not under {dist.root}",
            "radpatch patches installed files only: install a wheel of it, or patch the source tree with git",
        )
    raise RefusedError(f"{dist.name} {dist.version} has no {relpath} under {dist.root}", "the module this patch declares for this version is not installed; check the registry's modules")

"""Helpers of the import tests: a real wheel pip-installs into a real venv, radpatch and GNU
patch run as processes on it.

The corpus is real code: modules of the standard library and the vLLM fixtures of
tests/fixtures/vllm, installed as the modules of one small distribution (`rpimport-corpus`), so
that what `radpatch import` writes is applied by the real engine through its CLI, to files pip
installed and RECORD lists, and compared with what /usr/bin/patch makes of the same diff.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PATCH = shutil.which("patch") or "/usr/bin/patch"
DIST = "rpimport-corpus"
PACKAGE = "rpimport_corpus"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_MODULES = ("textwrap", "shlex", "fnmatch", "calendar", "configparser", "difflib", "argparse", "dataclasses")


def vllm_fixtures() -> list[Path]:
    return sorted((REPO / "tests" / "fixtures" / "vllm").rglob("*.py"))


def corpus_files() -> dict[str, bytes]:
    """Package-relative path -> source, from the stdlib and the vLLM fixtures."""
    files = {f"{PACKAGE}/__init__.py": b'"""Import-test corpus: real modules."""\n'}
    for name in STDLIB_MODULES:
        files[f"{PACKAGE}/std_{name}.py"] = (STDLIB / f"{name}.py").read_bytes()
    for path in vllm_fixtures():
        version = path.relative_to(REPO / "tests" / "fixtures" / "vllm").parts[0].replace(".", "_")
        files[f"{PACKAGE}/vllm_{version}_{path.stem}.py"] = path.read_bytes()
    files[f"{PACKAGE}/sub/__init__.py"] = b""
    files[f"{PACKAGE}/data.txt"] = b"not python\n"
    return files


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(dest: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    norm = name.replace("-", "_")
    info = f"{norm}-{version}.dist-info"
    entries = dict(files)
    entries[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n".encode()
    entries[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: radpatch-import-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for rel, data in entries.items():
        w.writerow([rel, _hash(data), len(data)])
    w.writerow([f"{info}/RECORD", "", ""])
    entries[f"{info}/RECORD"] = buf.getvalue().encode()
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"{norm}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in entries.items():
            zf.writestr(rel, data)
    return wheel


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_")}


@dataclass
class Venv:
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site(self) -> Path:
        return self.root / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"

    def radpatch(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "radpatch", "--python", str(self.python), *args],
                              capture_output=True, text=True, env=clean_env(), timeout=600, check=False)


@pytest.fixture(scope="session")
def corpus_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"), DIST, "1.0.0", corpus_files())


@pytest.fixture
def venv(tmp_path: Path, corpus_wheel: Path) -> Venv:
    """A fresh venv with the corpus wheel installed by pip (real dist-info, RECORD written by pip)."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, capture_output=True)
    v = Venv(root)
    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(v.python), "--disable-pip-version-check", "install",
                          "--no-deps", "--no-index", "--no-compile", str(corpus_wheel)], capture_output=True, text=True, env=clean_env(), check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return v


def gnu_patch(directory: Path, patch: Path, strip: int, *extra: str) -> subprocess.CompletedProcess[str]:
    """GNU patch, forced (no questions, no reversed-patch guess), no backups or reject files."""
    return subprocess.run([PATCH, "-f", f"-p{strip}", "--no-backup-if-mismatch", "-r", "-", "-i", str(patch), *extra],
                          cwd=directory, capture_output=True, text=True, timeout=120, check=False)

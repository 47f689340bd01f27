"""Shared fixtures: a fake site-packages with a dist-info (METADATA + RECORD) and registry dirs."""

from __future__ import annotations

import base64
import hashlib
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv


def record_hash(data: bytes) -> str:
    """RECORD's form of a sha256: urlsafe base64 without padding."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@dataclass
class Site:
    """A site-packages directory holding installed distributions, as pip lays them out."""

    root: Path

    @property
    def env(self) -> PythonEnv:
        return PythonEnv(sys.executable, (self.root,), self.root, (sys.version_info[0], sys.version_info[1]))

    def install(self, name: str, version: str, files: dict[str, str]) -> None:
        """Write `files` (relpath -> dedented source) and a dist-info whose RECORD hashes them."""
        rows = []
        for rel, text in files.items():
            data = textwrap.dedent(text).encode()
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            rows.append(f"{rel},sha256={record_hash(data)},{len(data)}")
        dist_info = self.root / f"{name}-{version}.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
        rows.append(f"{dist_info.name}/METADATA,,")
        rows.append(f"{dist_info.name}/RECORD,,")
        (dist_info / "RECORD").write_text("\n".join(rows) + "\n")

    def snapshot(self) -> dict[str, bytes]:
        """Every file's bytes, except radpatch's own lock file (taking the lock creates it)."""
        return {
            str(p.relative_to(self.root)): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and p.relative_to(self.root).as_posix() != ".radpatch/lock"
        }


@pytest.fixture
def site(tmp_path: Path) -> Site:
    root = tmp_path / "site-packages"
    root.mkdir()
    return Site(root)


@pytest.fixture
def write_registry(tmp_path: Path):  # type: ignore[no-untyped-def]
    """write_registry(name, yaml, payloads={relpath: source}, dir='registry') -> the registry dir."""

    def write(name: str, text: str, payloads: dict[str, str] | None = None, dirname: str = "registry") -> Path:
        d = tmp_path / dirname
        d.mkdir(exist_ok=True)
        (d / f"{name}.yaml").write_text(textwrap.dedent(text))
        for rel, source in (payloads or {}).items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_text(textwrap.dedent(source))
        return d

    return write


@pytest.fixture(autouse=True)
def _no_ambient_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registries come only from what a test passes, never from the caller's environment."""
    monkeypatch.delenv("RADPATCH_REGISTRY", raising=False)


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def radpatch(site: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """radpatch(*argv) -> Result, through cli.main (the real error handler) on `site` as radpatch's own env."""
    from radpatch.cli import main

    monkeypatch.syspath_prepend(str(site.root))

    def run(*argv: str) -> Result:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


TOY_FILES = {
    "toypkg/__init__.py": "",
    "toypkg/core.py": """\
        def plan(spec):
            size = len(spec)
            if size > 4:
                size = 4
            return size


        def groups(spec):
            return plan(spec)
        """,
    "toypkg/util.py": """\
        def scale(x):
            return x * 2
        """,
}

TOY_PATCH = """\
    summary: Toy two-file patch
    description: Adds a parameter, passes it, and changes a factor in a second module.
    distribution: toypkg
    supported: ">=1.0,<2"
    modules:
      core: toypkg.core
      util: toypkg.util
    rewrites:
      - id: cfg-param
        file: core
        add_parameter: {function: plan, name: cfg, default: "None"}
      - id: pass-cfg
        file: core
        replace: {scope: groups, find: plan(spec), with: "plan(spec, None)"}
      - id: triple
        file: util
        replace: {scope: scale, find: x * 2, with: x * 3}
    """


@pytest.fixture
def toy(site: Site, write_registry) -> Path:  # type: ignore[no-untyped-def]
    """toypkg 1.0 installed in `site`; returns the registry dir holding the two-file patch `toy`."""
    site.install("toypkg", "1.0", TOY_FILES)
    return write_registry("toy", TOY_PATCH)

"""A fake site-packages: installed distributions as pip lays them out (files, METADATA, RECORD).

The in-process tests run radpatch's code over one of these in a temp dir (tests/lib/toy.py holds
the small distribution most of them install)."""

from __future__ import annotations

import base64
import csv
import hashlib
import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from radpatch.install.environment import PythonEnv


def record_hash(data: bytes) -> str:
    """RECORD's form of a sha256: urlsafe base64 without padding."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def recorded_sha256(record: Path, rel: str) -> str | None:
    """The sha256 (hex) a RECORD file holds for `rel`, read as pip reads it (csv); None when it has
    no sha256 row for `rel`, so a comparison with the file's own hash fails."""
    with open(record, newline="") as fh:
        for row in csv.reader(fh):
            if row and row[0] == rel and len(row) > 1 and row[1].startswith("sha256="):
                digest = row[1][len("sha256=") :]
                return base64.urlsafe_b64decode(digest + "=" * (-len(digest) % 4)).hex()
    return None


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


def tree_digest(root: Path) -> str:
    """A hash of every path under `root` (directories too), each file's bytes and each link's target:
    equal before and after only if nothing under it was written, added or removed."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode() + b"\0")
        if p.is_symlink():  # a venv's python: the link, not the interpreter it names
            h.update(os.readlink(p).encode())
        elif p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()

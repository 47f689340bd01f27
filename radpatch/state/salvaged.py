"""Bytes an interrupted run's recovery could not put back, kept (`.radpatch/salvaged.json`).

A run's journal saves each file's bytes from before it. When the next run finds a file it cannot
decide on (changed since, or gone), it writes nothing to it; the bytes from before are then kept
in `.radpatch/originals/` (where `radpatch restore`, and apply adopting a file, look for the
installed bytes by RECORD's sha256), and listed here with the file and the install they belong to,
so that pruning the originals no record names leaves them. An entry goes once it is no longer
needed: the file is those bytes again, a record names them (kept under it then), or the install
is another one (pip replaced the files: the state model reads it as any reinstall).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

from radpatch.errors import EnvironmentProblem
from radpatch.files import atomic_write, fsync_dir, read_regular
from radpatch.install import wheel_record
from radpatch.state.layout import load_json, sha256
from radpatch.state.originals import Originals
from radpatch.state.record_file import PatchRecord, inside

_FIELDS = ("path", "sha256", "dist_info", "identity")


@dataclass(frozen=True)
class Salvage:
    path: str  # relative to the install root
    sha256: str  # the bytes kept in originals/
    dist_info: str  # the distribution's dist-info directory (in the root) when they were saved; "" unknown
    identity: str  # its install identity then (wheel_record.InstallId.files); "" unknown


class Salvaged(Originals):
    """The list of salvaged bytes (a part of state.record's `Store`)."""

    def prune(self, records: dict[str, PatchRecord] | None = None, keep: frozenset[str] = frozenset()) -> None:
        """state.originals' prune, leaving the salvaged bytes too (all kept bytes while the list is unreadable)."""
        try:
            salvaged = frozenset(s.sha256 for s in self.salvaged())
        except EnvironmentProblem:
            return
        super().prune(records, keep | salvaged)

    def salvaged(self) -> list[Salvage]:
        """The bytes kept by recoveries; an unreadable list is an EnvironmentProblem naming it."""
        path = self.dir / "salvaged.json"
        try:
            raw = load_json(path)
        except FileNotFoundError:
            return []
        except (OSError, ValueError, RecursionError) as exc:
            raise _unreadable(path, str(exc))
        try:
            out = [Salvage(**{k: e[k] for k in _FIELDS}) for e in raw["files"]]
        except (KeyError, TypeError) as exc:
            raise _unreadable(path, f"unexpected structure ({exc})")
        if not all(all(isinstance(v, str) for v in asdict(s).values()) and inside(s.path) for s in out):
            raise _unreadable(path, "a field is not a string, or a path is not inside the install root")
        return out

    def salvage(self, data: bytes, relpath: str, dist_info: str, identity: str) -> str:
        """Keep `data` (a file's bytes from before an interrupted run) until no longer needed; its sha256."""
        self.keep_original(data)
        entry = Salvage(relpath, sha256(data), dist_info, identity)
        self._save_salvaged([s for s in self.salvaged() if s != entry] + [entry])
        return entry.sha256

    def salvage_needed(self) -> bool:
        """Drop the entries no longer needed (see the module): are any left (or is the list unreadable:
        the user's to look at, so radpatch's directory stays)?"""
        try:
            had = self.salvaged()
        except EnvironmentProblem:
            return True
        named = {d for r in self.records().values() for f in r.files for d in (f.original_sha256, f.patched_sha256)}
        keep = [s for s in had if s.sha256 not in named and self._needed(s)]
        if keep != had:
            self._save_salvaged(keep)
        return bool(keep)

    def _needed(self, s: Salvage) -> bool:
        if s.identity and not wheel_record.identity(self.root / s.dist_info / "RECORD").holds(s.identity):
            return False  # another install: pip wrote the files anew
        try:
            return sha256(read_regular(self.root / s.path)) != s.sha256
        except OSError:
            return True  # gone or unreadable: the kept bytes are still the way back

    def _save_salvaged(self, items: list[Salvage]) -> None:
        path = self.dir / "salvaged.json"
        try:
            if not items:
                path.unlink(missing_ok=True)
                return
            if not path.exists():
                path.write_bytes(b"{}")
            atomic_write(path, json.dumps({"files": [asdict(s) for s in items]}, indent=2).encode() + b"\n")
            fsync_dir(self.dir)
        except OSError as exc:
            raise EnvironmentProblem(f"cannot write {path}: {exc.strerror}")


def _unreadable(path: os.PathLike[str], why: str) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"{path} is unreadable ({why})",
        "it lists bytes radpatch kept from an interrupted run; restore it, or remove it if those files are as you want",
    )

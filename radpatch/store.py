"""What radpatch did to an installation: the record, the journal, and the lock.

State lives beside the distribution in `<site-packages>/.radpatch/`:
  record.json   patch -> files with original and patched sha256 (what status and revert prove)
  journal/      present only while files are being written: the plan and each file's prior bytes,
                so an interrupted run is rolled back (or, if its record was written, completed)
  lock          fcntl lock serialising radpatch processes; the kernel releases it if one dies
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem
from radpatch.writer import atomic_write, fsync_dir

FORMAT = 1


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileRecord:
    module: str
    path: str  # relative to the distribution root
    original_sha256: str
    patched_sha256: str


@dataclass(frozen=True)
class PatchRecord:
    patch: str
    distribution: str
    version: str
    registry_digest: str
    files: tuple[FileRecord, ...]


@dataclass(frozen=True)
class Store:
    root: Path  # the distribution root (site-packages)

    @property
    def dir(self) -> Path:
        return self.root / ".radpatch"

    # --- record ---------------------------------------------------------------------------------
    def _raw(self) -> dict[str, object]:
        try:
            raw = json.loads((self.dir / "record.json").read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise _unreadable(self.dir, str(exc))
        if not isinstance(raw, dict):
            raise _unreadable(self.dir, "not a JSON object")
        return raw

    def records(self) -> dict[str, PatchRecord]:
        out = {}
        try:
            for name, r in self._raw().get("patches", {}).items():  # type: ignore[attr-defined]
                files = tuple(FileRecord(**f) for f in r["files"])
                out[name] = PatchRecord(name, r["distribution"], r["version"], r["registry_digest"], files)
        except (AttributeError, KeyError, TypeError) as exc:
            raise _unreadable(self.dir, f"unexpected structure: {exc!r}")
        return out

    def recorded_files(self, relpath: str, besides: str) -> list[FileRecord]:
        """What other patches than `besides` recorded for the file `relpath` (stacked patches)."""
        return [f for name, r in self.records().items() if name != besides for f in r.files if f.path == relpath]

    def last_run(self) -> str | None:
        """The id of the run that wrote the record last (a journal's run is committed iff equal)."""
        run = self._raw().get("last_run")
        return run if isinstance(run, str) else None

    def keep_original(self, data: bytes) -> None:
        """Keep a file's bytes from before patching, so drift can be told from layout changes."""
        folder = self.dir / "originals"
        path = folder / sha256(data)
        try:
            folder.mkdir(exist_ok=True)
            if not path.exists():
                _durable_write(path, data)
        except OSError as exc:
            raise EnvironmentProblem(f"cannot keep the original in {folder}: {exc.strerror}")

    def original(self, digest: str) -> bytes | None:
        try:
            return (self.dir / "originals" / digest).read_bytes()
        except OSError:
            return None

    def save(self, records: dict[str, PatchRecord], run: str) -> None:
        data = {"format": FORMAT, "last_run": run, "patches": {n: _plain(r) for n, r in sorted(records.items())}}
        path = self.dir / "record.json"
        if not path.exists():
            path.write_bytes(b"{}")
        atomic_write(path, json.dumps(data, indent=2, sort_keys=True).encode() + b"\n")
        wanted = {f.original_sha256 for r in records.values() for f in r.files}
        for kept in (self.dir / "originals").glob("*"):
            if kept.name not in wanted:
                kept.unlink(missing_ok=True)

    # --- lock -----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        try:
            self.dir.mkdir(exist_ok=True)
            fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise EnvironmentProblem(f"cannot create radpatch's state in {self.dir}: {exc.strerror}", "run as a user who may write the installation")
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"radpatch: waiting for another radpatch process ({self.dir / 'lock'})", file=sys.stderr)
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    # --- journal --------------------------------------------------------------------------------
    @property
    def journal(self) -> Path:
        return self.dir / "journal"

    def begin(self, run: str, op: str, patches: list[str], files: dict[Path, tuple[bytes, bytes]]) -> None:
        """Durably save each file's prior bytes and the intended result before touching any."""
        tmp = self.dir / f"journal.{os.getpid()}.{time.time_ns()}"
        try:
            tmp.mkdir()
            entries = []
            for i, (path, (before, after)) in enumerate(files.items()):
                _durable_write(tmp / f"{i}.before", before)
                entries.append({"path": str(path), "before": sha256(before), "after": sha256(after), "blob": f"{i}.before"})
            _durable_write(tmp / "plan.json", json.dumps({"run": run, "op": op, "patches": patches, "files": entries}).encode())
            fsync_dir(tmp)
            os.rename(tmp, self.journal)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise EnvironmentProblem(f"cannot write radpatch's journal in {self.dir}: {exc.strerror}; nothing was changed")
        fsync_dir(self.dir)

    def end(self) -> None:
        """Retire the journal in one atomic rename, then delete it at leisure: a crash while
        deleting leaves only a `journal.*` leftover, which `sweep` removes."""
        retired = self.dir / f"journal.done.{os.getpid()}.{time.time_ns()}"
        os.rename(self.journal, retired)
        fsync_dir(self.dir)
        shutil.rmtree(retired, ignore_errors=True)

    def recover(self, committed: bool) -> list[str]:
        """Finish an interrupted run: keep its files if its record was written, else restore them."""
        plan = self.journal_plan()
        done = []
        if plan is not None and not committed:
            for entry in plan["files"]:  # type: ignore[attr-defined]
                path = Path(entry["path"])
                current = path.read_bytes() if path.exists() else b""
                if sha256(current) != entry["before"]:
                    atomic_write(path, (self.journal / entry["blob"]).read_bytes())
                    done.append(str(path))
        self.end()
        return done

    def sweep(self) -> None:
        """Remove what a killed run may leave: unfinished or retired journals and temp files
        beside the files it was writing (their names are never anything else's)."""
        for stale in self.dir.glob("journal.*"):
            shutil.rmtree(stale, ignore_errors=True)
        dirs = {self.dir}
        plan = self.journal_plan() if self.journal.is_dir() else None
        for entry in plan["files"] if plan else ():  # type: ignore[attr-defined]
            dirs.add(Path(entry["path"]).parent)
        for d in dirs:
            for tmp in d.glob(".*.radpatch-tmp"):
                try:
                    tmp.unlink()
                except OSError:
                    pass

    def journal_plan(self) -> dict[str, object] | None:
        try:
            plan: dict[str, object] = json.loads((self.journal / "plan.json").read_text())
            return plan
        except (OSError, ValueError):
            return None


def _unreadable(folder: Path, why: str) -> EnvironmentProblem:
    return EnvironmentProblem(f"{folder / 'record.json'} is unreadable ({why})",
                              "restore it or remove it; status then re-derives states from the files")


def _durable_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _plain(r: PatchRecord) -> dict[str, object]:
    d = asdict(r)
    d.pop("patch")
    return d

"""What radpatch did to an installation: the record, the kept originals, the journal, the lock.

State lives beside the distribution in `<site-packages>/.radpatch/`:
  record.json   patch -> the installed distribution it was applied to (name, version, sha256 of
                its RECORD), the entry's revision (`registry_digest`), its place in the order of
                runs (`seq`), and per file the sha256 (and code hash) before and after the patch;
                the links of all patches on one file are its chain (pristine -> after patch 1 ->
                after patch 2 ...), read by state.hashes (docs/state.md)
  originals/    each file's bytes from before a patch, content-addressed by sha256: what
                `revert` writes back, byte for byte; and an adopted file's bytes as found
                (what a hand edit on top of it starts from: prove.onto)
  journal/      present only while files are being written: the plan and each file's prior bytes,
                so an interrupted run is rolled back (or, if its record was written, completed)
  lock          fcntl lock serialising radpatch processes; the kernel releases it if one dies
The directory is removed once nothing is recorded and no run is pending.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from radpatch.errors import EnvironmentProblem
from radpatch.files import (
    ChangedMeanwhile,
    atomic_write,
    create_new,
    fsync_dir,
    read_regular,
    remove_empty,
    remove_module,
)
from radpatch.state.touched import Touched, parse, plain

# 3: each file link also carries the code hashes (state.hashes.code_hash) before and after;
# 4: a link may start from no file (ABSENT: a module the patch created) and name the directories it made
FORMAT = 4
# the sha256 a link records for no file at all: a created module's state before (no bytes hash to it)
ABSENT = "0" * 64
_SHA = re.compile(r"[0-9a-f]{64}\Z")
_CODE = re.compile(r"(ast[0-9]+\.[0-9]+:[0-9a-f]{64})?\Z")
_BLOB = re.compile(r"[0-9]+\.before\Z")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def state_sha(data: bytes | None) -> str:
    """A file's state as a link records it: the sha256 of its bytes, or ABSENT for no file."""
    return ABSENT if data is None else sha256(data)


STATE_MAX = 64 << 20  # radpatch's own JSON files are a few KB; anything this large is not one


def _load_json(path: Path) -> Any:
    """A JSON state file, read without blocking (a FIFO or device in its place is an OSError) and
    without following a nesting deeper than the parser's recursion limit (a RecursionError)."""
    return json.loads(read_regular(path, STATE_MAX))


@dataclass(frozen=True)
class FileRecord:
    module: str
    path: str  # relative to the distribution root
    original_sha256: str  # the file before this patch (for a stacked patch: after the one below)
    patched_sha256: str  # the file right after this patch
    # the same two states as code hashes (state.hashes.code_hash: comments and layout do not count),
    # "" in records written before format 3 or for a file that does not parse
    original_code: str = ""
    patched_code: str = ""
    # where the file's chain started when this link was written: the state before every radpatch
    # patch under this one (its own `before` when it was the first), as sha256 and code hash; it
    # stays known when the links under it are replaced later ("" before format 3)
    base_sha256: str = ""
    base_code: str = ""
    # the directories (relative to the root, outermost first) radpatch made to create the file
    # (original_sha256 ABSENT): revert removes each that is empty once the file is gone
    made_dirs: tuple[str, ...] = ()
    # the code hashes before and after, computed by the target interpreter when it is another
    # Python than radpatch's (a code hash is only compared by the Python that computed it): the
    # engine-start self-check runs there ((): the same Python, or written before they were kept)
    target_code: tuple[str, ...] = ()

    @property
    def created(self) -> bool:
        """The patch created the file: its state before is no file."""
        return self.original_sha256 == ABSENT


@dataclass(frozen=True)
class PatchRecord:
    patch: str
    distribution: str
    version: str
    registry_digest: str
    files: tuple[FileRecord, ...]
    seq: int = 0  # order of application among the records of this store (format 1: 0)
    dist_record_sha256: str = ""  # sha256 of the distribution's RECORD when applied ("" in format 1)
    # the entry's `requires:` when it was applied (() before they were recorded): a revert of a
    # requirement, and `status --check`, find this dependent even when its registry is not loaded
    requires: tuple[str, ...] = ()
    # what each rewrite changed (state.touched), so that a run without the entry's registry still
    # checks overlaps with it; None in records written before they were kept
    touches: tuple[Touched, ...] | None = None
    # the entry's `upstream:` links when it was applied (() when it had none, or before they were
    # kept): an SBOM made without the registry still says which upstream change it carries
    upstream: tuple[str, ...] = ()


@dataclass(frozen=True)
class JournalEntry:
    path: Path
    before: str  # ABSENT: the run creates the file
    after: str  # ABSENT: the run deletes the file
    blob: str
    dirs: tuple[Path, ...] = ()  # directories the run makes for the file (outermost first)


@dataclass(frozen=True)
class JournalPlan:
    run: str
    op: str
    patches: tuple[str, ...]
    files: tuple[JournalEntry, ...]


_PARSED: dict[tuple[object, ...], dict[str, PatchRecord]] = {}


class DamagedJournal(EnvironmentProblem):
    pass


@dataclass(frozen=True)
class Store:
    root: Path  # the distribution root (site-packages)

    @property
    def dir(self) -> Path:
        return self.root / ".radpatch"

    @property
    def record_path(self) -> Path:
        return self.dir / "record.json"

    # --- record ---------------------------------------------------------------------------------
    def _raw(self) -> dict[str, object]:
        if self.record_path.is_symlink():  # a dangling link is no absent record: every command refuses it
            raise _link_refusal(self.record_path)
        try:
            raw = _load_json(self.record_path)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            raise _unreadable(self.dir, str(exc))
        if not isinstance(raw, dict):
            raise _unreadable(self.dir, "not a JSON object")
        fmt = raw.get("format", 1)  # format 1 wrote none
        if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
            raise _unreadable(self.dir, f"'format' is {fmt!r}, not a format number")
        if fmt > FORMAT:  # a newer radpatch's record: its meaning is unknown here, so nothing acts on it
            raise EnvironmentProblem(
                f"{self.record_path} was written by a newer radpatch (record format {fmt}; this radpatch "
                f"reads formats 1 to {FORMAT})",
                "upgrade radpatch (pip install --upgrade radpatch), then run the command again: "
                "this radpatch does not act on a record it cannot understand",
            )
        return raw

    def records(self) -> dict[str, PatchRecord]:
        """The record, parsed once per version of record.json (it is only ever replaced whole,
        so its inode, size and mtime name a version)."""
        try:
            st = self.record_path.stat()
            key: tuple[object, ...] = (str(self.record_path), st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = ()
        if key and key in _PARSED:
            return dict(_PARSED[key])
        out = self._parse()
        if key:
            _PARSED.clear()
            _PARSED[key] = out
        return dict(out)

    def _parse(self) -> dict[str, PatchRecord]:
        raw = self._raw()
        patches = raw.get("patches", {})
        if not isinstance(patches, dict):
            raise _unreadable(self.dir, "'patches' is not an object")
        return {name: _patch_record(self.dir, name, r) for name, r in patches.items()}

    def chain(self, relpath: str) -> list[tuple[str, FileRecord]]:
        """Every recorded patch of the file `relpath`, in the order they were applied."""
        recs = sorted(self.records().values(), key=lambda r: r.seq)
        return [(r.patch, f) for r in recs for f in r.files if f.path == relpath]

    def recorded_files(self, relpath: str, besides: str) -> list[FileRecord]:
        """What other patches than `besides` recorded for the file `relpath` (stacked patches)."""
        return [f for name, f in self.chain(relpath) if name != besides]

    def last_run(self) -> str | None:
        """The id of the run that wrote the record last (a journal's run is committed iff equal)."""
        run = self._raw().get("last_run")
        return run if isinstance(run, str) else None

    def keep_original(self, data: bytes) -> None:
        """Keep a file's bytes from before patching (durably, before the record names them)."""
        folder = self.dir / "originals"
        path = folder / sha256(data)
        try:
            folder.mkdir(exist_ok=True)
            if not _holds(path, path.name):
                tmp = folder / f".{path.name}.{os.getpid()}.tmp"
                _durable_write(tmp, data)
                os.replace(tmp, path)
                fsync_dir(folder)
        except OSError as exc:
            raise EnvironmentProblem(f"cannot keep the original in {folder}: {exc.strerror}")

    def original(self, digest: str) -> bytes | None:
        """The kept bytes whose sha256 is `digest`, or None if they are gone (or not those bytes)."""
        try:
            data = read_regular(self.dir / "originals" / digest)
        except OSError:
            return None
        return data if sha256(data) == digest else None

    def save(self, records: dict[str, PatchRecord], run: str) -> None:
        data = {"format": FORMAT, "last_run": run, "patches": {n: _plain(r) for n, r in sorted(records.items())}}
        path = self.record_path
        if not os.path.lexists(path):
            path.write_bytes(b"{}")
        atomic_write(path, json.dumps(data, indent=2, sort_keys=True).encode() + b"\n")
        self.prune(records)  # housekeeping: never fails the run whose record is now written

    def prune(self, records: dict[str, PatchRecord] | None = None) -> None:
        """Drop kept bytes no record names (a rolled-back run may have kept some): each link's
        original, and its result when kept (an adopted file's bytes, which nothing else holds)."""
        files = [f for r in (self.records() if records is None else records).values() for f in r.files]
        wanted = {f.original_sha256 for f in files} | {f.patched_sha256 for f in files}
        originals = self.dir / "originals"
        if originals.is_symlink():  # never delete in a directory it points to
            return
        for kept in originals.glob("*"):
            if kept.name not in wanted:
                with contextlib.suppress(OSError):  # a directory put there is not ours to remove
                    kept.unlink(missing_ok=True)

    def tidy(self) -> None:
        """Leave no trace: remove the state directory once nothing is recorded and no run is
        pending. Called with the lock held; the lock file goes last (see `locked`)."""
        if not self.dir.is_dir() or self.journal.exists() or any(self.dir.glob("journal.*")):
            return
        try:
            if self.records():
                return
        except EnvironmentProblem:
            return  # an unreadable record is the user's to look at, not ours to delete
        with contextlib.suppress(OSError):
            self.record_path.unlink(missing_ok=True)
            shutil.rmtree(self.dir / "originals", ignore_errors=True)
            (self.dir / "lock").unlink(missing_ok=True)
            self.dir.rmdir()
            fsync_dir(self.root)

    def refuse_links(self) -> None:
        """radpatch writes and deletes in its state directory only: a symbolic link at one of its
        paths (the directory, record.json, originals/, journal/, the lock) could send a write or
        a delete anywhere, so none is followed."""
        for path in (self.dir, self.record_path, self.dir / "originals", self.journal, self.dir / "lock"):
            if path.is_symlink():
                raise _link_refusal(path)

    # --- lock -----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        fd = self._lock()
        try:
            yield
        finally:
            os.close(fd)

    def _lock(self) -> int:
        """Lock `.radpatch/lock`, making sure the locked file is still the one at that path: a
        holder that tidies the directory away removes the lock file while holding it, and whoever
        was waiting on the removed file starts again."""
        lock = self.dir / "lock"
        for _ in range(1000):
            self.refuse_links()
            try:
                self.dir.mkdir(exist_ok=True)
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            except FileNotFoundError:
                continue  # the directory was tidied away between mkdir and open
            except OSError as exc:
                raise EnvironmentProblem(
                    f"cannot create radpatch's state in {self.dir}: {exc.strerror}",
                    "run as a user who may write the installation",
                )
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"radpatch: waiting for another radpatch process ({lock})", file=sys.stderr)
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(lock))
            except FileNotFoundError:
                same = False
            if same:
                try:
                    self.refuse_links()  # as it is now that no other radpatch can change it
                except EnvironmentProblem:
                    os.close(fd)
                    raise
                return fd
            os.close(fd)
        raise EnvironmentProblem(
            f"cannot take radpatch's lock {lock}: it keeps being removed", "is another tool deleting it?"
        )

    # --- journal --------------------------------------------------------------------------------
    @property
    def journal(self) -> Path:
        return self.dir / "journal"

    def begin(
        self,
        run: str,
        op: str,
        patches: list[str],
        files: dict[Path, tuple[bytes | None, bytes | None]],
        dirs: dict[Path, tuple[Path, ...]] | None = None,
    ) -> None:
        """Durably save each file's prior bytes and the intended result before touching any (None:
        no file; `dirs`: the directories the run makes for a file it creates)."""
        tmp = self.dir / f"journal.{os.getpid()}.{time.time_ns()}"
        try:
            tmp.mkdir()
            entries = []
            for i, (path, (before, after)) in enumerate(files.items()):
                _durable_write(tmp / f"{i}.before", before or b"")
                entry: dict[str, object] = {
                    "path": str(path),
                    "before": state_sha(before),
                    "after": state_sha(after),
                    "blob": f"{i}.before",
                }
                if dirs and dirs.get(path):
                    entry["dirs"] = [str(d) for d in dirs[path]]
                entries.append(entry)
            _durable_write(
                tmp / "plan.json", json.dumps({"run": run, "op": op, "patches": patches, "files": entries}).encode()
            )
            fsync_dir(tmp)
            os.rename(tmp, self.journal)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise EnvironmentProblem(
                f"cannot write radpatch's journal in {self.dir}: {exc.strerror}; nothing was changed"
            )
        fsync_dir(self.dir)

    def end(self) -> None:
        """Retire the journal in one atomic rename, then delete it at leisure: a crash while
        deleting leaves only a `journal.*` leftover, which `sweep` removes."""
        retired = self.dir / f"journal.done.{os.getpid()}.{time.time_ns()}"
        os.rename(self.journal, retired)
        fsync_dir(self.dir)
        shutil.rmtree(retired, ignore_errors=True)

    def recover(self, committed: bool) -> list[str]:
        """Finish an interrupted run: keep its files if its record was written, else restore them.

        A file is written only when it is in one of the two states that run knew (before or
        after); a file changed since (say, by pip) is left alone and reported."""
        plan = self.journal_plan()
        notes = []
        for entry in plan.files:
            try:
                current: bytes | None = read_regular(entry.path)
            except FileNotFoundError:
                current = None
            except OSError as exc:
                raise EnvironmentProblem(f"cannot read {entry.path} to finish the interrupted run: {exc.strerror}")
            digest = state_sha(current)
            if digest == (entry.after if committed else entry.before):
                if not committed:
                    remove_empty(entry.dirs)  # a file it was to create, never created: its directories go too
                continue
            if not committed and digest == entry.after:
                if entry.before == ABSENT:  # the run created it: remove it again
                    remove_module(entry.path, entry.after, entry.dirs)
                    notes.append(f"removed {entry.path}")
                    continue
                blob = read_regular(self.journal / entry.blob)
                if current is None:  # the run deleted it: create it again
                    with contextlib.suppress(ChangedMeanwhile):
                        entry.path.parent.mkdir(parents=True, exist_ok=True)
                        create_new(entry.path, blob)
                else:
                    atomic_write(entry.path, blob, expect=entry.after)
                notes.append(f"restored {entry.path}")
            else:
                what = "is gone" if current is None else "changed since (neither its state before nor after that run)"
                notes.append(f"left {entry.path} alone: it {what}; check it with `radpatch status`")
        if not committed:
            self.prune()
        self.end()
        return notes

    def sweep(self) -> None:
        """Remove what a killed run may leave: unfinished or retired journals and temp files
        beside the files it was writing (their names are never anything else's)."""
        for stale in self.dir.glob("journal.*"):
            shutil.rmtree(stale, ignore_errors=True)
        for tmp in (self.dir / "originals").glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        dirs = {self.dir}
        if self.journal.is_dir():
            dirs |= {e.path.parent for e in self.journal_plan().files}
        for d in dirs:
            for tmp in d.glob(".*.radpatch-tmp"):
                try:
                    tmp.unlink()
                except OSError:
                    pass

    def journal_plan(self) -> JournalPlan:
        """The interrupted run's plan, checked: every field of the right type, every blob there and
        holding the bytes the plan says. Anything else is a DamagedJournal naming what to do."""
        try:
            raw = _load_json(self.journal / "plan.json")
        except FileNotFoundError:
            raise self._damaged("its plan.json is missing")
        except (OSError, ValueError, RecursionError) as exc:
            raise self._damaged(f"its plan.json is unreadable: {exc}")
        try:
            files = tuple(self._entry(e) for e in raw["files"])
            plan = JournalPlan(raw["run"], raw["op"], tuple(raw["patches"]), files)
            if not (
                isinstance(plan.run, str)
                and plan.op in ("apply", "revert")
                and all(isinstance(p, str) for p in plan.patches)
            ):
                raise TypeError("run, op or patches")
        except (KeyError, TypeError, AttributeError) as exc:
            raise self._damaged(f"its plan.json has an unexpected structure ({exc})")
        return plan

    def _entry(self, e: dict[str, object]) -> JournalEntry:
        path, before, after, blob, dirs = e["path"], e["before"], e["after"], e["blob"], e.get("dirs", [])
        if not (
            isinstance(path, str)
            and os.path.isabs(path)
            and isinstance(before, str)
            and _SHA.match(before)
            and isinstance(after, str)
            and _SHA.match(after)
            and isinstance(blob, str)
            and _BLOB.match(blob)
            and isinstance(dirs, list)
            and all(isinstance(d, str) and os.path.isabs(d) for d in dirs)
        ):
            raise TypeError(f"file entry {e!r}")
        try:
            data = read_regular(self.journal / blob)
        except OSError:
            raise self._damaged(f"it lacks {blob}, the saved bytes of {path}")
        if sha256(data) != before and not (before == ABSENT and not data):
            raise self._damaged(f"{blob} does not hold the saved bytes of {path}")
        return JournalEntry(Path(path), before, after, blob, tuple(Path(d) for d in dirs))

    def _damaged(self, why: str) -> DamagedJournal:
        return DamagedJournal(
            f"the journal of an interrupted radpatch run, {self.journal}, is damaged: {why}; "
            "radpatch cannot tell what that run changed",
            f"see each patch's state with `radpatch status`; reinstall the distribution where one is drifted "
            f"(pip install --force-reinstall --no-deps NAME), then remove {self.journal}",
        )


def _patch_record(folder: Path, name: object, r: object) -> PatchRecord:
    """One record entry, checked field by field (a record of the wrong shape is exit 4, never 70)."""
    try:
        if not isinstance(r, dict):
            raise TypeError("the entry is not an object")
        files = tuple(_file_record(f) for f in r["files"])
        seq, dist_sha, requires = r.get("seq", 0), r.get("dist_record_sha256", ""), r.get("requires", [])
        upstream = r.get("upstream", [])
        _need(
            isinstance(upstream, list) and all(isinstance(n, str) for n in upstream), "upstream is not a list of links"
        )
        _need(
            isinstance(requires, list) and all(isinstance(n, str) for n in requires), "requires is not a list of names"
        )
        rec = PatchRecord(
            str(name),
            r["distribution"],
            r["version"],
            r["registry_digest"],
            files,
            seq,
            dist_sha,
            tuple(requires),
            parse(r.get("touches")),
            tuple(upstream),
        )
        _need(
            all(
                isinstance(v, str) for v in (rec.distribution, rec.version, rec.registry_digest, rec.dist_record_sha256)
            ),
            "a field is not a string",
        )
        _need(isinstance(rec.seq, int) and not isinstance(rec.seq, bool), "seq is not an integer")
        return rec
    except (AttributeError, KeyError, TypeError) as exc:
        raise _unreadable(folder, f"unexpected structure in the entry {name!r}: {exc}")


def _file_record(f: dict[str, object]) -> FileRecord:
    made, target = f.get("made_dirs", []), f.get("target_code", [])
    _need(isinstance(made, list) and all(isinstance(d, str) for d in made), f"made_dirs of {f!r}")
    _need(isinstance(target, list) and all(isinstance(c, str) and _CODE.match(c) for c in target), "target_code")
    rec = FileRecord(**{**f, "made_dirs": tuple(made), "target_code": tuple(target)})  # type: ignore[arg-type]
    _need(isinstance(rec.module, str) and isinstance(rec.path, str), f"file entry {f!r}")
    for digest in (rec.original_sha256, rec.patched_sha256):
        _need(isinstance(digest, str) and bool(_SHA.match(digest)), f"not a sha256: {digest!r}")
    _need(isinstance(rec.base_sha256, str) and bool(_SHA.match(rec.base_sha256) or not rec.base_sha256), "base")
    for code in (rec.original_code, rec.patched_code, rec.base_code):
        _need(isinstance(code, str) and bool(_CODE.match(code)), f"not a code hash: {code!r}")
    return rec


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise TypeError(what)


def _link_refusal(path: Path) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"radpatch's state {path} is a symbolic link; radpatch never writes or deletes through one",
        "remove the link (its target is left alone) and run radpatch again",
    )


def _unreadable(folder: Path, why: str) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"{folder / 'record.json'} is unreadable ({why})",
        "restore it or remove it; status then re-derives states from the files",
    )


def _durable_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _plain(r: PatchRecord) -> dict[str, object]:
    d = asdict(r)
    d.pop("patch")
    d["touches"] = plain(r.touches)
    if d["touches"] is None:
        d.pop("touches")
    if not r.upstream:
        d.pop("upstream")  # the record as before links were kept: older radpatch reads it unchanged
    return d


def _holds(path: Path, digest: str) -> bool:
    """Does `path` hold bytes of sha256 `digest`? Not when it is missing, unreadable or no regular
    file (then it is written again)."""
    try:
        return sha256(read_regular(path)) == digest
    except OSError:
        return False

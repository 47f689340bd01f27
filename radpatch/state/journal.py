"""The journal, `.radpatch/journal/`: present only while files are being written, it holds the
run's plan and each file's prior bytes, so that an interrupted run is rolled back (or, if its record
was written, completed) by the next one; and what a killed run may leave, swept.

Each file is named relative to the install root (the venv may be moved or copied before the next
run), with the installation it belongs to (`InstallOf`: its dist-info and install identity, as the
record names installs): a file is written back only while that very install is there."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

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
from radpatch.state.journal_install import InstallOf, installed_bytes, listed, replaced
from radpatch.state.layout import ABSENT, durable_write, load_json, sha256, state_sha
from radpatch.state.record_file import inside
from radpatch.state.salvaged import Salvaged

_SHA = re.compile(r"[0-9a-f]{64}\Z")
_BLOB = re.compile(r"[0-9]+\.before\Z")


@dataclass(frozen=True)
class JournalEntry:
    path: Path  # the install root joined with `relpath`
    before: str  # ABSENT: the run creates the file
    after: str  # ABSENT: the run deletes the file
    blob: str
    dirs: tuple[Path, ...] = ()  # directories the run makes for the file (outermost first)
    relpath: str = ""  # "": a journal of an older radpatch naming a path outside this root (moved since)
    install: InstallOf | None = None  # None: a journal of an older radpatch, which did not say


@dataclass(frozen=True)
class JournalPlan:
    run: str
    op: str
    patches: tuple[str, ...]
    files: tuple[JournalEntry, ...]


class DamagedJournal(EnvironmentProblem):
    pass


class Journal(Salvaged):
    """Writing, finishing and checking the journal (a part of state.record's `Store`)."""

    def begin(
        self,
        run: str,
        op: str,
        patches: list[str],
        files: dict[Path, tuple[bytes | None, bytes | None]],
        dirs: dict[Path, tuple[Path, ...]] | None = None,
        installs: dict[Path, InstallOf] | None = None,
    ) -> None:
        """Durably save each file's prior bytes and the intended result before touching any (None:
        no file; `dirs`: the directories the run makes for a file it creates; `installs`: the
        installation each file belongs to)."""
        tmp = self.dir / f"journal.{os.getpid()}.{time.time_ns()}"
        try:
            tmp.mkdir()
            entries = []
            for i, (path, (before, after)) in enumerate(files.items()):
                durable_write(tmp / f"{i}.before", before or b"")
                entry: dict[str, object] = {
                    "path": self._rel(path),
                    "before": state_sha(before),
                    "after": state_sha(after),
                    "blob": f"{i}.before",
                }
                if dirs and dirs.get(path):
                    entry["dirs"] = [self._rel(d) for d in dirs[path]]
                if installs and path in installs:
                    entry["install"] = asdict(installs[path])
                entries.append(entry)
            durable_write(
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
        after) and its install is the one that run planned against. A file changed since (a
        comment, or gone) is left alone, its bytes from before the run kept (state.salvaged); one of
        another install (pip upgraded or reinstalled it) is left alone, that run's bytes dropped."""
        plan = self.journal_plan()
        notes = []
        for entry in plan.files:
            if not entry.relpath:
                notes.append(f"left {entry.path} alone: that run named it outside {self.root} (moved since?)")
                continue
            digest = state_sha(self._current(entry))
            if committed or digest == entry.before:
                if not committed and entry.before == ABSENT and not replaced(self.root, entry.install, plan.op):
                    remove_empty(entry.dirs)  # a file it was to create, never created: its directories go too
                if digest != (entry.after if committed else entry.before):
                    notes.append(self._left(entry, digest, keep=False))
                continue
            other = replaced(self.root, entry.install, plan.op)
            if other and entry.before == ABSENT and digest == entry.after and not listed(self.root, entry.relpath):
                # a module the run created, exactly its bytes, no file of the install now: radpatch's own, removed
                notes.append(f"{self._undo(entry)} (that interrupted {plan.op} created it; no install has it)")
            elif other:
                notes.append(
                    f"left {entry.relpath} as it is: {other}; that run's bytes of it, the old install's, "
                    "are dropped (the files decide its state, as after any reinstall)"
                )
            elif digest == entry.after and entry.install is not None:
                notes.append(self._undo(entry))
            else:
                notes.append(self._left(entry, digest, keep=True))
        if not committed:
            self.prune()
        self.end()
        return notes

    def _current(self, entry: JournalEntry) -> bytes | None:
        try:
            return read_regular(entry.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise EnvironmentProblem(f"cannot read {entry.path} to finish the interrupted run: {exc.strerror}")

    def _undo(self, entry: JournalEntry) -> str:
        """Put back the file as it was before the run (it is exactly as the run left it)."""
        if entry.before == ABSENT:  # the run created it: remove it again
            remove_module(entry.path, entry.after, entry.dirs)
            return f"removed {entry.path}"
        blob = read_regular(self.journal / entry.blob)
        if entry.after == ABSENT:  # the run deleted it: create it again
            with contextlib.suppress(ChangedMeanwhile):
                entry.path.parent.mkdir(parents=True, exist_ok=True)
                create_new(entry.path, blob)
        else:
            atomic_write(entry.path, blob, expect=entry.after)
        return f"restored {entry.path}"

    def _left(self, entry: JournalEntry, digest: str, keep: bool) -> str:
        """The note for a file the recovery cannot decide on; `keep`: its bytes from before the run
        are kept (state.salvaged) where `radpatch restore` finds them."""
        if digest == ABSENT:
            what = "it is gone"
        elif entry.install is None and digest == entry.after:
            what = "its journal, of an older radpatch, does not say which install it was for"
        else:
            what = "it changed since (neither its state before nor after that run)"
        kept = ""
        if keep and entry.before != ABSENT:
            install = entry.install or InstallOf("", "", "", "")
            blob = read_regular(self.journal / entry.blob)
            sha = self.salvage(blob, entry.relpath, install.dist_info, install.identity)
            kept = (
                f"; radpatch keeps its installed bytes: `radpatch restore {entry.relpath}` puts them back"
                if installed_bytes(self.root, entry.install, entry.relpath, sha)
                else f"; its bytes from before that run are kept in {self.dir / 'originals' / sha}"
            )
        return f"left {entry.path} alone: {what}{kept}; check it with `radpatch status`"

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
            raw = load_json(self.journal / "plan.json")
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

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _entry(self, e: dict[str, object]) -> JournalEntry:
        path, before, after, blob, dirs = e["path"], e["before"], e["after"], e["blob"], e.get("dirs", [])
        install = e.get("install")
        if not (
            isinstance(path, str)
            and isinstance(before, str)
            and _SHA.match(before)
            and isinstance(after, str)
            and _SHA.match(after)
            and isinstance(blob, str)
            and _BLOB.match(blob)
            and isinstance(dirs, list)
            and all(isinstance(d, str) and (inside(d) or os.path.isabs(d)) for d in dirs)
            and (inside(path) or os.path.isabs(path))
            and (install is None or isinstance(install, dict))
        ):
            raise TypeError(f"file entry {e!r}")
        of = InstallOf(**install) if install is not None else None  # a wrong field is a TypeError
        if of is not None and not all(isinstance(v, str) and v for v in asdict(of).values()):
            raise TypeError(f"install of {e!r}")
        try:
            data = read_regular(self.journal / blob)
        except OSError:
            raise self._damaged(f"it lacks {blob}, the saved bytes of {path}")
        if sha256(data) != before and not (before == ABSENT and not data):
            raise self._damaged(f"{blob} does not hold the saved bytes of {path}")
        rel = path
        if os.path.isabs(path):  # an older radpatch's journal: absolute paths, inside this root unless moved
            rel = self._rel(Path(path)) if Path(path).is_relative_to(self.root) else ""
        where = (self.root / d for d in dirs)  # an absolute d: joining keeps it
        return JournalEntry(self.root / path, before, after, blob, tuple(where), rel, of)

    def _damaged(self, why: str) -> DamagedJournal:
        return DamagedJournal(
            f"the journal of an interrupted radpatch run, {self.journal}, is damaged: {why}; "
            "radpatch cannot tell what that run changed",
            f"see each patch's state with `radpatch status`; reinstall the distribution where one is drifted "
            f"(pip install --force-reinstall --no-deps NAME), then remove {self.journal}",
        )

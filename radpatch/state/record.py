"""What radpatch did to an installation: the record, the kept originals, the journal, the lock,
as one `Store`; each part is a module of its own (state.layout, record_file, originals, journal,
lock), and this one puts them together and tidies the directory away.

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
  salvaged.json bytes from before an interrupted run that its recovery could not put back, kept in
                originals/ while the file may still need them (state.salvaged)
  lock          fcntl lock serialising radpatch processes; the kernel releases it if one dies
The directory is removed once nothing is recorded and no run is pending.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass

from radpatch.errors import EnvironmentProblem
from radpatch.files import fsync_dir
from radpatch.state.journal import DamagedJournal, Journal, JournalEntry, JournalPlan
from radpatch.state.layout import ABSENT, STATE_MAX, sha256, state_sha
from radpatch.state.lock import Lock
from radpatch.state.record_file import FORMAT, FileRecord, PatchRecord

__all__ = [
    "ABSENT",
    "FORMAT",
    "STATE_MAX",
    "DamagedJournal",
    "FileRecord",
    "JournalEntry",
    "JournalPlan",
    "PatchRecord",
    "Store",
    "sha256",
    "state_sha",
]


@dataclass(frozen=True)
class Store(Journal, Lock):
    """radpatch's state beside one installation directory: the record (state.record_file), the kept
    originals (state.originals, and state.salvaged's bytes an interrupted run left), the journal
    (state.journal) and the lock (state.lock)."""

    def tidy(self) -> None:
        """Leave no trace: remove the state directory once nothing is recorded and no run is
        pending. Called with the lock held; the lock file goes last (see `locked`)."""
        if not self.dir.is_dir() or self.journal.exists() or any(self.dir.glob("journal.*")):
            return
        try:
            salvaged = self.salvage_needed()  # settled first: entries no longer needed go
            if self.records() or salvaged:
                return
        except EnvironmentProblem:
            return  # an unreadable record is the user's to look at, not ours to delete
        with contextlib.suppress(OSError):
            self.record_path.unlink(missing_ok=True)
            (self.dir / "salvaged.json").unlink(missing_ok=True)
            shutil.rmtree(self.dir / "originals", ignore_errors=True)
            (self.dir / "lock").unlink(missing_ok=True)
            self.dir.rmdir()
            fsync_dir(self.root)

"""The install watched while the target interpreter runs target code: every child import_runner.run
starts (the import check's, import_process.py, and the placement check's guarded imports,
guarded_imports.py) runs inside a watch. The children's read-only hook (read_only.READ_ONLY)
refuses writes inside the Python processes it can reach, but not those of Python started with -I,
-S or -E, of compiled code or of another program; whatever they wrote into the install is found
after the fact: every file and directory under the install's roots (`read_only.install_roots`: the
site directories of the target's import path and its scripts directory; kind, size, mtime_ns,
ctime_ns, inode), before the first child and after the last; any change refuses the run, naming the
files.

One snapshot per watch, not per child: a command opens a watch (`watching`) around the proof, and
all the children run in it share the snapshot taken before the first of them (none when no child
runs: a plain apply that asks the target nothing walks nothing); the install is compared once, when
the watch ends, a refusal from inside it included (a write past the hook is the refusal said first).
A watch may start from the snapshot an earlier one ended with (`since`), so apply's proof and its
import check walk the install three times in all, not four. A child run with no watch open is
watched alone, compared as soon as it ends."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator, Sequence

from radpatch.errors import RadpatchError, RefusedError
from radpatch.prove import read_only


@dataclasses.dataclass(frozen=True)
class Check:
    """What a child runs for: its check's name and what it did, as the refusal says them."""

    name: str
    did: str


IMPORT_CHECK = Check("import check", "the check imported the patched modules")
GUARDED_IMPORT = Check("placement check", "the target interpreter was asked whether a guarded import succeeds")


@dataclasses.dataclass
class Watch:
    """One watch: whose run it is (the patches, for the refusal), the roots walked and the snapshot
    taken before its first child, the checks whose children ran, and (once it ended) the snapshot
    after."""

    who: str
    roots: list[str] = dataclasses.field(default_factory=list)
    before: read_only.Snapshot = dataclasses.field(default_factory=dict)
    ran: list[Check] = dataclasses.field(default_factory=list)
    after: read_only.Snapshot | None = None

    def enter(self, roots: Sequence[str], check: Check) -> None:
        """A child is about to run: the roots not walked yet walked now (the first child's: all)."""
        new = [r for r in roots if r not in self.roots]
        if new:
            self.before.update(read_only.snapshot(new))
            self.roots += new
        if check not in self.ran:
            self.ran.append(check)

    def settle(self) -> None:
        """Compare the install with the snapshot before; refuse when it changed."""
        if not self.ran:
            return
        self.after = read_only.snapshot(self.roots)
        gone = read_only.changed(self.before, self.after)
        if gone:
            refusal = _refusal(self.who, self.ran, gone)
            _given.append(refusal)
            raise refusal


_open: list[Watch] = []  # the watches open now, innermost last
_given: list[RefusedError] = []  # the refusals the watches gave (said: a caller's later refusal does not replace one)


def said(exc: BaseException) -> bool:
    """Whether `exc` is a watch's refusal: the install changed, which no other refusal replaces."""
    return any(exc is given for given in _given)


@contextlib.contextmanager
def watching(who: str, since: Watch | None = None) -> Iterator[Watch]:
    """Every child run inside is watched by this one watch (see the module's docstring). `since`: an
    earlier watch that ended with no change; its last snapshot is this one's before."""
    watch = Watch(who)
    if since is not None and since.after is not None:
        watch.roots, watch.before = list(since.roots), dict(since.after)
    _open.append(watch)
    try:
        yield watch
    except RadpatchError:  # a refusal of the check: a write past the hook is the one to say first
        _open.remove(watch)
        watch.settle()
        raise  # (an interrupt is not held up by a walk)
    finally:
        if watch in _open:
            _open.remove(watch)
    watch.settle()


@contextlib.contextmanager
def child(executable: str, import_path: Sequence[str], check: Check) -> Iterator[None]:
    """One child of the target interpreter `executable` with `import_path`: run inside the innermost
    watch open, or watched alone."""
    roots = read_only.install_roots(import_path, os.path.dirname(executable))
    if not _open:
        with watching(""):
            with child(executable, import_path, check):
                yield
        return
    _open[-1].enter(roots, check)
    yield


def _refusal(who: str, ran: Sequence[Check], gone: Sequence[str]) -> RefusedError:
    listed = ", ".join(gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    checks = " and ".join(c.name for c in ran)
    did = " and while ".join(c.did for c in ran)
    return RefusedError(
        f"{who + ': ' if who else ''}{checks}: the install changed while {did} ({listed}): something the import "
        "started wrote there past the check's read-only hook (Python run with -I, -S or -E, compiled code, or "
        "another program); nothing was written by radpatch",
        "compare those files with the installed ones and put them back (radpatch restore FILE for a file "
        "the distribution installed, or reinstall it); then find what the module's import starts",
    )

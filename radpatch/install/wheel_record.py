"""A distribution's RECORD, searched as bytes; what was asked of it is remembered per process.

vLLM's RECORD lists some 9,000 files (about 1 MiB); radpatch needs the rows of the few files a
patch touches, whether a RECORD lists a file at all, and the RECORD's own sha256. Parsing every
row into a dict cost more memory than the rest of `status`; a RECORD as pip writes it (\\r\\n or \\n
line ends, whole fields quoted where a path has a comma) is searched as bytes for the rows naming
the file, each read with csv on its own line; any other RECORD is read whole with csv once. The
answers are what a dict of csv's rows would give (the last row with a sha256 wins), and only they
are kept (per path, inode, mtime and size), not the file.

The engine-start self-check (plugin.py) uses it too: it needs nothing but the standard library
and files.read_regular.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from radpatch.files import read_regular

if TYPE_CHECKING:
    from radpatch.install.environment import Installed

_Stamp = tuple[int, int, int]


@dataclass
class _Seen:
    stamp: _Stamp
    sha256: str  # of the RECORD's bytes
    install: str  # of its rows but those pip writes anew per install (_PER_INSTALL): the install's identity
    answers: dict[str, tuple[bool, str | None]]  # relpath -> (listed, its sha256 hex or None)
    complete: bool  # answers hold every row (a RECORD csv had to read whole)
    plain: bool | None = None  # _plain(its bytes), once known


_SEEN: dict[str, _Seen] = {}


def _stamp(path: str) -> _Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _seen(path: Path, relpath: str | None) -> _Seen | None:
    """What is known of the RECORD at `path` (None: unreadable), reading it again only for a path
    not asked about before (or once it changed)."""
    key = os.fspath(path)
    stamp = _stamp(key)
    if stamp is None:
        return None
    seen = _SEEN.get(key)
    if seen is None or seen.stamp != stamp or not (relpath is None or seen.complete or relpath in seen.answers):
        try:
            data = read_regular(path)  # a FIFO or device in its place is unreadable, never a read that blocks
        except OSError:
            return None
        if seen is None or seen.stamp != stamp:
            seen = _SEEN[key] = _Seen(stamp, hashlib.sha256(data).hexdigest(), _identity(data), {}, False)
        if seen.plain is None:
            seen.plain = _plain(data)
        if not seen.plain:
            seen.answers, seen.complete = _every_row(data), True
        elif relpath is not None:
            seen.answers[relpath] = _lookup(data, relpath)
    return seen


def _answer(path: Path, relpath: str | None) -> tuple[str, tuple[bool, str | None]]:
    """(sha256 of the RECORD, (is relpath listed, RECORD's sha256 of it)), reading the file
    again only for a path not asked about before (or once it changed): the file itself is not
    kept, only the answers."""
    seen = _seen(path, relpath)
    if seen is None:
        return "", (False, None)
    return seen.sha256, (False, None) if relpath is None else seen.answers.get(relpath, (False, None))


# what pip (and uv) write into .dist-info at each install, whatever the wheel: where it came from
# (direct_url.json holds the wheel file's own hash, new for a wheel rebuilt from the same files),
# which installer, whether it was asked for by name
_PER_INSTALL = re.compile(rb'"?[^/\r\n,"]+\.dist-info/(?:direct_url\.json|INSTALLER|REQUESTED)"?,')


def _identity(data: bytes) -> str:
    """sha256 of RECORD's lines but those of the files pip writes per install: equal for two
    installs of the same files, whichever wheel file (or installer) they came from."""
    kept = [line for line in data.split(b"\n") if not _PER_INSTALL.match(line)]
    return hashlib.sha256(b"\n".join(kept)).hexdigest()


@dataclass(frozen=True)
class InstallId:
    """Which install of a distribution a record was written for: a record holds `files` (format 5
    on), or `record`, the sha256 of RECORD's bytes (formats 2 to 4: a reinstall from a rebuilt but
    identical wheel changes them, through direct_url.json). Empty: RECORD could not be read."""

    files: str = ""  # sha256 of RECORD without the rows of the files pip writes per install
    record: str = ""  # sha256 of RECORD's bytes

    def holds(self, stored: str) -> bool:
        """Is `stored` (a record's) this install's identity, in either spelling?"""
        return stored in (self.files, self.record) and bool(stored)


def identity(path: Path) -> InstallId:
    """The install identity of the RECORD at `path` (both spellings); empty when it cannot be read."""
    seen = _seen(path, None)
    return InstallId() if seen is None else InstallId(seen.install, seen.sha256)


_FIELD = rb'(?:"(?:[^"\r\n]+|"")*"|[^",\r\n]*)'
_SAFE_LINE = re.compile(rb"%s(?:,%s)*\r?" % (_FIELD, _FIELD))  # each field unquoted, or quoted whole


def _plain(data: bytes) -> bool:
    """Can each line be read as one row, on its own, exactly as csv reads the whole file? Yes when
    there is no NUL, every CR ends a line (\\r\\n) and every line that has a quote quotes whole
    fields only (as pip's csv writer does for a path with a comma): no quoted field then spans
    lines."""
    if b"\0" in data or data.count(b"\r") != data.count(b"\r\n"):
        return False
    at = data.find(b'"')
    while at >= 0:  # each line with a quote, once
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        if not _SAFE_LINE.fullmatch(data, start, end):
            return False
        at = data.find(b'"', end)
    return True


def _lookup(data: bytes, relpath: str) -> tuple[bool, str | None]:
    """(listed, sha256 of the last row naming it that has one) in a plain RECORD: what a dict
    built from csv's rows, skipping rows without a sha256, would say."""
    plain = relpath.encode("utf-8", "surrogateescape")
    needles = (plain + b",", b'"' + plain.replace(b'"', b'""') + b'",')  # as written, or quoted by csv
    starts = set()  # where the rows that may name it start
    for needle in needles:
        i = len(data)
        while (i := data.rfind(b"\n" + needle, 0, i)) >= 0:
            starts.add(i + 1)
        if data.startswith(needle):
            starts.add(0)
    listed = False
    for start in sorted(starts, reverse=True):  # the last row first
        end = data.find(b"\n", start)
        line = data[start : end if end >= 0 else len(data)].rstrip(b"\r").decode("utf-8", "surrogateescape")
        fields = next(csv.reader([line]), []) if '"' in line else line.split(",")
        if not fields or fields[0] != relpath:
            continue
        listed = True
        if len(fields) >= 2 and fields[1].startswith("sha256="):
            return True, hex_digest(fields[1])
    return listed, None


def _every_row(data: bytes) -> dict[str, tuple[bool, str | None]]:
    """Every row of a RECORD that needs csv (quoted fields, bare CRs): read once, whole. One csv
    cannot read (a NUL on Python 3.10, a quote left open) lists nothing."""
    out: dict[str, tuple[bool, str | None]] = {}
    try:
        for row in csv.reader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline="")):
            if not row:
                continue
            hashed = len(row) >= 2 and row[1].startswith("sha256=")
            if hashed or row[0] not in out:
                out[row[0]] = (True, hex_digest(row[1]) if hashed else None)
    except csv.Error:
        return {}
    return out


def hex_digest(field: str) -> str | None:
    """The hex sha256 of a RECORD hash field (`sha256=<urlsafe base64>`), or None if it does not decode."""
    raw = field[len("sha256=") :]
    try:
        return base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).hex()
    except ValueError:
        return None


def rows(path: Path) -> dict[str, str | None]:
    """Every path the RECORD at `path` lists, in order, with its sha256 hex (the last row that has
    one; None: listed without one). Rows outside the install directory (absolute, or with a `..`)
    are left out. Unreadable is an OSError, unparsable a csv.Error. (The whole RECORD, parsed: for
    the commands that scan a distribution's every file; the lookups above need no parse.)"""
    text = read_regular(path).decode("utf-8", "surrogateescape")
    out: dict[str, str | None] = {}
    for row in csv.reader(io.StringIO(text, newline="")):
        if not row or row[0].startswith("/") or ".." in row[0].split("/"):
            continue
        hashed = hex_digest(row[1]) if len(row) > 1 and row[1].startswith("sha256=") else None
        if hashed or row[0] not in out:
            out[row[0]] = hashed
    return out


def digest(path: Path) -> str:
    """sha256 (hex) of the RECORD file's bytes as they are on disk; "" when it cannot be read."""
    return _answer(path, None)[0]


def lists(path: Path, relpath: str) -> bool:
    """Does the RECORD at `path` list `relpath` (a row whose first field is it)?"""
    return _answer(path, relpath)[1][0]


def sha256_of(path: Path, relpath: str) -> str | None:
    """RECORD's sha256 (hex) of `relpath` (its last row that has one), or None."""
    return _answer(path, relpath)[1][1]


def unlisted_dirs(dist: Installed | None, paths: Iterable[Path]) -> dict[Path, tuple[Path, ...]]:
    """Per module a change adopts where there was none (created by hand, or by `patch`): the
    directories above it, outermost first, that the distribution's RECORD lists no file in. They
    were made for it as apply makes them for a module it creates, so its record (state.recording)
    names them and revert removes them once empty (capture records a package made by hand through this too)."""
    paths = list(paths)
    if dist is None or not paths:
        return {}
    try:
        listed = {p.rsplit("/", 1)[0] for p in rows(dist.dist_info / "RECORD") if "/" in p}
    except (OSError, csv.Error):
        return {}
    listed = {"/".join(d.split("/")[:i]) for d in listed for i in range(1, d.count("/") + 2)}
    out: dict[Path, tuple[Path, ...]] = {}
    for path in paths:
        parts = path.relative_to(dist.root).parts[:-1]
        above = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        out[path] = tuple(dist.root / d for d in above if d not in listed)
    return out

"""A distribution's RECORD, searched as bytes; what was asked of it is remembered per process.

vLLM's RECORD lists some 9,000 files (about 1 MiB); radpatch needs the rows of the few files a
patch touches, whether a RECORD lists a file at all, and the RECORD's own sha256. Parsing every
row into a dict cost more memory than the rest of `status`; here a row is found with one search
of the file's bytes and parsed with csv, and only the answers are kept (per path, inode, mtime
and size), not the file.

The engine-start self-check (plugin.py) uses it too: it needs nothing but the standard library
and writer.read_regular.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import os
from pathlib import Path

from radpatch.writer import read_regular

_Stamp = tuple[int, int, int]
_SEEN: dict[str, tuple[_Stamp, str, dict[str, list[str] | None]]] = {}  # path -> (stamp, sha256, rows asked for)


def _stamp(path: str) -> _Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _answers(path: Path, relpath: str | None) -> tuple[str, dict[str, list[str] | None]]:
    """(sha256 of the RECORD, the rows asked for so far), reading the file again only for a
    path not asked for before (or once it changed). The file itself is not kept: one read holds
    it in memory for as long as the search takes."""
    key = os.fspath(path)
    stamp = _stamp(key)
    if stamp is None:
        return "", {}
    hit = _SEEN.get(key)
    if hit is not None and hit[0] == stamp and (relpath is None or relpath in hit[2]):
        return hit[1], hit[2]
    try:
        data = read_regular(path)  # a FIFO or device in its place is unreadable, never a read that blocks
    except OSError:
        return "", {}
    rows = hit[2] if hit is not None and hit[0] == stamp else {}
    if relpath is not None:
        rows[relpath] = _find(data, relpath)
    sha = hashlib.sha256(data).hexdigest()
    _SEEN[key] = (stamp, sha, rows)
    return sha, rows


def _find(data: bytes, relpath: str) -> list[str] | None:
    """The last row whose first field is `relpath` (as csv reads it; pip ends rows with \\r\\n)."""
    plain = relpath.encode("utf-8", "surrogateescape")
    starts = (plain + b",", b'"' + plain.replace(b'"', b'""') + b'",')  # as written, or quoted by csv
    hits = [i + 1 for s in starts if (i := data.rfind(b"\n" + s)) >= 0] + [0 for s in starts if data.startswith(s)]
    if not hits:
        return None
    best = max(hits)
    end = data.find(b"\n", best)
    line = data[best: end if end >= 0 else len(data)].rstrip(b"\r").decode("utf-8", "surrogateescape")
    fields = next(csv.reader([line]), [])
    return fields if fields and fields[0] == relpath else None


def digest(path: Path) -> str:
    """sha256 (hex) of the RECORD file's bytes as they are on disk; "" when it cannot be read."""
    return _answers(path, None)[0]


def row(path: Path, relpath: str) -> list[str] | None:
    """The last row of RECORD whose first field is `relpath`, or None."""
    return _answers(path, relpath)[1].get(relpath)


def lists(path: Path, relpath: str) -> bool:
    """Does the RECORD at `path` list `relpath`?"""
    return row(path, relpath) is not None


def sha256_of(path: Path, relpath: str) -> str | None:
    """RECORD's sha256 (hex) of `relpath`, or None when it does not list it with a sha256."""
    fields = row(path, relpath)
    if fields is None or len(fields) < 2 or not fields[1].startswith("sha256="):
        return None
    raw = fields[1][7:]
    try:
        return base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).hex()
    except ValueError:
        return None

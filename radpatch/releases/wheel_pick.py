"""Which wheel of a release is read (the one pip would pick for this interpreter), which of its
dist-info files come with it, and its members checked against its RECORD."""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
from collections.abc import Iterable

from packaging.tags import sys_tags
from packaging.utils import parse_wheel_filename

from radpatch.releases import remotezip
from radpatch.releases.index_pages import IndexFile

DIST_INFO_FILES = ("RECORD", "METADATA", "WHEEL", "top_level.txt")


def pick_wheel(wheels: Iterable[IndexFile]) -> IndexFile | None:
    """The wheel pip would pick for this interpreter (tag priority, then build number); else any wheel."""
    priority = _tag_priority()
    best: tuple[float, int, str] | None = None
    chosen = None
    for w in wheels:
        _, _, build, tags = parse_wheel_filename(w.filename)
        rank = min((priority.get(str(t), len(priority)) for t in tags), default=len(priority))
        key = (float(rank), -(build[0] if build else 0), w.filename)
        if best is None or key < best:
            best, chosen = key, w
    return chosen


@functools.lru_cache(maxsize=1)
def _tag_priority() -> dict[str, int]:
    return {str(t): i for i, t in enumerate(sys_tags())}


def _dist_info_file(name: str) -> bool:
    top, _, rest = name.partition("/")
    return top.endswith(".dist-info") and rest in DIST_INFO_FILES


def _check_record(wheel: str, data: dict[str, bytes], modules: Iterable[str]) -> None:
    record = next((content for name, content in data.items() if name.endswith(".dist-info/RECORD")), None)
    if record is None:
        return
    hashes = {row[0]: row[1] for row in csv.reader(io.StringIO(record.decode("utf-8", "replace"))) if len(row) >= 2}
    for name in modules:
        want = hashes.get(name, "")
        if name in data and want.startswith("sha256="):
            got = base64.urlsafe_b64encode(hashlib.sha256(data[name]).digest()).rstrip(b"=").decode()
            if got != want[len("sha256=") :].rstrip("="):
                raise remotezip.BadWheel(
                    f"{wheel}: {name} does not match the wheel's RECORD (corrupt download?)", "run verify again"
                )

"""The other modules of a release's package, for verify's names and placement steps: apply reads them from the
install (a name the patch takes away that another module imports, prove.names.importers; an import
cycle or a partially imported package a new import closes, prove.cycle_reads and
prove.partial_package), so verify reads them too, from the wheel, where the entry may need them.

Read only where an entry's rewrites may add an import or take a top-level name away (`wanted`: a
rewrite at module level, or one whose text says `import`), and only the `.py` files the wheel's
RECORD lists under the top-level packages of the entry's modules, at most MAX_FILES (more: the
step says "not checked", as without them, and why: `unread`). vLLM's are too many to read on every
verify: 0.33.0 has 3,231 .py files under vllm/, about 48 MiB of source (0.25.0: 2,123, 29 MiB;
0.34.0: 3,604, 53 MiB) to fetch and write out as a site directory per release proven. The proof
writes them to a directory laid out as site-packages (`written`) and runs apply's own checks with it
as the import path.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from radpatch.registry.model import Patch
from radpatch.releases.wheel_records import Release

MAX_FILES = 600  # the package's .py files read at most (vLLM's 2,000 to 3,600 are not: "not checked", as before)


def wanted(patches: Iterable[Patch]) -> bool:
    """May the entries' rewrites add an import line or take a top-level name away? (A rewrite at
    module level, or one whose text says `import`.) Or put definitions into a class, whose enum base
    another module may define (prove.enum_bases). Only then are the package's files read."""
    for patch in patches:
        for rw in patch.rewrites:
            if rw.op.scope_name() == "<module>" or any("import" in t for t in _texts(rw.op)):
                return True
            if getattr(rw.op, "in_class", False):
                return True
    return False


def _texts(op: object) -> Iterator[str]:
    if not dataclasses.is_dataclass(op):
        return
    for f in dataclasses.fields(op):
        value = getattr(op, f.name, None)
        if isinstance(value, str):
            yield value
        elif isinstance(value, (bytes, bytearray)):
            yield bytes(value).decode("utf-8", "replace")
        elif isinstance(value, (tuple, list)):
            yield from (str(v) for v in value)


def tops(needs: Iterable[str]) -> frozenset[str]:
    """The top-level packages of the wheel members the entries' modules may be (`vllm/x.py`: vllm)."""
    return frozenset(n.split("/")[0] for n in needs if "/" in n)


def members(release: Release, packages: frozenset[str]) -> frozenset[str] | None:
    """The `.py` files the wheel's RECORD lists under `packages`; None when the RECORD cannot be read
    or lists more than MAX_FILES of them."""
    name = next((m for m in release.members if m.endswith(".dist-info/RECORD") and m.count("/") == 1), None)
    data = release.read(name) if name is not None else None
    if data is None:
        return None
    rows = csv.reader(io.StringIO(data.decode("utf-8", "replace")))
    out = frozenset(r[0] for r in rows if r and r[0].endswith(".py") and r[0].split("/")[0] in packages)
    return out if len(out) <= MAX_FILES else None


def unread(release: Release, packages: frozenset[str]) -> str:
    """Why the package's files were not read for `release` (files gave None), in verify's words."""
    name = next((m for m in release.members if m.endswith(".dist-info/RECORD") and m.count("/") == 1), None)
    data = release.read(name) if name is not None else None
    if data is None:
        return "the package's other modules were not read: the wheel's RECORD could not be read"
    rows = csv.reader(io.StringIO(data.decode("utf-8", "replace")))
    count = sum(1 for r in rows if r and r[0].endswith(".py") and r[0].split("/")[0] in packages)
    if count > MAX_FILES:
        return (
            f"the package's other modules were not read: {', '.join(sorted(packages))} has {count} .py files, "
            f"verify reads at most {MAX_FILES}"
        )
    return "the package's other modules were not read: the wheel lacks some the RECORD lists"


def files(release: Release, packages: frozenset[str]) -> tuple[tuple[str, bytes], ...] | None:
    """(relpath, bytes) of each such file the release holds, or None when they were not all read."""
    listed = members(release, packages)
    if listed is None or not all(m in release.members or m in release.absent for m in listed):
        return None
    return tuple((m, data) for m in sorted(listed) if (data := release.read(m)) is not None)


@contextmanager
def written(got: tuple[tuple[str, bytes], ...]) -> Iterator[str]:
    """A temporary directory laid out as site-packages holding `got`, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="radpatch-site-") as root:
        for relpath, data in got:
            path = Path(root, *relpath.split("/"))
            if ".." in relpath.split("/") or os.path.isabs(relpath):
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        yield root

"""Which file a section patches, decided as GNU patch decides it (pch.c's intuit_diff_type).

Of the names a section gives (old, new, and `Index:` when neither is given), the existing files
compete: fewest directory components, then the shortest base name, then the shortest name,
then the first. When none exists and the section creates a file, the name needing the fewest
new directories wins by the same rules. Otherwise patch says "can't find file to patch".

`Tree` is the file system as the series has left it so far: a file an earlier patch of the
series created exists for the later ones, one it deleted does not.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from radpatch.errors import RefusedError
from radpatch.importing.sections import FilePatch


class Tree(Protocol):
    def exists(self, rel: str) -> bool: ...

    def is_dir(self, rel: str) -> bool: ...


@dataclass(frozen=True)
class Disk:
    """The real directory (`-d DIR` under the site directory), overlaid with the series' own changes."""

    root: Path
    created: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()

    def exists(self, rel: str) -> bool:
        if rel in self.deleted:
            return False
        return rel in self.created or (self.root / rel).is_file()

    def is_dir(self, rel: str) -> bool:
        return (self.root / rel).is_dir() or any(c.startswith(rel.rstrip("/") + "/") for c in self.created)


@dataclass(frozen=True)
class Resolved:
    rel: str  # relative to the -d directory, normalised
    exists: bool


def _components(name: str) -> int:
    return name.count("/")


def _best(names: list[str]) -> str:
    def key(item: tuple[int, str]) -> tuple[int, int, int, int]:
        i, n = item
        return (_components(n), len(posixpath.basename(n)), len(n), i)

    return min(enumerate(names), key=key)[1]


def _new_dirs(tree: Tree, name: str) -> int:
    parts = name.split("/")[:-1]
    missing = 0
    for k in range(1, len(parts) + 1):
        if not tree.is_dir("/".join(parts[:k])):
            missing += 1
    return missing


def resolve(label: str, section: FilePatch, tree: Tree, strip: int | None) -> Resolved:
    names = [n for n in section.names if n]
    for n in names:
        norm = posixpath.normpath(n)
        if n.startswith("/") or norm == ".." or norm.startswith("../"):
            raise RefusedError(
                f"{label}:{section.header_line}: {n!r} is outside the directory patch works in",
                "radpatch patches files of the installed distribution only; check -p and -d",
            )
    existing = [n for n in names if tree.exists(posixpath.normpath(n))]
    if existing:
        return Resolved(posixpath.normpath(_best(existing)), True)
    if names and section.old_missing:
        fewest = min(_new_dirs(tree, n) for n in names)
        return Resolved(posixpath.normpath(_best([n for n in names if _new_dirs(tree, n) == fewest])), False)
    given = ", ".join(repr(n) for n in dict.fromkeys(names)) or "none after stripping"
    tip = (
        "Perhaps you should have used the -p option?"
        if strip is None
        else "Perhaps you used the wrong -p or -d option?"
    )
    found = _with_strip(section.written, tree, strip)
    if found:
        tip = f"{FOUND_WITH}{found[0]} ({found[1]}): give -p{found[0]}."
    raise RefusedError(
        f"{label}:{section.header_line}: can't find file to patch (names: {given})",
        f"{tip} Paths are resolved as `patch -pN -d DIR` would, DIR relative to the site directory; "
        "--exclude GLOB leaves out sections for files the install does not have (docs, tests)",
    )


FOUND_WITH = "the file is there with -p"  # how a hint that found the file with another -p begins


def _with_strip(written: str, tree: Tree, strip: int | None) -> tuple[int, str] | None:
    """The -p (0 to 4, not the one given) with which the name the section writes is an existing
    file, and that file: the -p the user meant."""
    parts = [p for p in written.split("/") if p and p != "."]
    for k in range(min(len(parts), 5)):
        rel = posixpath.normpath("/".join(parts[k:]))
        if k != strip and not rel.startswith("..") and tree.exists(rel):
            return k, rel
    return None

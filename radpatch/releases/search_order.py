"""Which modules of a release's wheel the search for a moved scope reads (radpatch.releases.moved),
nearest the declared module first: its own package, then modules anywhere in the top-level package
whose path is most like the scope's names, then each package above it, within a budget of files and
bytes; the modules listed by the wheel's RECORD (cached with the dist-info)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from radpatch.releases.wheel_records import Release

MAX_FILES = 400  # modules read per search, at most (vLLM's vllm/v1 holds about 430)
MAX_BYTES = 12 * 1024 * 1024  # and their total size, as RECORD gives it
NAMED = 20  # modules anywhere in the package read early because their path is most like the scope's names


def wheel_modules(release: Release) -> list[tuple[str, int]]:
    """Every .py file of the wheel that `import` can reach, with its size, from its RECORD (cached with
    the dist-info): not one whose path is no dotted module name (`kv-planning.py`, a `.data/` file), nor
    a `name.py` beside a package `name/` (the package is what `import` finds)."""
    record = next((n for n in release.members if n.endswith(".dist-info/RECORD")), None)
    data = release.read(record) if record else None
    if data is None:
        return []
    out = []
    for row in csv.reader(io.StringIO(data.decode("utf-8", "replace"))):
        if row and row[0].endswith(".py") and importable(row[0]):
            size = int(row[2]) if len(row) > 2 and row[2].isdigit() else 0
            out.append((row[0], size))
    packages = {name[: -len("/__init__.py")] for name, _ in out if name.endswith("/__init__.py")}
    return [(name, size) for name, size in out if name[: -len(".py")] not in packages]


def importable(relpath: str) -> bool:
    """A wheel member's path names a module: each part an identifier (`vllm/v1/core/x.py`)."""
    parts = relpath[: -len(".py")].split("/")
    return all(p.isidentifier() for p in parts)


def tiers(declared: str, files: list[tuple[str, int]], hints: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """The wheel's modules nearest `declared` first (`staged`, each tier's modules only)."""
    for _, tier in staged(declared, files, hints):
        yield tier


def staged(
    declared: str,
    files: list[tuple[str, int]],
    hints: tuple[str, ...] = (),
    keep: Callable[[str], bool] = lambda _: True,
) -> Iterator[tuple[bool, list[str]]]:
    """The wheel's modules nearest `declared` first, each tier with whether it is a package's (not the
    named tier): its own package (with the package a module became: `pkg/mod.py` split into
    `pkg/mod/`); then the top-level package's modules whose path holds at least two of the `hints`'
    words (the scope names, the declared module's name), NAMED at most, wherever they are; then each
    package above it (only what the ones before did not hold), or, for a module of the top-level
    package, that package's subpackages; within MAX_FILES and MAX_BYTES in all.
    In a tier, the modules whose path is most like the hints come first: the budget is spent where the
    code most likely went, not in alphabetical order. `keep`, asked as each tier is taken (the caller
    may change its answer between tiers), drops modules without spending the budget on them."""
    seen: set[str] = {declared}
    budget = [MAX_FILES, MAX_BYTES]
    parent = PurePosixPath(declared).parent
    split = parent / PurePosixPath(declared).stem
    top = PurePosixPath(declared).parts[0]
    words = _words(" ".join((*hints, PurePosixPath(declared).stem)))

    def like(f: tuple[str, int]) -> tuple[int, str]:
        return (-_likeness(words, f[0]), f[0])

    def take(candidates: list[tuple[str, int]]) -> list[str]:
        tier = []
        for name, size in sorted(candidates, key=like):
            if name in seen or not keep(name):
                continue
            if budget[0] <= 0 or budget[1] - size < 0:
                break
            seen.add(name)
            tier.append(name)
            budget[0] -= 1
            budget[1] -= size
        return tier

    own = [f for f in files if PurePosixPath(f[0]).parent == parent or split in PurePosixPath(f[0]).parents]
    named = [f for f in files if PurePosixPath(f[0]).parts[0] == top and _likeness(words, f[0]) >= 2]
    stages = [(True, own), (False, sorted(named, key=like)[:NAMED])]
    above = [level for level in parent.parents if level.parts]
    if not above:  # a module of the top-level package: no package above reads its subpackages, so its own does
        above = [parent]
    stages += [(True, [f for f in files if level in PurePosixPath(f[0]).parents]) for level in above]
    for package, stage in stages:
        tier = take(stage)
        if tier:
            yield package, tier


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) > 2}


def _likeness(words: set[str], relpath: str) -> int:
    """How many of the hint words the module's path holds."""
    return len(words & _words(relpath[: -len(".py")]))

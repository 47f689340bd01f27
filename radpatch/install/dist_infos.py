"""The dist-infos that provide a package in one directory, as `status` (install.locate) and the
engine-start self-check (radpatch/plugin.py) name them: standard library only, so the self-check
can import it; two of them make the install ambiguous, in the same words for both."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class DistInfo:
    """One installed distribution found providing the patched package."""

    name: str
    version: str
    dir_name: str  # its *.dist-info directory's name


AMBIGUOUS_HINT = (
    "which one is installed is ambiguous: remove the stale one "
    "(pip uninstall, or delete its leftover .dist-info directory), then run radpatch again"
)


def ambiguous(patch: str, packages: str, where: object, dists: Sequence[DistInfo]) -> str:
    """Why two dist-infos providing the package in `where` make the install ambiguous (what
    install.locate refuses with; its hint is AMBIGUOUS_HINT)."""
    listed = " and ".join(f"{d.name} {d.version} ({d.dir_name})" for d in dists)
    return f"{patch}: {len(dists)} installed distributions provide {packages} in {where}: {listed}"

"""The installed file a rewrite changes, for apply's overlap check (prove.overlaps.pairs): its text as
installed, or as it was before two entries when radpatch's record says one of them is applied.
apply hands in what its plan already read (install.targets, by entry): those files are not read
again; only an entry the plan did not read (one radpatch's record says is applied) is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.errors import RadpatchError, RefusedError
from radpatch.registry.model import Patch, Rewrite

if TYPE_CHECKING:
    from radpatch.install.environment import PythonEnv
    from radpatch.install.targets import InstalledTargets


@dataclass(frozen=True)
class InstalledTexts:
    """apply's one-gap check reads the module a rewrite changes as installed; None when unreadable.
    `read`: what apply's plan already read, by entry name (install.targets), used instead of reading again."""

    env: PythonEnv
    read: Mapping[str, InstalledTargets] = field(default_factory=dict)

    def __call__(self, patch: Patch, rw: Rewrite, v: Version) -> str | None:
        found = self.file(patch, rw)
        return None if found is None else found[1]

    def file(self, patch: Patch, rw: Rewrite) -> tuple[str, str] | None:
        """(its path, its text): the installed file the rewrite changes; None when unreadable."""
        found = self.read.get(patch.name)
        if found is None or found.patch is not patch or found.dist is None:
            return installed_file(self.env, patch, rw)
        if isinstance(found.files, RefusedError):
            return None  # the same refusal `installed_file` meets: no file to name
        read_file = next((t for t in found.files if rw in t.rewritten.rewrites), None)
        if read_file is None:
            return None
        if read_file.problem is not None:  # the plan did not read it (not a module file): read as before
            return installed_file(self.env, patch, rw)
        try:
            return None if read_file.data is None else (str(read_file.path), read_file.data.decode("utf-8"))
        except UnicodeDecodeError:
            return None

    def before(self, patch: Patch, rw: Rewrite, other: str) -> str | None:
        """The file as it was before `patch` and `other` when radpatch's record says one of them
        is applied to it (the kept original of the lower one's link, while the file is as radpatch
        left it), else as installed: an entry applied in an earlier stage is judged with the other
        on the text a one-stage apply of both reads, not on the text it patched (gx23)."""
        from radpatch.state.record import ABSENT, Store, sha256

        found = self.file(patch, rw)
        if found is None:
            return None
        path, text = found
        store = _store_of(Path(path), self.env)
        if store is None:
            return text
        root, relpath = store
        chain = Store(root).chain(relpath)
        ours = [f for name, f in chain if name in (patch.name, other)]
        if not ours or chain[-1][1].patched_sha256 != sha256(text.encode("utf-8")) or ours[0].original_sha256 == ABSENT:
            return text
        kept = Store(root).original(ours[0].original_sha256)
        try:
            return text if kept is None else kept.decode("utf-8")
        except UnicodeDecodeError:
            return text


def _store_of(path: Path, env: PythonEnv) -> tuple[Path, str] | None:
    """(the installation directory holding `path`, its path there)."""
    for root in env.paths:
        try:
            return root, path.relative_to(root).as_posix()
        except ValueError:
            continue
    return None


def installed_texts(env: PythonEnv, read: Mapping[str, InstalledTargets] | None = None) -> InstalledTexts:
    """The module a rewrite changes, as installed (for apply's one-gap check); None when unreadable.
    `read`: what apply's plan already read, by entry name."""
    return InstalledTexts(env, dict(read or {}))


def installed_file(env: PythonEnv, patch: Patch, rw: Rewrite) -> tuple[str, str] | None:
    """(its path, its text): the installed file the rewrite changes; None when unreadable."""
    from radpatch.files import read_regular
    from radpatch.install import locate
    from radpatch.install.targets import rewritten_files
    from radpatch.registry.model import rewrites_by_file

    try:
        dist = locate.find_target(env, patch)
        if dist is None:
            return None
        found = rewritten_files(patch, dist, rewrites_by_file(patch, dist.version))
        if isinstance(found, RefusedError):
            return None
        rewritten = next((t for t in found if rw in t.rewrites), None)
        if rewritten is None:
            return None
        path = dist.root / rewritten.relpath
        return str(path), read_regular(path).decode("utf-8")
    except (RadpatchError, OSError, UnicodeDecodeError, TypeError, ValueError):
        return None

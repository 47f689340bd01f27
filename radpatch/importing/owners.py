"""Which installed distribution owns a file: the one whose *.dist-info/RECORD lists it.

Why read RECORD here rather than ask locate (install.locate): `import` writes `distribution:` and `supported:`
for the files a patch touches, before any entry exists to locate; RECORD is the installer's own
answer to "whose file is this". A file a patch creates belongs to the owner of the package it
goes into (the nearest `__init__.py` above it, or any file of that directory).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name

from radpatch.errors import RefusedError
from radpatch.importing import exclude_word
from radpatch.importing.import_steps import DiffFile
from radpatch.install import dist_infos, wheel_record
from radpatch.state.record import Store


@dataclass(frozen=True)
class Owner:
    name: str  # as METADATA spells it
    version: str


@dataclass(frozen=True)
class Owners:
    site: Path
    files: dict[str, Owner]  # RECORD path (relative to the site directory) -> its distribution
    named: str = ""  # `import --distribution`: whose a new module in a namespace directory several share is

    @classmethod
    def read(cls, site: Path, named: str = "") -> Owners:
        files: dict[str, Owner] = {}
        for dist_info in dist_infos.in_dir(site):
            owner = _metadata(dist_info)
            if owner is None:
                continue
            try:
                listed = wheel_record.rows(dist_info / "RECORD")
            except (OSError, csv.Error):
                continue
            for rel in listed:
                files.setdefault(rel, owner)
        return cls(site, files, named)

    def installed(self, name: str) -> Owner | None:
        """The installed distribution `name` (any spelling pip accepts), or None."""
        return next((o for o in self.files.values() if canonicalize_name(o.name) == canonicalize_name(name)), None)

    def of(self, rel: str) -> Owner | None:
        """The owner of `rel`, or for a file that does not exist yet, of the package it goes into;
        None in a namespace directory several distributions share (`sharing`): no RECORD says whose."""
        if rel in self.files:
            return self.files[rel]
        parts = rel.split("/")[:-1]
        while parts:
            init = "/".join([*parts, "__init__.py"])
            if init in self.files:
                return self.files[init]
            siblings = self._in_directory("/".join(parts) + "/")
            if len(siblings) > 1:
                return next((o for o in siblings if self.named and o == self.installed(self.named)), None)
            if siblings:
                return next(iter(siblings))
            parts.pop()
        return None

    def sharing(self, rel: str) -> dict[Owner, list[str]]:
        """For a new file `rel` in a namespace directory several distributions share (no
        `__init__.py`), each of them and its files there; {} otherwise."""
        if rel in self.files:
            return {}
        parts = rel.split("/")[:-1]
        while parts:
            if "/".join([*parts, "__init__.py"]) in self.files:
                return {}
            siblings = self._in_directory("/".join(parts) + "/")
            if siblings:
                return siblings if len(siblings) > 1 else {}
            parts.pop()
        return {}

    def _in_directory(self, prefix: str) -> dict[Owner, list[str]]:
        """The owners of the files directly in the directory `prefix`, each with its files there."""
        out: dict[Owner, list[str]] = {}
        for f, o in self.files.items():
            if f.startswith(prefix) and "/" not in f[len(prefix) :]:
                out.setdefault(o, []).append(f)
        return out


def one_distribution(label: str, changes: Sequence[DiffFile]) -> str:
    """The one distribution whose files the patch `label` changes (a new file in a namespace
    directory several share goes with the patch's other files); else refused, saying whose each
    file is and how to import each distribution's part."""
    found = {c.owner for c in changes if c.owner}
    if len(found) > 1:
        whose = "; ".join(f"{dist}: {', '.join(c.rel for c in changes if c.owner == dist)}" for dist in sorted(found))
        parts = "; ".join(
            f"{' '.join(repr(c.name or c.rel) for c in changes if c.owner == dist)} for {dist}"
            for dist in sorted(found)
        )
        raise RefusedError(
            f"{label}: changes files of {len(found)} distributions ({whose}); one entry patches one distribution",
            f"import each distribution's files on their own, one run (and --name) each with --include: {parts}; "
            "or split the patch file, one per distribution",
        )
    return found.pop() if found else ""


def _metadata(dist_info: Path) -> Owner | None:
    try:
        meta = dist_infos.metadata(dist_info)
    except OSError:
        return None
    return Owner(meta.name, meta.version) if meta.name and meta.version else None


def refuse_new_in_namespace(label: str, changes: Sequence[DiffFile], owners: Owners) -> None:
    """Refused when a file the patch `label` creates (and nothing else it changes) is in a namespace
    directory several distributions share: which one it belongs to, no RECORD says."""
    for c in changes:
        sharing = owners.sharing(c.rel) if c.owner is None else {}
        if sharing:
            where = c.rel.rsplit("/", 1)[0] + "/"
            whose = "; ".join(f"{o.name}: {', '.join(files)}" for o, files in sharing.items())
            names = " or ".join(o.name for o in sharing)
            said = f"--distribution {owners.named}: not one of them; " if owners.named else ""
            raise RefusedError(
                f"{label}: {c.rel} is a new module in {where}, a namespace directory {len(sharing)} "
                f"distributions share ({whose}); {said}no RECORD says whose it is",
                f"say whose it is: --distribution DIST ({names}); or put it in one patch file with a change to a "
                "file of its distribution (the entry patches that one)",
            )


def refuse_unlisted(label: str, changes: Sequence[DiffFile], owners: Owners) -> None:
    """Refused when the patch `label` changes a file that is on disk but that no installed
    distribution's RECORD lists and no entry radpatch applied created: apply's rule
    (state.file_decide.unlisted, docs/safety.md), said before an entry is written."""
    made = Store(owners.site)
    for c in changes:
        if c.before is None or c.rel in owners.files or not (owners.site / c.rel).is_file() or made.chain(c.rel):
            continue
        raise RefusedError(
            f"{label}: {c.rel} is no installed distribution's file (no RECORD lists it) and no entry radpatch applied "
            "created it: radpatch patches the files a distribution installed (restore, a reinstall and an uninstall "
            "never reach another)",
            f"leave it out ({exclude_word.option(c.name or c.rel)}) and change it another way; a new module the "
            "patch adds is imported from a section that creates it",
        )

"""Which installed distribution owns a file: the one whose *.dist-info/RECORD lists it.

Why read RECORD here rather than ask locate (install.locate): `import` writes `distribution:` and `supported:`
for the files a patch touches, before any entry exists to locate; RECORD is the installer's own
answer to "whose file is this". A file a patch creates belongs to the owner of the package it
goes into (the nearest `__init__.py` above it, or any file of that directory).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from radpatch.install import dist_infos, wheel_record


@dataclass(frozen=True)
class Owner:
    name: str  # as METADATA spells it
    version: str


@dataclass(frozen=True)
class Owners:
    site: Path
    files: dict[str, Owner]  # RECORD path (relative to the site directory) -> its distribution

    @classmethod
    def read(cls, site: Path) -> Owners:
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
        return cls(site, files)

    def of(self, rel: str) -> Owner | None:
        """The owner of `rel`, or for a file that does not exist yet, of the package it goes into."""
        if rel in self.files:
            return self.files[rel]
        parts = rel.split("/")[:-1]
        while parts:
            init = "/".join([*parts, "__init__.py"])
            if init in self.files:
                return self.files[init]
            prefix = "/".join(parts) + "/"
            sibling = next(
                (o for f, o in self.files.items() if f.startswith(prefix) and "/" not in f[len(prefix) :]), None
            )
            if sibling is not None:
                return sibling
            parts.pop()
        return None


def _metadata(dist_info: Path) -> Owner | None:
    try:
        meta = dist_infos.metadata(dist_info)
    except OSError:
        return None
    return Owner(meta.name, meta.version) if meta.name and meta.version else None

"""What `applied` finds: a loaded entry against an applied entry known only from its record (an
overlap, or one radpatch cannot check), and the module a loaded entry's rewrite changes."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from radpatch.registry.model import Patch, Rewrite


@dataclass(frozen=True)
class AppliedClash:
    """A loaded entry against an applied entry known only from its record."""

    entry: str
    applied: str
    what: str  # in words: the overlap, or why it cannot be checked
    hint: str
    known: bool  # False: the record does not say what its entry changed (the overlap is unknown)

    def to_json(self) -> dict[str, object]:
        return {"patch": self.entry, "applied": self.applied, "what": self.line(), "known": self.known}

    def line(self) -> str:
        if self.known:
            return self.what
        return f"cannot check {self.entry} against {self.applied}: {self.what}"


_UNREAD = AppliedClash("", "", "", "", False)  # the files do not tell: the record's silence decides


def _module(p: Patch, rw: Rewrite, version: Version) -> str | None:
    choice = p.module(rw.file).module_for(version)
    return choice.module.removesuffix(".__init__") if choice else None

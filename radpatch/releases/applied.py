"""apply's overlap check against entries already applied whose registry this run does not load
(a later build stage run with another `--registry`): their record says what they changed
(state.touched), so a new entry is compared with that. A record that does not say (written before
it was kept) leaves the overlap unknown, and apply refuses to change a file such an entry changed."""

from __future__ import annotations

from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.registry.model import Patch
from radpatch.releases.overlaps import Meet, _meet
from radpatch.state import touched
from radpatch.state.record import PatchRecord


def refuse(mine: list[tuple[Patch, Version]], records: list[PatchRecord], requires: dict[str, set[str]]) -> None:
    """Refuse when an entry about to be applied (with its installed release) overlaps an applied
    entry known only from its record, unless `requires:` (`requires`: entry -> every entry it comes
    after) orders it after that one; and when that record does not say what its entry changed."""
    for p, version in mine:
        ours = touched.of(p, version)
        modules = {t.module for t in ours}
        for r in records:
            if r.patch in requires.get(p.name, set()):
                continue
            if r.touches is None:
                files = [f.path for f in r.files if f.module.removesuffix(".__init__") in modules]
                if files:
                    raise RefusedError(
                        f"{p.name} changes {files[0]}, which the applied entry {r.patch} changed too; {r.patch}'s "
                        "registry is not loaded and its record (written by an older radpatch) does not say what "
                        "it changed, so radpatch cannot tell whether the two overlap",
                        f"pass {r.patch}'s registry with --registry as well (and add `requires: [{r.patch}]` to "
                        f"{p.name} if it is meant to stack on it)",
                    )
                continue
            for t in ours:
                for theirs in r.touches:
                    if theirs.module != t.module:
                        continue
                    meeting = _meet(t.touch, theirs.touch)
                    if meeting is None or meeting.kind is Meet.STACKS:
                        continue
                    raise RefusedError(
                        f"{p.name} and {r.patch} overlap: {p.name} ({t.rewrite}) and {r.patch} ({theirs.rewrite}) "
                        f"both {meeting.what} in {t.module}; {r.patch} is applied here (from a registry this run "
                        "does not load) and nothing orders them (`requires:`)",
                        f"if {p.name} is meant to stack on {r.patch}, add `requires: [{r.patch}]` to {p.name} and "
                        f"pass {r.patch}'s registry with --registry as well; else revert {r.patch} first",
                    )

"""What else a file carries that holds a patch's code with no record of radpatch's (`status`'s
reason for a patch applied by its code): the patch taken off (the structural inverse) gives the
installed bytes (RECORD's sha256) exactly, or does so once other entries read applied the same way
are taken off too (named: `apply` naming them all adopts them), or it does not (other edits, or the
change written with another layout: only the wheel's bytes tell, and `apply` reads them).
Reads only the files and RECORD: no wheel, no network."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from radpatch.errors import RadpatchError
from radpatch.prove.analysis import backward
from radpatch.state import owner
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.record import Store, state_sha
from radpatch.state.verdict import UNRECORDED_MAYBE, unrecorded_note

MOST = 6  # other unrecorded entries taken off one file, at most


def explained(states: Sequence[PatchState]) -> list[PatchState]:
    """`states` with each unrecorded applied patch's reason saying what else its files carry."""
    out = []
    for s in states:
        if s.unrecorded and s.state is State.APPLIED and UNRECORDED_MAYBE in s.reason:
            what, how = _what(s, states)
            if what:
                s = replace(
                    s, reason=s.reason.replace(unrecorded_note(s.patch.name), unrecorded_note(s.patch.name, what, how))
                )
        out.append(s)
    return out


def _what(s: PatchState, states: Sequence[PatchState]) -> tuple[str, str]:
    """What else `s`'s files carry, and the apply that adopts it ("" for the default)."""
    made = [
        owner.product(Store(s.root), f.relpath, f.data) if s.root and f.wheel_record_sha256 is None else []
        for f in s.files
    ]
    if made and all(s.patch.name in m for m in made):  # radpatch's own modules, left by pip (state.owner)
        chain = list(dict.fromkeys(n for m in made for n in m))
        return (
            f"its record of another install shows radpatch wrote it from no file: {', then '.join(chain)}",
            f"radpatch apply {' '.join(chain)}",
        )
    names: list[str] = []
    other = False
    for f in s.files:
        if not f.exists or f.wheel_record_sha256 is None:
            return "", ""  # a module it creates, or a file RECORD has no hash of: not read here
        got = _taken_off(s, f, states)
        if got is None:
            other = True
        else:
            names += [n for n in got if n not in names]
    if other:
        return "undone, its files are not the installed bytes: other edits too, or its change in another layout", ""
    if names:
        how = f"radpatch apply {' '.join([s.patch.name, *names])}"
        return f"and {', '.join(names)}'s code, by hand too: undone with it, its files are the installed bytes", how
    return "undone, its files are the installed bytes exactly: nothing else is there", ""


def _taken_off(s: PatchState, f: FileState, states: Sequence[PatchState]) -> list[str] | None:
    """The other entries to take off `f` with `s` for RECORD's bytes ([]: none; None: no such)."""
    if _off(s, f, f.data) == f.wheel_record_sha256:
        return []
    mine = [
        (o, g)
        for o in states
        if o is not s and o.unrecorded and o.state is State.APPLIED
        for g in o.files
        if g.path == f.path
    ][:MOST]
    above = [(o, g) for o, g in mine if s.patch.name in o.patch.requires]  # taken off first
    data, taken = f.data, []
    for o, g in [*above, *((o, g) for o, g in mine if (o, g) not in above)]:
        try:
            data = backward(o.patch, g.rewrites, data, str(g.path))
        except RadpatchError:
            continue
        taken.append(o.patch.name)
        if _off(s, f, data) == f.wheel_record_sha256:
            return taken
    return None


def _off(s: PatchState, f: FileState, data: bytes) -> str | None:
    try:
        return state_sha(backward(s.patch, f.rewrites, data, str(f.path)))
    except RadpatchError:
        return None

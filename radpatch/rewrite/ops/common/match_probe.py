"""A match's positions without editing (`probe`: `occurrence: all` and the installed file's count),
and a match picked by its index whatever `occurrence:` says (`picking`): what `selection.select` sees
while either is active."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence

import libcst as cst

from radpatch.errors import Position, Probed
from radpatch.rewrite.matching import starts
from radpatch.rewrite.tree import Path_

# `occurrence: all` and the installed file's count (rewrite.runner) need what select() sees: the
# matches' positions (probe), and a match picked by its index whatever `occurrence:` says (picking).

_PROBE: contextvars.ContextVar[bool] = contextvars.ContextVar("radpatch_probe", default=False)
_PICK: contextvars.ContextVar[int | None] = contextvars.ContextVar("radpatch_pick", default=None)


def probe(run: Callable[[], object]) -> list[Position] | None:
    """The positions of the matches the operation `run` runs would choose among (after `within`),
    without editing anything; None when it finished without choosing among matches."""
    token = _PROBE.set(True)
    try:
        run()
    except Probed as found:
        return found.positions
    finally:
        _PROBE.reset(token)
    return None


@contextlib.contextmanager
def picking(index: int) -> Iterator[None]:
    """While active, select() takes the index-th match (from 1, in source order) of what it is given."""
    token = _PICK.set(index)
    try:
        yield
    finally:
        _PICK.reset(token)


def picked() -> bool:
    """Whether a match is being picked by its index (`occurrence: all`, the installed file's count)."""
    return _PICK.get() is not None


def positions(module: cst.Module, hits: Sequence[Path_], offset: int) -> list[Position]:
    pos = starts(module)
    return [(pos[h[-1]][0] + offset, pos[h[-1]][1]) for h in hits]


def probing() -> bool:
    """Whether select() is asked for the matches' positions only (inside probe())."""
    return _PROBE.get()


def pick_index() -> int | None:
    """The index picking() asks select() to take, or None."""
    return _PICK.get()

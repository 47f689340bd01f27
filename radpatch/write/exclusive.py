"""The lock a changing command holds over every installation its patches touch, and the
interrupted run it finishes first."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from radpatch.install.environment import PythonEnv
from radpatch.install.locate import find_target
from radpatch.registry.model import Patch
from radpatch.state.realign import realign
from radpatch.state.record import Store

Say = Callable[[str], None]


@contextlib.contextmanager
def exclusive(env: PythonEnv, patches: list[Patch], say: Say) -> Iterator[None]:
    """Hold the lock of every installation the patches touch; first finish any interrupted run, then
    bring the record in line with a file some stacked links were taken off by hand (state.realign);
    at the end, remove radpatch's state directory where nothing is recorded any more."""
    roots = sorted({r for r in (root_of(env, p) for p in patches) if r})
    with contextlib.ExitStack() as stack:
        for root in roots:
            store = Store(root)
            stack.enter_context(store.locked())
            stack.callback(store.tidy)
            store.sweep()
            if store.journal.is_dir():
                for note in store.recover(committed=_committed(store)):
                    say(f"recovered from an interrupted run: {note}")
            for note in realign(store):  # a file some stacked links were taken off by hand: the record follows it
                say(f"note: {note}")
        yield


def root_of(env: PythonEnv, patch: Patch) -> Path | None:
    dist = find_target(env, patch)
    if dist:
        return dist.root
    return next((d for d in env.paths if Store(d).record_path.is_file() and patch.name in Store(d).records()), None)


def _committed(store: Store) -> bool:
    """An interrupted run is complete iff the record was last written by that very run."""
    return store.last_run() == store.journal_plan().run

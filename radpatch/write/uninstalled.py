"""revert of a patch whose distribution was uninstalled (state.orphan): what radpatch left on disk
comes off, then the record is forgotten.

pip removed the files the distribution installed; the record's files still there are radpatch's
own work (a module it created) or a file no RECORD listed that it patched. Each is taken off only
where it is exactly as radpatch left it (this link's result, or what the run's earlier changes left):
a created module is removed (write.commit removes it only over those bytes, with its bytecode and
each directory above it left empty: pip kept the package directory only because radpatch's module
was in it, and an empty one still imports as a namespace package), a patched file gets its kept
original back (its sha256 checked when read). Anything else is refused, naming the file; nothing is written then."""

from __future__ import annotations

from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.prove import run, undo
from radpatch.state.decide import PatchState, State
from radpatch.state.record import Store, sha256
from radpatch.state.restack import stacked_above
from radpatch.write.exclusive import Say


def take_off(ps: PatchState, named: set[str], overlay: undo.Overlay, say: Say) -> run.Change:
    """The change that takes `ps` (not installed, its record remaining: ps.files are what is left
    of it on disk) off, and forgets its record."""
    assert ps.record is not None and ps.root is not None
    name = ps.patch.name
    for f in ps.files:
        if f.state is not State.APPLIED:
            raise RefusedError(
                f"{name}: {ps.patch.distribution} is not installed any more, and {f.detail}: radpatch "
                "removes or restores only what is exactly as it left it",
                f"compare {f.relpath} with what {name} wrote; remove it or put it back by hand, then revert again",
            )
    left = {f.relpath for f in ps.files}
    store = Store(ps.root)
    for rec in ps.record.files:
        if rec.path not in left or stacked_above(ps, rec):  # one stacked above: undo.take_off names it
            continue
        path = ps.root / rec.path
        current = undo.current_bytes(name, path, overlay, "check radpatch's permissions")
        if sha256(current) != rec.patched_sha256:
            raise RefusedError(
                f"{name}: {rec.path} is not exactly as {name} left it (a patch taken off under it changed it)",
                f"compare {rec.path} with what {name} wrote; remove it or put it back by hand, then revert again",
            )
        if not rec.created and store.original(rec.original_sha256) is None:
            raise RefusedError(
                f"{name}: {rec.path} still carries the patch, and its kept original is gone from "
                f"{store.dir / 'originals'}: nothing proves what it was",
                f"put {rec.path} back by hand (reinstall the distribution that owns it), then revert again",
            )
    deleted: dict[Path, tuple[Path, ...]] = {}
    off = undo.take_off(ps, named, overlay, say, deleted, frozenset(left))
    for path in deleted:  # pip kept the package directories above a created module only because it was there
        deleted[path] = _above(path, ps.root)
    return run.change(ps, off, forget=True, off=True, deleted=deleted)


def _above(path: Path, root: Path) -> tuple[Path, ...]:
    """The directories between `root` and `path`, outermost first: each is removed once empty (but
    for an empty `__pycache__`): the made ones, and those the uninstalled distribution left for it."""
    return tuple(reversed([d for d in path.parents if root in d.parents]))

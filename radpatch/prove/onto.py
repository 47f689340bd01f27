"""Edits on top of radpatch's patches: a file that carries radpatch's patches and was edited by
hand since (a second `capture` round, quilt's workflow) starts from the bytes the newest link of
its chain left, not from the wheel's. Those bytes are kept when an adoption recorded them (the
write step keeps an adopted file's bytes, since nothing else holds them), else rebuilt: the link's
patch run on its kept original, accepted only when the result hashes to the link's recorded
sha256. `capture` builds the new entry from them; `apply` adopts it on top of the link."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.environment import PythonEnv
from radpatch.registry.model import Patch
from radpatch.state.hashes import Link, links, live
from radpatch.state.record import ABSENT, Store, sha256, state_sha

# a patch's entry by name, or None when no registry given holds it
Entries = Callable[[str], "Patch | None"]


@dataclass(frozen=True)
class HandEditBase:
    """What a hand edit of `relpath` went on top of: `top`'s link, and the bytes it left."""

    relpath: str
    top: Link
    data: bytes
    under: tuple[str, ...]  # the patches the file carried then, oldest first (`top` last)
    kept: bool  # the bytes were kept (else rebuilt from the kept original and `top`'s entry)


class NotKept(RefusedError):
    """The bytes a link left are neither kept nor rebuilt: its entry is not loaded, or differs."""


def edited_on(store: Store, relpath: str, data: bytes | None) -> Link | None:
    """The link a hand edit of `relpath` (its bytes `data` now) went on top of: the newest of its
    chain, when the file carries no link as it is (neither its bytes nor its code are any link's
    result); None when radpatch never patched it, or it is as radpatch left it (comments aside)."""
    chain = links(store, relpath)
    if not chain or live(store, relpath, state_sha(data), data) is not None:
        return None
    return chain[-1]


def left_by(store: Store, link: Link, entries: Entries, env: PythonEnv) -> HandEditBase:
    """The bytes `link` left in its file: kept, or rebuilt and checked against its sha256."""
    rel, f = link.file.path, link.file
    walked = live(store, rel, f.patched_sha256)
    under = tuple(ln.patch for ln in walked[0]) if walked else (link.patch,)
    kept = b"" if f.patched_sha256 == ABSENT else store.original(f.patched_sha256)
    if kept is not None:
        return HandEditBase(rel, link, kept, under, True)
    patch = entries(link.patch)
    what = f"{rel} carries radpatch's patch {link.patch} and was edited by hand since"
    if patch is None:
        raise NotKept(
            f"{what}: the edits go on top of what {link.patch} left, and those bytes are not kept; "
            f"{link.patch}'s entry, which would rebuild them, is in no registry given",
            f"give the registry directory that holds {link.patch}.yaml: radpatch --registry DIR ...",
        )
    rebuilt = _rebuild(store, link, patch, env)
    if rebuilt is None or sha256(rebuilt) != f.patched_sha256:
        raise NotKept(
            f"{what}: the bytes {link.patch} left are not kept, and its entry does not rebuild them "
            f"(its rewrites on the kept original do not give the recorded sha256: the entry changed since)",
            f"put the file back first (radpatch revert {link.patch}, then edit again), or use the entry's "
            "revision that was applied",
        )
    return HandEditBase(rel, link, rebuilt, under, False)


def _rebuild(store: Store, link: Link, patch: Patch, env: PythonEnv) -> bytes | None:
    from radpatch.install.targets import read
    from radpatch.rewrite import runner

    f = link.file
    before = b"" if f.original_sha256 == ABSENT else store.original(f.original_sha256)
    found = read(patch, env)
    targets = found.files if not isinstance(found.files, RefusedError) else ()
    rws = next((t.rewritten.rewrites for t in targets if t.rewritten.relpath == f.path), None)
    if before is None or rws is None:
        return None
    try:
        return runner.forward(patch, rws, before, str(store.root / f.path))
    except RadpatchError:
        return None

"""Which applied patches an `apply` takes off and puts on again: each whose registry entry has
another revision now, and every patch stacked above one of those on its files (found by the file
chains' hashes, state.hashes). Each goes back on only as a fresh apply of its current revision
would put it: one whose entry no longer covers the installed version is refused here, one whose
entry declares it `obsolete:` comes off and stays off (prove.run). Part of the state decision:
read from radpatch's record and the files' hashes only, before anything is planned."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.files import read_regular
from radpatch.registry.model import Patch
from radpatch.state.decide import PatchState, State, refused
from radpatch.state.hashes import above
from radpatch.state.record import FileRecord, Store, sha256


def restack(patches: list[Patch], states: dict[str, PatchState]) -> list[str]:
    """The applied patches this run takes off and puts on again, newest first: each whose entry has
    another revision now, and every patch stacked above one of those (which must be named)."""
    named = {p.name for p in patches}
    todo = [
        p.name
        for p in patches
        if states[p.name].state is State.APPLIED
        and not states[p.name].declined
        and states[p.name].record is not None
        and states[p.name].record.registry_digest != p.digest  # type: ignore[union-attr]
    ]
    redo: dict[str, int] = {}
    under: dict[str, str] = {}  # a patch stacked above a re-applied one -> that one
    asked = [p.name for p in patches]
    while todo:
        name = todo.pop()
        if name in redo:
            continue
        ps = states[name]
        if ps.state is not State.APPLIED or ps.record is None or ps.dist is None:
            raise refused(ps, "re-apply")
        if ps.declined is not None and not ps.declined.obsolete:  # a fresh apply of it is refused: so is this
            raise RefusedError(
                f"{name}: re-applying {under.get(name, 'the patch under it')} takes {name} off and puts it on "
                f"again, but {name}'s current registry entry does not patch this version ({ps.declined.why})",
                f"take it off first (radpatch revert {name}), or change its entry to cover "
                f"{ps.dist.name} {ps.dist.version}",
            )
        redo[name] = ps.record.seq
        for f in ps.record.files:
            for upper in stacked_above(ps, f):
                if upper not in named:
                    every = together(ps.root, [*asked, name, *redo], [name, *redo])
                    raise RefusedError(
                        f"{name}: {f.path} also carries {upper}, applied on top of it: re-applying {name} "
                        f"takes {upper} off and puts it on again",
                        f"re-apply them together: radpatch apply {' '.join(every)}",
                    )
                todo.append(upper)
                under.setdefault(upper, name)
    return sorted(redo, key=lambda n: -redo[n])


def stacked_above(ps: PatchState, rec: FileRecord) -> list[str]:
    """The patches stacked above `ps`'s link in the file as it is on disk."""
    assert ps.root is not None
    try:
        data = read_regular(ps.root / rec.path)
    except OSError:
        return []
    return above(Store(ps.root), rec, sha256(data), data)


def together(root: Path | None, names: Iterable[str], under: Iterable[str]) -> list[str]:
    """`names` and every applied patch stacked, down any chain, above one of `under` on the files
    as they are on disk (from radpatch's record and the files' hashes), each once, in the order
    they went on: what one command must name so that no further patch has to be added to it."""
    out = list(dict.fromkeys(names))
    if root is None:
        return out
    store = Store(root)
    records = store.records()
    todo, seen = list(under), set(under)
    while todo:
        rec = records.get(todo.pop())
        for f in rec.files if rec is not None else ():
            try:
                data = read_regular(root / f.path)
            except OSError:
                continue
            for upper in above(store, f, sha256(data), data):
                if upper not in seen:
                    seen.add(upper)
                    todo.append(upper)
    out += [n for n in seen if n not in out]
    order = {n: r.seq for n, r in records.items()}
    return sorted(out, key=lambda n: order.get(n, -1))

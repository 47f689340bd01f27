"""Which files `apply` may adopt: the candidates (no record of radpatch's, read drifted or applied
by their code, or edited by hand on top of radpatch's patches), and the entries of the run that
go under or on top of them on the same files (a series applied whole by `patch -p1`)."""

from __future__ import annotations

from pathlib import Path

from radpatch.prove import onto
from radpatch.registry.model import Patch, creates
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.record import Store
from radpatch.state.stack import trusted_names


def adoptable(ps: PatchState, created: frozenset[Path] = frozenset(), above: bool = False) -> list[FileState]:
    """The files of a patch that `apply` may adopt (none: the patch is not a candidate); `above`:
    one that reads not applied, tried on top of the candidates it requires (every file of it)."""
    states = (State.NOT_APPLIED,) if above else (State.DRIFTED, State.APPLIED)
    if ps.record is not None or ps.declined or ps.root is None or ps.state not in states:
        return []
    store = Store(ps.root)
    # records left from another install (an upgrade) speak for no file of this one (att63 F2)
    trust = trusted_names(store, ps.dist, ps.dist_record) if ps.dist is not None else None
    files = list(ps.files) if above else [f for f in ps.files if f.state is not State.NOT_APPLIED]
    return files if files and all(_fits(f, store, created, trust) for f in files) else []


def _fits(f: FileState, store: Store, created: frozenset[Path], trust: frozenset[str] | None = None) -> bool:
    """A file a candidate may be adopted on: a hand edit on top of radpatch's patches of it (its
    bytes then may be RECORD's: a second round took the edit out), else not as installed, with
    its bytes before known."""
    if any(trust is None or name in trust for name, _ in store.chain(f.relpath)):
        return f.exists and onto.edited_on(store, f.relpath, f.data) is not None
    return not f.wheel_record_match and not (needs_wheel(f, created) and not f.wheel_record_sha256)


def with_required(
    patches: list[Patch],
    states: dict[str, PatchState],
    todo: dict[str, list[FileState]],
    created: frozenset[Path],
) -> dict[str, list[FileState]]:
    """`todo` with each entry of the run that a candidate requires (`requires:`, followed through)
    and that reads not applied only because the candidate's result stacks on its own on the same
    files (a series `patch -p1` applied whole): it goes under the candidate in each file's run, in
    the run's order. Only when every file of it is a file of a candidate that requires it. A
    required entry that is a candidate by other files (a module it creates) goes under it the same
    way on the files they share that it reads not applied on."""
    by_name = {p.name: p for p in patches}
    wanted: dict[str, set[Path]] = {}
    for name, files in todo.items():
        seen: set[str] = set()
        stack = list(by_name[name].requires)
        while stack:
            req = stack.pop()
            if req in seen or req not in by_name:
                continue
            seen.add(req)
            stack.extend(by_name[req].requires)
            wanted.setdefault(req, set()).update(f.path for f in files)
    extra: dict[str, list[FileState]] = {}
    for req, paths in wanted.items():
        ps = states[req]
        if req in todo:  # a candidate by other files: also its files it reads not applied on, under them
            have = {f.path for f in todo[req]}
            more = [f for f in ps.files if f.path in paths and f.path not in have and _fits_under(f, created)]
            if more:
                extra[req] = [f for f in ps.files if f.path in have or f in more]
            continue
        if ps.record is not None or ps.declined or ps.root is None or ps.state is not State.NOT_APPLIED:
            continue
        files = list(ps.files)
        if files and all(f.path in paths and _fits_under(f, created) for f in files):
            extra[req] = files
    if not extra:
        return todo
    return {p.name: extra.get(p.name) or todo[p.name] for p in patches if p.name in todo or p.name in extra}


def _fits_under(f: FileState, created: frozenset[Path]) -> bool:
    """A file of an entry that goes under a candidate: not as installed, and its bytes before known."""
    return not f.wheel_record_match and bool(f.wheel_record_sha256 or not needs_wheel(f, created))


def with_dependents(
    patches: list[Patch],
    states: dict[str, PatchState],
    todo: dict[str, list[FileState]],
    redo: list[str],
    created: frozenset[Path],
) -> dict[str, list[FileState]]:
    """`todo` with each entry of the run that reads not applied but requires a candidate on its own
    files, or one radpatch recorded there (`requires:`): a file carries it, unseen, when its patch
    deleted what the check looks for (a whole def: no marker of radpatch's is left to find). It
    fits as a candidate does, apart from its state; `adoption` tries it on top and drops it if the
    result is not the file's code. A candidate by some of its files (its result seen there) goes on
    top the same way on its other files, those of a candidate below it that it reads not applied on
    (a two-file series: it deletes a def in one, changes the lower one's line again in the other).
    None such: `todo` as it is."""
    by_name = {p.name: p for p in patches}
    extra: dict[str, list[FileState]] = {}
    for p in patches:
        ps = states[p.name]
        if p.name in redo or not p.requires:
            continue
        below: set[str] = set()
        stack = list(p.requires)
        while stack:
            req = stack.pop()
            if req not in below and req in by_name:
                below.add(req)
                stack.extend(by_name[req].requires)
        # on a file of a candidate it requires, or one radpatch patched (its requirement recorded)
        paths = {f.path for n in below if n in todo for f in states[n].files}
        if p.name in todo and ps.root:  # a candidate by some files: those it reads not applied on, on top
            have, store = {f.path for f in todo[p.name]}, Store(ps.root)
            more = [
                f
                for f in ps.files
                if f.path not in have
                and f.state is State.NOT_APPLIED
                and (f.path in paths and _fits_under(f, created) or store.chain(f.relpath) and _fits(f, store, created))
            ]
            if more:
                extra[p.name] = [f for f in ps.files if f.path in have or f in more]
            continue
        files = adoptable(ps, created, above=True)
        if files and ps.root and all(f.path in paths or Store(ps.root).chain(f.relpath) for f in files):
            extra[p.name] = files
    if not extra:
        return todo
    return {p.name: extra.get(p.name) or todo[p.name] for p in patches if p.name in todo or p.name in extra}


def needs_wheel(f: FileState, created: frozenset[Path] = frozenset()) -> bool:
    """The file's state before the patch is its RECORD bytes (not a module the patch, or another
    patch of the run, creates)."""
    return not ((creates(f.rewrites) or f.path in created) and f.wheel_record_sha256 is None)

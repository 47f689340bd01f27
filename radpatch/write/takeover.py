"""An entry renamed in the registry after it was applied (capa.yaml -> capa2.yaml, the same rewrites).

radpatch's record names the old entry, which no registry given has now, and its files carry exactly
what the new entry writes: the new entry reads not applied (radpatch has no record of it), the old one
applied from its record alone (state.unloaded). `renamed_from` finds that case, for `status` to say so
and for `apply NEW` to take the old record over under the new name (`take_over`): the same links and
kept originals, the new entry's revision, no file written, the record replaced under the journal like
any run. An entry revised as well as renamed is no takeover: what it writes differs, so the overlap
stays refused (revert the old name first)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.environment import PythonEnv
from radpatch.registry.model import Patch, Rewrite
from radpatch.state import touched
from radpatch.state.decide import PatchState, State
from radpatch.state.file_decide import still_applied
from radpatch.state.record import PatchRecord, Store
from radpatch.state.stack import trusted_names


@dataclass(frozen=True)
class Takeover:
    """`old`, the record `ps.patch` would take over; `lost`: the applied entries old's record requires
    and `ps.patch` does not (its `requires:` dropped them): taken over, the record loses that order,
    and apply's overlap check, run after the takeover, refuses what it leaves unordered (refusal())."""

    old: PatchRecord
    lost: tuple[str, ...]


def renamed_from(ps: PatchState, loaded: Collection[str]) -> PatchRecord | None:
    """The record `apply` takes over for `ps.patch` (a recorded entry renamed, see found())."""
    got = found(ps, loaded)
    return got.old if got is not None else None


def found(ps: PatchState, loaded: Collection[str]) -> Takeover | None:
    """The record of an entry no registry in `loaded` has, trusted for this install, still carried by
    each of its files, on the very files `ps.patch` rewrites, where `ps.patch`'s rewrites run on each
    link's kept original give the link's kept result byte for byte: `ps.patch` is that entry renamed.
    None unless exactly one record is such (and `ps.patch` reads not applied with no record of its own)."""
    patch, dist = ps.patch, ps.dist
    if patch.from_record or dist is None or ps.state is not State.NOT_APPLIED or ps.record is not None:
        return None
    if isinstance(ps.read_files, RefusedError) or not ps.read_files:
        return None
    store = Store(dist.root)
    if not store.record_path.is_file():
        return None
    records = store.records()
    if patch.name in records:
        return None
    mine = {t.rewritten.relpath: t.rewritten.rewrites for t in ps.read_files}
    trust = trusted_names(store, dist, ps.dist_record)
    found = [
        r
        for r in records.values()
        if r.patch not in loaded
        and r.patch in trust
        and {f.path for f in r.files} == set(mine)
        and _writes_the_same(patch, r, mine, store, str(dist.root))
        and still_applied(dist, store, r)
    ]
    if len(found) != 1:
        return None
    lost = tuple(n for n in found[0].requires if n in records and n not in patch.requires)
    return Takeover(found[0], lost)


def refusal(ps: PatchState, got: Takeover, load: Callable[[str], Patch], env: PythonEnv) -> RefusedError | None:
    """What apply's overlap check says, once `got` is taken over, of `ps.patch` and the entries the
    record no longer orders it after (`got.lost`, read by `load`): apply's own rule
    (prove.overlaps.apply_check.refuse_unordered_installed) on the installed files; None when it lets
    them be. A lost entry no registry given has is not compared here."""
    from radpatch.prove.overlaps.apply_check import refuse_unordered_installed
    from radpatch.prove.overlaps.installed_files import installed_texts

    if not got.lost or ps.dist is None:
        return None
    others = []
    for name in got.lost:
        try:
            others.append(load(name))
        except RadpatchError:
            continue  # in no registry given: apply compares it by its record (not told here)
    try:
        refuse_unordered_installed(installed_texts(env), [ps.patch, *others], [ps.dist.version], got.lost)
    except RefusedError as e:
        return e
    return None


def _writes_the_same(
    patch: Patch, r: PatchRecord, mine: dict[str, tuple[Rewrite, ...]], store: Store, root: str
) -> bool:
    from radpatch.rewrite.runner import forward  # libcst: only once a record of the same files is found

    for f in r.files:
        before = b"" if f.created else store.original(f.original_sha256)
        after = store.original(f.patched_sha256)
        if before is None or after is None:
            return False
        try:
            got = forward(patch, mine[f.path], before, f"{root}/{f.path}")
        except RadpatchError:
            return False
        if got != after:
            return False
    return True


def describe(ps: PatchState, got: Takeover, refused: RefusedError | None) -> str:
    """What `status` says of a renamed entry's code applied under its old name: apply records it under
    the new name, or (`refused`: see refusal()) refuses, and why."""
    old, name = got.old.patch, ps.patch.name
    said = (
        f"its code is applied here as {old} (radpatch's record of an entry no registry given has: "
        f"{name} writes exactly what {old} wrote, as if renamed); "
    )
    if refused is None:
        return f"{said}`radpatch apply {name}` records it under this name, writing no file"
    return (
        f"{said}but {old} requires {', '.join(got.lost)} and {name} does not, so `radpatch apply {name}` "
        f"is refused: {refused.message}" + (f" ({refused.hint})" if refused.hint else "")
    )


def take_over(ps: PatchState, old: PatchRecord) -> PatchRecord:
    """Record `old`'s links under `ps.patch`'s name and revision (its `requires:`, `touches`,
    `upstream:`), in old's place in the order of runs; a record that requires old requires the new
    name now. Journaled like any run (no file is written); returns the new record."""
    patch, dist = ps.patch, ps.dist
    assert dist is not None
    store = Store(dist.root)
    records = store.records()
    records.pop(old.patch)
    new = replace(
        old,
        patch=patch.name,
        registry_digest=patch.digest,
        requires=tuple(n for n in patch.requires if n in records),
        touches=touched.of(patch, dist.version),
        upstream=patch.upstream,
    )
    for name, r in list(records.items()):
        if old.patch in r.requires:
            records[name] = replace(r, requires=tuple(patch.name if n == old.patch else n for n in r.requires))
    records[patch.name] = new
    run_id = uuid.uuid4().hex
    store.begin(run_id, "apply", [old.patch, patch.name], {})
    store.save(records, run_id)
    store.end()
    return new


def give_back(ps: PatchState, before: dict[str, PatchRecord]) -> None:
    """Put the record back as it was before `take_over` (the rest of the run was refused), journaled."""
    assert ps.dist is not None
    store = Store(ps.dist.root)
    run_id = uuid.uuid4().hex
    store.begin(run_id, "apply", [ps.patch.name], {})
    store.save(before, run_id)
    store.end()

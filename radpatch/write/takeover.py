"""An entry renamed in the registry after it was applied (capa.yaml -> capa2.yaml, the same rewrites).

radpatch's record names the old entry, which no registry given has now, and its files carry exactly
what the new entry writes: the new entry reads not applied (radpatch has no record of it), the old one
applied from its record alone (state.unloaded). `found` finds that case, for `status` to say so
and for `apply NEW` to take the old record over under the new name (`take_over`): the same links and
kept originals, the new entry's revision, no file written, the record replaced under the journal like
any run. An entry revised as well as renamed is no takeover: what it writes differs, so the overlap
stays refused (revert the old name first). Nor is one while an applied entry's `requires:` still names
the old name (`held_by`): taken over, that entry would require an entry no registry has, and status,
the engine-start check and revert would read its order three ways (rename the requirement too, or
revert the dependant first)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.environment import PythonEnv
from radpatch.registry.model import Patch, Rewrite
from radpatch.state import touched
from radpatch.state.decide import PatchState, State
from radpatch.state.file_decide import still_applied, void
from radpatch.state.record import PatchRecord, Store, sha256, state_sha
from radpatch.state.stack import trusted_names

if TYPE_CHECKING:
    from radpatch.prove.run import Change  # libcst: status, which imports this module, must not load it
    from radpatch.registry.catalog import Registry


@dataclass(frozen=True)
class Takeover:
    """`old`, the record `ps.patch` would take over; `lost`: the applied entries old's record requires
    and `ps.patch` does not (its `requires:` dropped them): taken over, the record loses that order,
    and apply's overlap check, run after the takeover, refuses what it leaves unordered (refusal())."""

    old: PatchRecord
    lost: tuple[str, ...]


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


def held_by(ps: PatchState, got: Takeover, load: Callable[[str], Patch]) -> RefusedError | None:
    """apply's refusal of the takeover (before anything is recorded; status and --dry-run say it too):
    an entry whose record requires the old name and whose loaded entry (read by `load`) still
    requires it. Taken over, its `requires:` would name an entry no registry has: status would read it
    drifted, the engine-start check (the record, renamed) applied, and its registry would not load to
    revert it. An entry no registry given has is ordered by its record alone, which the takeover renames."""
    assert ps.dist is not None
    old, new = got.old.patch, ps.patch.name
    held = []
    for name, r in Store(ps.dist.root).records().items():
        if old not in r.requires or name == old:
            continue
        try:
            entry = load(name)
        except RadpatchError:
            continue  # in no registry given: its record is renamed with the takeover
        if old in entry.requires:
            held.append((name, entry))
    if not held:
        return None
    names = ", ".join(n for n, _ in held)
    one = len(held) == 1
    return RefusedError(
        f"{new} would take over the record of {old}, but {names} {'is' if one else 'are'} recorded as applied and "
        f"still require{'s' if one else ''} {old} (`requires:` in {held[0][1].source})",
        f"rename the requirement too (`requires: [{new}]` in {names}), then `radpatch apply {new}`; or, with "
        f"{old}'s entry still under its old name, revert {names} first "
        f"(radpatch revert {' '.join(n for n, _ in held)})",
    )


def refusal(ps: PatchState, got: Takeover, load: Callable[[str], Patch], env: PythonEnv) -> RefusedError | None:
    """Why `apply NEW` would be refused once `got` is taken over: an applied entry still requiring the
    old name (held_by), else what apply's overlap check says of `ps.patch` and the entries the
    record no longer orders it after (`got.lost`, read by `load`): apply's own rule
    (prove.overlaps.apply_check.refuse_unordered_installed) on the installed files; None when it lets
    them be. A lost entry no registry given has is not compared here."""
    from radpatch.prove.overlaps.apply_check import refuse_unordered_installed
    from radpatch.prove.overlaps.installed_files import installed_texts

    held = held_by(ps, got, load)
    if held is not None:
        return held
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
    if not got.lost or refused.message.startswith(f"{name} would take over"):  # held_by
        return f"{said}but `radpatch apply {name}` is refused: {refused.message}" + (
            f" ({refused.hint})" if refused.hint else ""
        )
    return (
        f"{said}but {old} requires {', '.join(got.lost)} and {name} does not, so `radpatch apply {name}` "
        f"is refused: {refused.message}" + (f" ({refused.hint})" if refused.hint else "")
    )


def renamed_requirement(registry: Registry, env: PythonEnv) -> Callable[[PatchState], str | None]:
    """state.decided.Renamed: for an entry that reads not applied, the note an entry requiring it
    gets when its code is applied under the record of its old name (found: this very rule), else
    None. The requirement is met then (state.requirements), as the engine-start check, reading the
    dependant's record (which names the old one), reads it."""

    loaded = registry.names()

    def note(ps: PatchState) -> str | None:
        got = found(ps, loaded)
        if got is None:
            return None
        new, old = ps.patch.name, got.old.patch
        how = (
            f"`radpatch apply {new}` records it under the new name, writing no file"
            if refusal(ps, got, registry.load, env) is None
            else f"`radpatch status {new}` says why `radpatch apply {new}` is refused for now"
        )
        return f"its requirement {new} is applied under its old name {old} (radpatch's record): {how}"

    return note


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


def superseded(changes: Sequence[Change]) -> list[tuple[Change, PatchRecord]]:
    """The stale records this apply run replaces: a record of an entry the run does not name, trusted
    for this install, every file of it read not applied (a reinstall put the wheel's bytes back), whose
    links are exactly the links a change of the run writes (same files, same bytes before and after:
    the entry renamed). Left, it would read applied again once the run writes its bytes, beside the
    new name's record. A stale record of other bytes stays (`status --check` keeps failing for it)."""
    named = {c.patch.patch.name for c in changes}
    out: list[tuple[Change, PatchRecord]] = []
    for c in changes:
        dist = c.patch.dist
        if c.off or not c.files or dist is None:
            continue
        store = Store(c.root)
        links = {
            (str(f.path.relative_to(c.root)), state_sha(None if f.path in c.created else f.original), sha256(f.after))
            for f in c.files
        }
        trust = trusted_names(store, dist, c.patch.dist_record)
        for r in store.records().values():
            if r.patch in named or r.patch not in trust or any(r is got for _, got in out):
                continue
            if {(f.path, f.original_sha256, f.patched_sha256) for f in r.files} == links and void(dist, store, r):
                out.append((c, r))
    return out


def drop_superseded(found: Sequence[tuple[Change, PatchRecord]]) -> None:
    """Forget the stale records `found` (superseded), journaled, before the run writes a file: they
    read not applied, as they will with no record."""
    for root in dict.fromkeys(c.root for c, _ in found):
        store = Store(root)
        records = store.records()
        gone = [r.patch for c, r in found if c.root == root]
        run_id = uuid.uuid4().hex
        store.begin(run_id, "apply", gone, {})
        store.save({n: r for n, r in records.items() if n not in gone}, run_id)
        store.end()


def give_back(ps: PatchState, before: dict[str, PatchRecord]) -> None:
    """Put the record back as it was before `take_over` (the rest of the run was refused), journaled."""
    assert ps.dist is not None
    store = Store(ps.dist.root)
    run_id = uuid.uuid4().hex
    store.begin(run_id, "apply", [ps.patch.name], {})
    store.save(before, run_id)
    store.end()

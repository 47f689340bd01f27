"""`requires:` as radpatch's record keeps it: an applied entry's requirements were recorded with
it, so a revert of a requirement, and `status --check`, find the dependent even when the registry
that holds its entry is not loaded (docs/state.md "Stacked entries"); revert's refusal while an
applied entry requires what it takes off."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from radpatch.errors import MustComeOff
from radpatch.install import dist_infos, wheel_record
from radpatch.install.environment import PythonEnv
from radpatch.state.record import PatchRecord, Store
from radpatch.state.verdict import SATISFIED, State, trusted, unmet_requirements, with_note

if TYPE_CHECKING:
    from radpatch.registry.catalog import Registry
    from radpatch.registry.model import Patch
    from radpatch.state.decide import Judge, PatchState
    from radpatch.state.decided import Renamed


def recorded_dependents(env: PythonEnv, name: str, leaving: set[str]) -> list[str]:
    """The patches the record says are applied on this install and require `name` (directly or
    through other recorded patches), apart from those in `leaving`, nearest first."""
    return [n for n in requiring(applied_records(env), [name]) if n not in leaving]


def requiring(records: Mapping[str, PatchRecord], names: Iterable[str]) -> list[str]:
    """The patches of `records` whose recorded `requires:` name one of `names`, directly or through
    others of them, nearest first (`names` left out): the one walk of the record's requirements."""
    start = list(names)
    found: list[str] = []
    frontier = list(start)
    while frontier:
        current = frontier.pop(0)
        for rec in records.values():
            if current in rec.requires and rec.patch not in found and rec.patch not in start:
                found.append(rec.patch)
                frontier.append(rec.patch)
    return found


def applied_records(env: PythonEnv) -> dict[str, PatchRecord]:
    """Every record entry of the environment that speaks for the install it names (the same
    distribution, version and RECORD as when it was written: a reinstall voids it)."""
    out: dict[str, PatchRecord] = {}
    for root in env.paths:
        for name, rec in Store(root).records().items():
            if name not in out and _current(root, rec):
                out[name] = rec
    return out


def _current(root: Path, rec: PatchRecord) -> bool:
    for dist_info in dist_infos.named(root, rec.distribution):
        found = dist_infos.describe(dist_info)  # name and version as status and the check read them
        if found.version == rec.version:
            return trusted(rec, found, wheel_record.identity(dist_info / "RECORD"))  # as status and the check trust it
    return False


def requirements_met(
    registry: Registry,
    env: PythonEnv,
    states: list[PatchState],
    judge: Judge,
    renamed: Renamed,
    hidden: Callable[[PatchState], bool] = lambda s: False,
) -> list[PatchState]:
    """`states` with each applied entry whose requirement is not applied (nor obsolete) read drifted,
    naming it: it is not what runs as tested (a requirement not among `states` decided with `judge`).
    The requirements are those it was applied with: radpatch's record's, as the engine-start check
    reads them in the same pass (state.verdict.unmet_requirements), and the entry's as written when
    it is the revision the record names (or there is no record). A requirement a revision of the
    entry gained since (or a rename of what it requires) that is not applied is a note, as any
    revision is until `apply` re-applies it ("applied (old revision)"): both readers say applied.
    A requirement that reads not applied but is a recorded entry renamed (`renamed`, the takeover
    rule: its code applied under the old name) is met, as the record the engine-start check reads says;
    the entry requiring it says so. `hidden(state)`: whether a copy the target interpreter imports first shadows
    a file of it (state.imported): such a requirement is not what runs, as the engine-start check reads it."""
    from radpatch.state.decide import patch_state

    by_name = {s.patch.name: s for s in states}
    known = set(registry.names())
    records: list[dict[str, PatchRecord]] = []
    seen: dict[str, bool] = {}
    under_old: dict[str, str] = {}  # a requirement met by its old name's record: the note saying so

    def recorded() -> dict[str, PatchRecord]:
        if not records:
            records.append(applied_records(env))
        return records[0]

    def state_of(name: str) -> PatchState:
        if name not in by_name:
            by_name[name] = patch_state(registry.load(name), env, judge)
        return by_name[name]

    def loose(name: str) -> bool:  # applied, by its code too: what an entry applied without a record needs
        if name not in seen:
            seen[name] = _met(name)
        return seen[name]

    def unseen(name: str) -> bool:  # applied, but not as the engine-start check reads it (att63 F3)
        if name not in by_name and name not in known:
            return False
        s = state_of(name)
        return s.state is State.APPLIED and (s.unrecorded or hidden(s))

    def met(name: str) -> bool:  # no record of radpatch's, or shadowed: the engine-start check does not count it
        return loose(name) and not unseen(name)

    def _met(name: str) -> bool:
        if name not in by_name and name not in known:  # no registry given has it: its record decides
            return name in recorded()
        s = state_of(name)
        if s.state in SATISFIED:
            return True
        note = renamed(s) if s.state is State.NOT_APPLIED else None
        if note:
            under_old[name] = note
        return bool(note)

    applied = [s for s in states if s.state is State.APPLIED]
    needs = {s.patch.name: _applied_with(s) for s in applied}
    gained = {s.patch.name: [r for r in s.patch.requires if r not in needs[s.patch.name]] for s in applied}
    # down each chain: a requirement that reads applied counts only while its own requirements are met
    # (one pass over all of them, as the engine-start check reads every record: att47 #2)
    frontier = [r for reqs in needs.values() for r in reqs]
    while frontier:
        req = frontier.pop()
        if req in needs or not loose(req):
            continue
        if req in by_name or req in known:
            s = state_of(req)
            needs[req] = _applied_with(s) if s.state is State.APPLIED else ()
        else:
            needs[req] = recorded()[req].requires
        frontier.extend(needs[req])

    def reads(name: str) -> State:  # what a requirement reads: one no registry given has is not applied
        return state_of(name).state if name in by_name or name in known else State.NOT_APPLIED

    def drifted(name: str) -> bool | str:  # a requirement not met that reads drifted itself: the note says so
        if reads(name) is State.APPLIED and state_of(name).unrecorded:
            return "carries its code without a record of radpatch's"
        if reads(name) is State.APPLIED and hidden(state_of(name)):
            return "is not what the target interpreter imports (a copy shadows it: `radpatch status` names it)"
        return reads(name) is State.DRIFTED

    # an entry applied without a record itself (status --check fails it anyway) needs its requirements' code
    # only: the engine-start check reads neither, so theirs being unrecorded too says nothing more
    strict = unmet_requirements(list(needs.items()), met, drifted)
    by_code = unmet_requirements(list(needs.items()), loose, lambda name: reads(name) is State.DRIFTED)
    notes = {n: (by_code if unseen(n) else strict).get(n, "") for n in strict.keys() | by_code.keys()}
    notes = {n: note for n, note in notes.items() if note}
    out = []
    for s in states:
        name = s.patch.name
        if name in notes:
            s = replace(s, state=State.DRIFTED, reason=with_note(s.reason, notes[name]))
        missing = {r: reads(r) for r in gained.get(name, ()) if not met(r)}
        if missing and s.state is State.APPLIED:
            s = replace(s, reason=with_note(s.reason, _gained_note(name, missing)))
        for req in dict.fromkeys([*needs.get(name, ()), *gained.get(name, ())]):
            if req in under_old and s.state is State.APPLIED:
                s = replace(s, reason=with_note(s.reason, under_old[req]))
        out.append(s)
    return out


def _applied_with(s: PatchState) -> tuple[str, ...]:
    """The requirements `s` was applied with: its record's, unless its entry is the revision the record
    names (then its `requires:` as written were in force too: a record from before they were kept
    lacks them) or there is no record of radpatch's."""
    if s.record is None or s.record.registry_digest == s.patch.digest:
        return tuple(dict.fromkeys([*s.patch.requires, *(s.record.requires if s.record else ())]))
    return s.record.requires


def _gained_note(name: str, missing: dict[str, State]) -> str:
    """What status says of an applied entry whose entry as written gained, since it was applied, a
    requirement that is not applied (the record's requirements are met: both readers say applied):
    what each reads, as the requirement pass says it ("which reads drifted"), and the way on."""
    said: dict[str, list[str]] = {}
    for req, state in missing.items():
        said.setdefault("is not applied" if state is State.NOT_APPLIED else f"reads {state.value}", []).append(req)
    what = " and ".join(f"{', '.join(reqs)}, which {reading}" for reading, reqs in said.items())
    other = [r for r, state in missing.items() if state is not State.NOT_APPLIED]
    apply = f"`radpatch apply {' '.join([*missing, name])}`"
    if not other:
        way = f"{apply} applies {'it' if len(missing) == 1 else 'them'} and re-applies {name}"
    else:
        them = "it" if len(other) == 1 else "them"
        way = f"`radpatch status {' '.join(other)}` says how to get {them} back, then {apply}"
    return f"its entry now requires {what} (a revision since it was applied): {way}"


def refuse_applied_dependents(registry: Registry, env: PythonEnv, named: list[Patch], judge: Judge) -> None:
    """revert's refusal: an entry that an applied entry requires stays until that one is reverted
    with it or first (write.revert asks it under the lock, so no apply slips in between; a
    dependent's state decided with `judge`)."""
    from radpatch.registry import series
    from radpatch.state.decide import State, patch_state

    everything = registry.load_valid()
    loaded = {p.name for p in everything}
    leaving = {p.name for p in named}
    for p in named:
        by_record = recorded_dependents(env, p.name, leaving)
        # by its entry's `requires:` or by its record's (an entry whose `requires:` names p's old name, or
        # another revision of it), whichever names p: the engine-start check orders by the record alone
        staying = [*(d for d in series.dependents(p.name, everything) if d not in leaving), *by_record]
        staying = [d for d in dict.fromkeys(staying) if d in loaded]
        applied = [d for d in staying if patch_state(registry.load(d), env, judge).state is State.APPLIED]
        # the record keeps each applied entry's `requires:`: a dependent whose registry is not given counts too
        unseen = [d for d in by_record if d not in loaded]
        if unseen:  # revert takes a recorded entry off from its record, so the revert named here goes through
            them = "it" if len(unseen) == 1 else "them"
            raise MustComeOff(
                f"{p.name}: {', '.join(unseen)} {'is' if len(unseen) == 1 else 'are'} recorded as applied and "
                f"require{'s' if len(unseen) == 1 else ''} it (`requires:`); "
                f"{'its entry is' if len(unseen) == 1 else 'their entries are'} in no registry given",
                f"revert {them} with it from radpatch's record: radpatch revert "
                f"{' '.join([*unseen, *(q.name for q in named)])}; or give the registry that holds {them} "
                "(--registry DIR)",
                unseen,
            )
        if applied:
            raise MustComeOff(
                f"{p.name}: {', '.join(applied)} {'is' if len(applied) == 1 else 'are'} applied and "
                f"require{'s' if len(applied) == 1 else ''} it (`requires:`)",
                f"revert them with it: radpatch revert {' '.join([*applied, *(q.name for q in named)])}",
                applied,
            )

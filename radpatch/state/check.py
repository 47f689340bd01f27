"""`status --check`'s rule, on the states decided: which patches it checks when none is named (the
record's, and an interrupted run's), which of them fail it, and the failure's words and way out.
(`commands.status` asks, prints the table, and raises what `failure` returns.)"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from pathlib import Path

from radpatch.errors import CheckFailed
from radpatch.install.environment import Installed
from radpatch.registry.model import Patch
from radpatch.state.decide import PatchState, State
from radpatch.state.record import DamagedJournal, Store
from radpatch.state.verdict import SATISFIED

# verify found the installed release contains the entry's change: the way out (else None)
ObsoleteHint = Callable[[Patch, Installed], str | None]


def recorded_names(paths: Iterable[Path]) -> list[str]:
    """The patches the record says are applied, and those an interrupted run was writing (its
    journal is looked at first: a run killed before its record leaves files half patched)."""
    names: dict[str, None] = {}
    for d in paths:
        store = Store(d)
        for n in _pending_names(store):
            names.setdefault(n, None)
        for n in store.records():
            names.setdefault(n, None)
    return list(names)


def _pending_names(store: Store) -> list[str]:
    """The patches of an interrupted run's journal in `store` ([] when none is pending); a
    damaged journal fails the check with its own message and way out."""
    if not store.journal.is_dir():
        return []
    try:
        return list(store.journal_plan().patches)
    except DamagedJournal as exc:
        raise CheckFailed(exc.message, exc.hint) from None


def failing(states: list[PatchState], shadowed: Container[Path]) -> list[PatchState]:
    """The states --check refuses: not applied (nor obsolete), an interrupted run pending, applied
    without radpatch's record, or a patched file the target interpreter would not import."""
    return [
        s
        for s in states
        if s.state not in SATISFIED or s.pending or s.unrecorded or any(f.path in shadowed for f in s.files)
    ]


def failure(bad: list[PatchState], obsolete_hint: ObsoleteHint) -> CheckFailed:
    """What --check raises for the states `failing` found: each patch's state, and `radpatch apply`
    as the way out when applying them all would do. `obsolete_hint` (releases.summaries, handed in
    by commands.status) names declaring the release obsolete when verify found it contains a
    change: applying cannot turn the check green then, declaring it obsolete can."""
    upstream = {id(s): h for s in bad if (h := _obsolete(s, obsolete_hint)) is not None}
    fixable = [
        s.patch.name
        for s in bad
        if (s.state is State.NOT_APPLIED or s.unrecorded)
        and not s.pending
        and not s.patch.from_record
        and id(s) not in upstream
    ]
    if upstream and len(upstream) + len(fixable) == len(bad):
        hint = next(iter(upstream.values()))
    elif len(bad) == 1 and bad[0].hint:  # a state with its own way out (state.file_decide.ambiguous)
        hint = bad[0].hint
    elif len(fixable) == len(bad):
        hint = f"apply: radpatch apply {' '.join(fixable)}"
    else:
        hint = "see why above; `radpatch status NAME` explains each state"
    return CheckFailed("; ".join(_wrong(s) for s in bad), hint)


def _obsolete(s: PatchState, obsolete_hint: ObsoleteHint) -> str | None:
    """Declaring the release obsolete as the way out, for a patch not applied on a release verify
    found to contain its change (from a registry entry, no run pending); None otherwise."""
    if s.state is not State.NOT_APPLIED or s.dist is None or s.patch.from_record or s.pending:
        return None
    return obsolete_hint(s.patch, s.dist)


def _wrong(s: PatchState) -> str:
    """What fails the check, for one patch: its state when that is not applied; else what is wrong
    with an applied one (never just "is applied", which reads as no failure)."""
    if s.state not in SATISFIED:
        head = f"{s.patch.name} is {s.state.value}" + (" (an interrupted run is pending)" if s.pending else "")
    elif s.pending:
        head = f"{s.patch.name}: an interrupted run is pending on its files"
    elif s.unrecorded:
        head = f"{s.patch.name} is not recorded as applied"
    else:  # `failing`: a patched file the target interpreter does not import
        head = f"{s.patch.name}'s patched code does not run"
    return head + (f" ({s.reason})" if s.reason else "")

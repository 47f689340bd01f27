"""`status --check`'s rule, on the states decided: which patches it checks when none is named (the
record's, and an interrupted run's), which of them fail it, and the failure's words and way out.
(`commands.status` asks, prints the table, and raises what `failure` returns.)"""

from __future__ import annotations

from collections.abc import Container, Iterable
from pathlib import Path

from radpatch.errors import CheckFailed
from radpatch.state.decide import PatchState, State
from radpatch.state.record import DamagedJournal, Store
from radpatch.state.verdict import SATISFIED


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


def failure(bad: list[PatchState]) -> CheckFailed:
    """What --check raises for the states `failing` found: each patch's state, and `radpatch apply`
    as the way out when applying them all would do."""
    upstream = [s for s in bad if _verified_obsolete(s)]
    fixable = [
        s.patch.name
        for s in bad
        if (s.state is State.NOT_APPLIED or s.unrecorded)
        and not s.pending
        and not s.patch.from_record
        and s not in upstream
    ]
    if upstream and len(upstream) + len(fixable) == len(bad):
        s = upstream[0]
        assert s.dist is not None
        hint = (
            f"verify found {s.dist.name} {s.dist.version} already contains {s.patch.name}'s change: "
            f"declare {s.dist.version} in the entry's `obsolete:` (apply then leaves it alone)"
        )
    elif len(bad) == 1 and bad[0].hint:  # a state with its own way out (state.decide.ambiguous)
        hint = bad[0].hint
    elif len(fixable) == len(bad):
        hint = f"apply: radpatch apply {' '.join(fixable)}"
    else:
        hint = "see why above; `radpatch status NAME` explains each state"
    return CheckFailed("; ".join(_wrong(s) for s in bad), hint)


def _verified_obsolete(s: PatchState) -> bool:
    """Not applied, on an installed release verify read and found to contain the change already
    (releases.summaries: its cache): applying cannot turn the check green, declaring it obsolete can."""
    if s.state is not State.NOT_APPLIED or s.dist is None or s.patch.from_record or s.pending:
        return False
    from radpatch.releases.summaries import obsolete_run
    from radpatch.releases.wheels import cache_root

    return obsolete_run(cache_root(), s.patch, s.dist.version) is not None


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

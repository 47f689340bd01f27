"""revert's lifting: the applied patches not named that lie above a named one on its files, taken
off and put on again in the same run; one that cannot go on again must come off with the named
ones (errors.MustComeOff), and `whole` finds every entry one revert must name for that, no more."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from radpatch.errors import MustComeOff, RadpatchError, RefusedError
from radpatch.install import targets as installed
from radpatch.install.environment import PythonEnv
from radpatch.prove import run, undo
from radpatch.prove.form import judge
from radpatch.registry.model import Patch
from radpatch.state.decide import PatchState, State, decide
from radpatch.state.restack import stacked_above

Change = run.Change
Trial = Callable[[list[str]], None]  # a dry run of `revert NAMES`: raises its refusal, returns when it would succeed


def partly_applied(ps: PatchState) -> frozenset[str] | None:
    """The files to take a recorded patch off where some of its files carry it and every other one
    is as it was before it (a module it created deleted by hand, a file put back): reverting those
    leaves every file as before the patch, which is all revert promises (att47 #6: refused, with
    hints that went round). None where that is not the state (a file in neither state: refused)."""
    if ps.state is not State.DRIFTED or ps.record is None or not ps.files:
        return None
    carried = frozenset(f.relpath for f in ps.files if f.state is State.APPLIED)
    rest = [f for f in ps.files if f.relpath not in carried]
    if not carried or not rest or any(f.state is not State.NOT_APPLIED for f in rest):
        return None
    return carried


def lifted(
    env: PythonEnv, patches: list[Patch], named: set[str], load: Callable[[str], Patch] | None
) -> list[PatchState]:
    """The applied patches not named stacked above a named one on its files, or above one of these
    on theirs, newest first. Refused (MustComeOff, naming each) when one cannot be put on again as
    it is (no `load`, no entry, not applied as its entry says): it comes off with the named ones."""
    todo: list[PatchState] = []
    for patch in patches:
        ps = decide(installed.read(patch, env), env, judge)
        # one applied, or partly (a file put back by hand): what is stacked above it where it is still on
        if (ps.state is State.APPLIED or partly_applied(ps) is not None) and ps.record is not None:
            todo.append(ps)
    seen, out, stuck = set(named), [], {}
    while todo:
        ps = todo.pop()
        assert ps.record is not None
        for name in (n for rec in ps.record.files for n in stacked_above(ps, rec)):
            if name in seen:
                continue
            seen.add(name)
            try:
                up = decide(installed.read(load(name), env), env, judge) if load else None
            except RadpatchError as exc:
                stuck[name] = exc.message
                continue
            why = _why_not_lifted(up)
            if why:
                stuck[name] = why
                continue
            assert up is not None
            out.append(up)
            todo.append(up)
    if stuck:
        names = sorted(named)
        one = len(stuck) == 1
        raise MustComeOff(
            f"{', '.join(names)}: {', '.join(stuck)} {'lies' if one else 'lie'} above "
            f"{'it' if len(names) == 1 else 'them'} and cannot go on again after "
            f"({'; '.join(f'{n}: {w}' for n, w in stuck.items())})",
            f"revert them together: radpatch revert {' '.join([*names, *stuck])}",
            list(stuck),
        )
    return sorted(out, key=lambda ps: -ps.record.seq)  # type: ignore[union-attr]


def _why_not_lifted(ps: PatchState | None) -> str:
    """Why `ps` cannot be taken off and put on again from its registry entry ("" when it can)."""
    if ps is None:
        return "no registry entry to put it on again from"
    if ps.patch.from_record:
        return "no registry given has its entry"
    if ps.declined is not None:
        return f"its entry does not patch this version ({ps.declined.why})"
    if ps.state is not State.APPLIED or ps.record is None:
        return f"it reads {ps.state.value}, not applied as its entry says"
    return ""


def put_back(ps: PatchState, env: PythonEnv, overlay: undo.Overlay, patches: list[Patch]) -> Change:
    """A lifted patch on again; refused (MustComeOff, naming it) when it does not apply without the
    ones reverted."""
    try:
        return run.put_on(ps, env, overlay)
    except RefusedError as exc:
        names = [p.name for p in patches]
        raise MustComeOff(
            f"{', '.join(names)}: {ps.patch.name} is applied on top of it and does not apply without it "
            f"({exc.message})",
            f"revert them together: radpatch revert {' '.join([*names, ps.patch.name])}",
            [ps.patch.name],
        ) from None


@dataclass(frozen=True)
class Together:
    """What one revert of `asked` must name (`names`, in the order they went on), and `blocked`: the
    refusal of that revert when it is not one more entry that cannot stay on (a file edited since,
    an entry in no registry given): what to mend before it goes through. `trials`: the dry runs."""

    names: list[str]
    blocked: RadpatchError | None
    trials: int


def together(asked: list[str], trial: Trial, seqs: Callable[[list[str]], dict[str, int]]) -> Together:
    """Every entry that cannot stay on without what `revert ASKED` takes off: those that require
    one of them, and those above one of them that do not go on again without it, down any chain,
    each found by a dry run of the revert naming the ones found so far (`trial`); the search stops
    at the first refusal that names no new one, which is then what blocks (rev53: it stopped there
    silently, and the hint's revert gave that refusal)."""
    names, trials = list(dict.fromkeys(asked)), 0
    blocked: RadpatchError | None = None
    while True:
        trials += 1
        try:
            trial(names)
        except MustComeOff as exc:
            more = [n for n in exc.names if n not in names]
            if more:
                names += more
                continue
            blocked = exc
        except RadpatchError as exc:
            blocked = exc
        break
    seq = seqs(names)
    return Together(sorted(names, key=lambda n: seq.get(n, -1)), blocked, trials)


def whole(
    asked: list[str], first: MustComeOff, trial: Trial, seqs: Callable[[list[str]], dict[str, int]]
) -> RefusedError:
    """`first`, the refusal of `revert ASKED`, with a hint naming every entry that cannot stay on
    without what it takes off (`together`), in the order they went on, or, where that revert is
    refused too for another reason, saying what blocks it and how to mend it first. Entries a
    revert lifts and puts back are not named (att50 #4: the hint named them, and gave another
    refusal first)."""
    got = together([*asked, *first.names], trial, seqs)
    names = got.names
    extra = [n for n in names if n not in asked and n not in first.names]
    command = f"radpatch revert {' '.join(names)}"
    if got.blocked is not None:
        b = got.blocked
        return RefusedError(
            f"{first.message}; and `revert {' '.join(names)}` is refused too: {b.message}",
            f"{b.hint} (all together: {command})" if b.hint else f"mend that first, then: {command}",
        )
    if not extra:  # its own hint names them all already
        return first
    each = "it requires" if len(extra) == 1 else "each requires"
    message = (
        f"{first.message}; and then {', '.join(extra)} cannot stay on either ({each} one of them, or lies "
        "above one and does not go on again without it)"
    )
    return RefusedError(message, f"revert them together: {command}")

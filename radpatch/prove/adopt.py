"""Adopt: a file radpatch has no record of that already carries a patch's result (someone applied
it by hand, or with sed or `patch`) is recorded as applied without being written, when the patch
run on its RECORD bytes (read from the wheel, only on this path) is its code (AST-equal). A file
radpatch patched and someone edited since is adopted the same way on top of what radpatch left
(prove.onto: a second `capture` round): the patch run on those bytes must give its code, and the
patches under it read applied again once it is recorded. The proof that decides it, run by
`apply` before it plans anything else."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from radpatch import source_lines
from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.environment import PythonEnv
from radpatch.prove import adopt_bytes, onto, plan
from radpatch.prove.adopt_bytes import bases_of, record_bytes
from radpatch.prove.adopt_candidates import adoptable, with_dependents, with_required
from radpatch.prove.analysis import forward
from radpatch.prove.carried_too import Others, carried_too
from radpatch.prove.reverse_check import ast_equal
from radpatch.prove.same_code import same_code, unreadable_here
from radpatch.registry.model import Patch, Rewrite, creates
from radpatch.state import owner
from radpatch.state.decide import FileState, PatchState, State, reinstall_hint
from radpatch.state.record import Store

Say = adopt_bytes.Say
WheelBytes = adopt_bytes.WheelBytes


@dataclass(frozen=True)
class Adopted:
    files: dict[Path, plan.PlannedFile]  # planned on the RECORD bytes; the last adopter's `after` is the file's bytes
    original_from: str  # where the RECORD bytes came from (the wheel), or what radpatch left (stacked)
    created: frozenset[Path] = frozenset()  # modules the patch creates: their state before is no file
    # files edited on top of radpatch's patches: what each went on
    stacked: dict[Path, onto.HandEditBase] = field(default_factory=dict)


def adoption(
    patches: list[Patch],
    states: dict[str, PatchState],
    redo: list[str],
    env: PythonEnv,
    wheel: WheelBytes | None,
    say: Say,
    others: Others | None = None,
) -> dict[str, Adopted]:
    """The patches whose files already carry their result, planned on the files' RECORD bytes.

    A candidate: no record of radpatch's, read `drifted` or applied (by its code), each such file
    with no link of radpatch's and a sha256 in RECORD, or a module the patch creates (its state
    before is no file: no wheel is read for it), or a file radpatch patched and someone edited
    since (it starts from what the newest link of its chain left: prove.onto). Per file, the
    candidates run in order on those bytes (with every proof step); the file is adopted when the
    result is its code (AST-equal). Otherwise the run is refused (the file is neither as installed
    nor the result: restore it). Without the RECORD bytes (no wheel, no index), a drifted candidate
    is refused, saying what to give; an applied one stays as it was (applied by its code, not recorded).
    `others`: the registries' other entries that rewrite a file, asked only when a file is refused, to
    name the one whose code its other edits are (prove.carried_too)."""
    # a module a patch of the run creates, which another one changes: no file before either
    created = frozenset(f.path for p in patches for f in states[p.name].files if creates(f.rewrites))
    todo = {p.name: adoptable(states[p.name], created) for p in patches if p.name not in redo}
    todo = with_required(patches, states, {n: fs for n, fs in todo.items() if fs}, created)
    # (then each candidate under one goes under it on every file they share: with_required again)
    above = with_required(patches, states, with_dependents(patches, states, todo, redo, created), created)
    if above != todo:  # first with the entries that may be on top (their result is not theirs alone)
        said: list[str] = []
        try:
            out = _adopted(states, above, env, wheel, said.append, created, others)
        except RefusedError:  # not on top after all: the candidates alone, refused as they are
            pass
        else:
            for line in said:
                say(line)
            return out
    return _adopted(states, todo, env, wheel, say, created, others)


def _adopted(
    states: dict[str, PatchState],
    todo: dict[str, list[FileState]],
    env: PythonEnv,
    wheel: WheelBytes | None,
    say: Say,
    created: frozenset[Path],
    others: Others | None = None,
) -> dict[str, Adopted]:
    """`todo` planned per file in order on the bytes before them; refused unless each file's result
    is its code (adoption)."""
    if not todo:
        return {}
    bases, unknown = bases_of(states, todo, env)
    todo = {n: fs for n, fs in todo.items() if n not in unknown}
    if not todo:
        return {}
    pristine, original_from = record_bytes(states, todo, wheel, say, created, bases)
    out: dict[str, Adopted] = {}
    by_path: dict[Path, list[tuple[str, FileState]]] = {}
    for name, files in todo.items():
        if name in pristine:
            for f in files:
                by_path.setdefault(f.path, []).append((name, f))
    planned: dict[str, dict[Path, plan.PlannedFile]] = {}
    made: dict[Path, str] = {}  # a file no file was before -> the candidate that creates it (the first)
    for path, users in by_path.items():
        first = pristine[users[0][0]][path]
        if first is None:
            made[path] = users[0][0]
        data = first or b""
        of = f"what {bases[path].top.patch} left" if path in bases else "its RECORD bytes"
        steps: list[tuple[str, plan.PlannedFile]] = []
        try:
            for name, f in users:
                change = plan.plan(states[name].patch, f.rewrites, f.module, path, data, env)
                steps.append((name, change))
                data = change.after
        except RefusedError as exc:
            name, f = users[len(steps)]
            if _matches(states[name].patch, f.rewrites, data, path):
                raise _refused_result(name, f.relpath, path, of, exc) from None
            why = exc.message.replace(str(path), f.relpath).removeprefix(f"{name}: ")
            raise _not_adopted(
                states, [n for n, _ in users], f.relpath, f"{name} does not run on {of}: {why}", run=list(todo)
            )
        disk = users[-1][1].data
        same = ast_equal(data, disk) or same_code(data, disk, env.executable)
        if not same:
            rel = users[0][1].relpath
            edits = _other_edits(first or b"", data, disk) if same is False else unreadable_here(disk)
            why = f"{rel}'s code is not what the patch makes of {of} ({edits})"
            if same is None:
                why = f"{rel}'s code is not told to be what the patch makes of {of}: {edits or unreadable_here(data)}"
            if first is None:
                why = f"{rel} exists and is not the module the entry creates (compared as syntax trees)"
            ran = [(states[n].patch, f.rewrites) for n, f in users]
            too = carried_too(path, first or b"", ran, disk, others(path)) if others else []
            raise _not_adopted(states, [n for n, _ in users], rel, why, too, list(todo))
        last = steps[-1]
        steps[-1] = (last[0], replace(last[1], after=disk, pyc=None))
        if first is None and not owner.product(Store(root_of(states, users)), users[0][1].relpath, disk):
            # someone else's file where the entry creates its module: found, kept as the original (state.owner)
            made.pop(path)
            steps[0] = (steps[0][0], replace(steps[0][1], pristine=steps[0][1].after))
        for name, change in steps:
            planned.setdefault(name, {})[path] = change
    for name in todo:
        if name in planned:
            mine = planned[name]
            stacked = {p: bases[p] for p in mine if p in bases}
            out[name] = Adopted(mine, original_from[name], frozenset(p for p in mine if made.get(p) == name), stacked)
    return out


def root_of(states: dict[str, PatchState], users: list[tuple[str, FileState]]) -> Path:
    """The installation directory of a file's candidates (the one whose `.radpatch/` records it)."""
    root = states[users[0][0]].root
    assert root is not None
    return root


def carried(states: dict[str, PatchState], adopted: dict[str, Adopted]) -> dict[str, PatchState]:
    """The states once the adopted patches are recorded: a patch under a stacked adoption carries
    its file again (its link is on the walk from the adopted file down), so the run does not
    refuse it as drifted; it reads applied when every other file of it does too."""
    back: dict[str, set[Path]] = {}
    for a in adopted.values():
        for path, b in a.stacked.items():
            for name in b.under:
                back.setdefault(name, set()).add(path)
    out = dict(states)
    for name, paths in back.items():
        ps = states.get(name)
        if ps is None or ps.record is None or ps.state is State.APPLIED:
            continue
        files = tuple(replace(f, state=State.APPLIED, detail="") if f.path in paths else f for f in ps.files)
        if all(f.state is State.APPLIED for f in files):
            out[name] = replace(ps, state=State.APPLIED, reason="", files=files)
    return out


def _matches(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, path: Path) -> bool:
    """The rewrites run on `data` (so a refusal of the plan is its proof's, not a missing match)."""
    try:
        forward(patch, rws, data, str(path))
    except RadpatchError:
        return False
    return True


def _refused_result(name: str, relpath: str, path: Path, of: str, exc: RefusedError) -> RefusedError:
    """The file carries the patch's result, and the proof refuses that result itself (an undefined
    name, code that does not compile): that is the reason, said with the file's site-relative path."""
    why = exc.message.replace(str(path), relpath).removeprefix(f"{name}: ")
    line = re.search(r"\(line (\d+)", why)
    at = f"{relpath}:{line.group(1)}" if line else relpath
    return RefusedError(
        f"{name}: not recorded as applied: {at} carries the patch's result (run on {of}), and the proof refuses "
        f"it: {why}",
        exc.hint,
    )


def _other_edits(before: bytes, result: bytes, disk: bytes) -> str:
    """Where the file differs from the patch's result on `before` (its RECORD bytes, or what the
    entries under it left), as the file's lines, in two kinds: where the file still has the code
    the patch replaces (a part of the patch is missing: a half-applied edit), and other edits."""
    import difflib

    def lines(data: bytes) -> list[str]:
        return source_lines.split(data.decode("utf-8", "replace"))

    def changed(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
        ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in ops if tag != "equal"]

    old, ours, theirs = lines(before), lines(result), lines(disk)
    removed = {line.strip() for i1, i2, _, _ in changed(old, ours) for line in old[i1:i2]}
    added = {line.strip() for _, _, j1, j2 in changed(old, ours) for line in ours[j1:j2]}
    missing: list[tuple[int, int]] = []
    other: list[tuple[int, int]] = []
    for i1, i2, j1, j2 in changed(ours, theirs):
        span = (j1 + 1, max(j2, j1 + 1))
        still = all(line.strip() in removed for line in theirs[j1:j2])  # the original code, or none
        undone = bool(ours[i1:i2]) and all(line.strip() in added for line in ours[i1:i2])
        (missing if still and undone else other).append(span)
    parts = []
    if missing:
        parts.append(f"the file carries only part of the patch: its change {_at(missing)} is not there")
    if other:
        parts.append(f"other edits {_at(other)}")
    return "; ".join(parts)


def _many(spans: list[tuple[int, int]]) -> bool:
    return len(spans) > 1 or bool(spans) and spans[0][0] != spans[0][1]


def _at(spans: list[tuple[int, int]]) -> str:
    """`line N` / `lines N-M, K, ...` (the first five spans)."""
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans[:5]) + (", ..." if len(spans) > 5 else "")
    return f"at line{'s' if _many(spans) else ''} {shown}"


def _not_adopted(
    states: dict[str, PatchState],
    names: list[str],
    relpath: str,
    why: str,
    too: list[str] | None = None,
    run: list[str] | None = None,
) -> RefusedError:
    """The refusal of a file the candidates cannot adopt: it is neither as installed nor their
    result. The reason once (not the state's own reason again), and how to get past it: naming the
    other entries whose code the file carries too (`too`, prove.carried_too) when there are such,
    with every entry of the run (`run`: those of the other files too, so that following the hint
    never drops an entry another file needs; att47 #5, hints that went round in a circle)."""
    if too:
        every = list(dict.fromkeys([*names, *(run or ()), *too]))
        both = "both" if len(every) == 2 else "them all"
        return RefusedError(
            f"{names[0]}: cannot apply: not adopted: {why}: that is {' and '.join(too)}'s code",
            f"{relpath} carries {', '.join(too)} too: `radpatch apply {' '.join(every)}` adopts {both}",
        )
    together = " (naming with it every entry whose patch that file carries)" if len(names) == 1 else ""
    return RefusedError(f"{names[0]}: cannot apply: not adopted: {why}", reinstall_hint(states[names[0]]) + together)

"""An entry put on a file that carries other entries' changes must not undo them (att53 #1).

Each entry's proof (prove.plan) reads the file as it is when that entry is planned: an entry
applied on top of another (`C` after `A`) that stores over `A`'s value, or returns above `A`'s
line, passed its own proof, while `A`'s proof, run first, never saw `C`'s code. `apply C; apply
A` was refused and `apply A C` was not. So, once an entry is planned on a file, each entry under
it there is proven again on the result: taken off it textually (rewrite.runner.backward) and
planned again there (prove.plan.plan), as `apply A` after `C` would plan it. When the inverse
refuses (set_constant's does on a module binding the name twice), the file without it is built
instead: the other entries' rewrites replayed on the bytes under the lowest of them (the kept
original), used only when replaying them all with it gives the result. A refusal there
refuses the entry on top with the lower entry's refusal. The entries under it are those planned
earlier in the run, and those radpatch's record says the file carries whose entry a loaded
registry has; one no loaded registry has is not proven again, and that is said (docs/safety.md).

An entry that cannot be taken off the result textually (the one on top built on its code:
changed or found its lines), or whose plan there does not give the result back, is not proven
again: the entry on top then depends on its code, which is the reading `requires:` gives; that
is said, not refused.

Each run of an entry's rewrites is kept by (entry, file, input bytes), the planned ones with their
proof: proving again never runs an entry a second time on bytes it already ran on (import's dry
run counts one run per input: tests/importing/test_import_one_pass.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.environment import PythonEnv
from radpatch.prove import plan
from radpatch.prove.analysis import backward, forward
from radpatch.prove.carried_too import Others
from radpatch.prove.reverse_check import ast_equal
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.refused import RewriteRefused
from radpatch.state.decide import FileState, PatchState
from radpatch.state.hashes import live
from radpatch.state.record import ABSENT, Store, state_sha

Say = Callable[[str], None]
Entry = tuple[Patch, tuple[Rewrite, ...]]
Key = tuple[str, str, Path, str]  # entry name and digest, file, sha256 of the bytes it ran on


@dataclass
class Below:
    """What a run knows of the entries under each file: those it planned (in order, each with the
    bytes it was planned on), and the loaded registries' entries (`others`,
    carried_too.from_registries) for the recorded ones."""

    others: Others | None
    say: Say
    planned: dict[Path, list[tuple[Entry, bytes]]] = field(default_factory=dict)
    named: dict[tuple[str, Path], Entry] = field(default_factory=dict)  # the run's entries, by name and file
    # each file's recorded entries under the run's first change of it, and the bytes under them
    recorded: dict[Path, tuple[list[Entry], bytes | None]] = field(default_factory=dict)
    # each entry's runs: input -> its result (None: refused), and whether that result was proven (planned)
    runs: dict[Key, tuple[bytes | None, bool]] = field(default_factory=dict)

    def ran(self, patch: Patch, path: Path, data: bytes) -> tuple[bytes | None, bool] | None:
        return self.runs.get(_key(patch, path, data))

    def keep(self, patch: Patch, path: Path, data: bytes, result: bytes | None, proven: bool) -> None:
        self.runs[_key(patch, path, data)] = (result, proven)


def _key(patch: Patch, path: Path, data: bytes) -> Key:
    return (patch.name, patch.digest, path, hashlib.sha256(data).hexdigest())


def reprove(below: Below, ps: PatchState, f: FileState, before: bytes | None, after: bytes, env: PythonEnv) -> None:
    """Prove each entry under `ps`'s file `f` again on `after` (`before`: the file before `ps`);
    refuse `ps` when one of them is refused there. Then `ps` counts as under the run's later entries."""
    top = ps.patch.name
    below.keep(ps.patch, f.path, before or b"", after, proven=True)
    run = below.planned.get(f.path, [])
    if f.path not in below.recorded:  # read on the file as the run first changes it
        below.recorded[f.path] = _recorded(below, ps, f, before)
    chain, base = below.recorded[f.path]
    if base is None and not chain and run:
        base = run[0][1]
    stack = [*chain, *(e for e, _ in run), (ps.patch, f.rewrites)]
    replays: bool | None = None  # whether replaying the stack gives `after`: asked when an inverse refuses
    needs = _required(ps.patch, [p for p, _ in stack])
    for k, (patch, rws) in enumerate(stack[:-1]):
        without = _off(patch, rws, after, f.path)
        if without is None and base is not None:
            if replays is None:
                replays = ast_equal(_replayed(below, stack, -1, base, f.path) or b"", after)
            without = _replayed(below, stack, k, base, f.path) if replays else None
        if without is None:
            _not_reproven(below, top, patch.name, f.relpath, patch.name in needs)
            continue
        known = below.ran(patch, f.path, without)
        if known is not None and known[0] is not None and known[1]:  # planned and proven on these bytes already
            if not ast_equal(known[0], after):
                _not_reproven(below, top, patch.name, f.relpath, patch.name in needs)
            continue
        try:
            again = plan.plan(patch, rws, f.module, f.path, without, env, known[0] if known else None)
        except RewriteRefused as exc:
            # the one on top wrote a second copy of what it finds (matching.Ambiguous), or its code is where
            # this one writes (matching.Occupied: a module fill_module fills holds its statement): it builds on it
            if "(ambiguous)" in exc.detail or exc.occupied:
                _not_reproven(below, top, patch.name, f.relpath, patch.name in needs)
                continue
            raise _undoes(top, patch.name, f.relpath, exc) from None
        except RefusedError as exc:
            raise _undoes(top, patch.name, f.relpath, exc) from None
        below.keep(patch, f.path, without, again.after, proven=True)
        if not ast_equal(again.after, after):  # the one on top changed its code: not what it leaves
            _not_reproven(below, top, patch.name, f.relpath, patch.name in needs)
    below.planned.setdefault(f.path, []).append(((ps.patch, f.rewrites), before or b""))


def _off(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, path: Path) -> bytes | None:
    """`data` with the entry taken off textually (None: its inverse refuses)."""
    try:
        return backward(patch, rws, data, str(path))
    except RadpatchError:
        return None


def _replayed(below: Below, stack: list[Entry], skip: int, base: bytes, path: Path) -> bytes | None:
    """The entries of `stack` but the one at `skip` run in order on `base` (None: one does not
    apply); a run on bytes the entry already ran on is not repeated."""
    data = base
    for k, (patch, rws) in enumerate(stack):
        if k == skip:
            continue
        known = below.ran(patch, path, data)
        if known is None:
            try:
                result: bytes | None = forward(patch, rws, data, str(path))
            except RadpatchError:
                result = None
            below.keep(patch, path, data, result, proven=False)
            known = (result, False)
        if known[0] is None:
            return None
        data = known[0]
    return data


def _recorded(below: Below, ps: PatchState, f: FileState, before: bytes | None) -> tuple[list[Entry], bytes | None]:
    """The entries radpatch's record says the file carries as it is now (oldest first), other
    than `ps`, each with its rewrites of the file from a loaded registry in the revision applied;
    and the bytes under the lowest (its kept original) when every one of them is (else None)."""
    if before is None or ps.root is None:
        return [], None
    store = Store(ps.root)
    walked = live(store, f.relpath, state_sha(before), before)
    if walked is None:
        return [], None
    records = store.records()
    given = [(o.patch, o.rewrites) for o in (below.others(f.path) if below.others else [])]
    given += [e for (_, path), e in below.named.items() if path == f.path]
    loaded = {p.name: (p, rws) for p, rws in given if p.name in records and records[p.name].registry_digest == p.digest}
    links = [ln for ln in walked[0] if ln.patch != ps.patch.name]
    out = [loaded[ln.patch] for ln in links if ln.patch in loaded]
    for name in dict.fromkeys(ln.patch for ln in links if ln.patch not in loaded):
        below.say(
            f"{ps.patch.name}: {f.relpath} carries {name} (radpatch's record), whose entry no loaded registry has "
            f"in the revision applied, so {name} is not proven again on {ps.patch.name}'s result: give its "
            f"registry with --registry, or re-apply it, to have it proven"
        )
    if not links or len(out) < len(links):
        return out, None
    first = links[0].file.original_sha256
    return out, b"" if first == ABSENT else store.original(first)


def _undoes(top: str, lower: str, relpath: str, exc: RefusedError) -> RefusedError:
    return RefusedError(
        f"{top} undoes {lower}'s change in {relpath}: {lower} proven again on the file as {top} leaves it "
        f"is refused: {exc.message}",
        f"{lower} and {top} cannot both be applied as written (in either order): leave {top} out, or change "
        f"one of the entries so that {top}'s code does not store over or cut off {lower}'s",
    )


def _not_reproven(below: Below, top: str, lower: str, relpath: str, declared: bool) -> None:
    advice = "as its `requires:` says" if declared else f"declare `requires: [{lower}]` on {top}"
    below.say(
        f"{top}: builds on {lower}'s code in {relpath} ({lower} does not come off {top}'s result as written), "
        f"so {lower} is not proven again there: {top}'s code needs {lower}'s ({advice})"
    )


def _required(top: Patch, known: list[Patch]) -> set[str]:
    """The entries `top` requires, directly or through those of `known` it requires (att59 F4: the
    note asked for a `requires:` the entry already had)."""
    by_name = {p.name: p for p in known}
    out: set[str] = set()
    todo = list(top.requires)
    while todo:
        name = todo.pop()
        if name not in out:
            out.add(name)
            todo.extend(by_name[name].requires if name in by_name else ())
    return out

"""What radpatch has changed in an environment, entry by entry: every entry applied, and every
entry the environment's record (`.radpatch/record.json`) holds, whether or not a loaded registry
has it, with its diff and whether its files are still as radpatch wrote them. The CycloneDX SBOM
(`status --format cyclonedx`, commands/sbom.py) renders it.

An entry that is not applied and not recorded is not in the image. The digest named is the one
applied (the record's), with the registry's current one beside it when the entry has changed
since. A recorded entry whose files are not what radpatch wrote (drifted, edited by hand) is
listed with why (`flag`): its diff cannot be vouched for."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from radpatch.files import read_regular
from radpatch.install.environment import PythonEnv
from radpatch.registry.catalog import Registry
from radpatch.registry.model import Patch
from radpatch.state import unloaded
from radpatch.state.decide import Judge, PatchState, Renamed, State, states
from radpatch.state.record import ABSENT, PatchRecord, Store, sha256
from radpatch.state.recorded_diffs import NoDiff, recorded_diff


@dataclass(frozen=True)
class Listed:
    """One entry of a component's pedigree: from its state (a loaded entry) and/or its record."""

    name: str
    dist: tuple[str, str]  # (distribution, version)
    digest: str  # the revision applied (the record's), else the loaded entry's
    current: str  # the loaded entry's digest ("" when no registry has it)
    links: tuple[str, ...]  # `upstream:` of the loaded entry
    summary: str
    diff: str | NoDiff  # NoDiff: it cannot be made, and why
    files: tuple[tuple[str, str], ...]  # (relpath, sha256 radpatch wrote)
    flag: str  # "" when the files are as radpatch left them, else why not


def _intact(env: PythonEnv, name: str, root: Path) -> str:
    """Empty when the recorded entry `name` (no loaded registry has it) reads applied, else why not:
    decided as status and the engine-start check decide it (state.unloaded, state.verdict), so a
    comment edit is not drift here either."""
    ps = unloaded.decide(unloaded.stand_in(name, root), env)
    if ps.state is State.APPLIED:
        return ""
    reason = ps.reason.replace(unloaded.note(name), "").strip("; ")
    return f"{ps.state.value}: {reason}" if reason else ps.state.value


def collect(
    registry: Registry,
    patches: Sequence[Patch],
    env: PythonEnv,
    named: Collection[str] | None,
    judge: Judge,
    unified_diff: Callable[[PatchState], str],
    renamed: Renamed,
) -> list[Listed]:
    """The entries `patches` (of `registry`) that are in the image, read as status reads them
    (state.decide.states with `judge` and `renamed`: an unmet requirement reads drifted), and every other entry the
    environment's record holds; when the user named entries, of those only the ones in `named` (an
    entry applied from a registry no longer loaded is named as status names it). An applied entry's diff is
    `unified_diff`'s (prove.diffs', the one `radpatch diff` prints)."""
    out: list[Listed] = []
    seen: set[str] = set()
    for s in states(registry, env, patches, judge, renamed, imported=False).each:
        p = s.patch
        if s.dist is None or (s.state is not State.APPLIED and s.record is None):
            continue  # not in the image
        seen.add(p.name)
        store = Store(s.dist.root)
        applied = s.state is State.APPLIED
        diff: str | NoDiff = (
            unified_diff(s)
            if applied
            else recorded_diff(store, s.record)
            if s.record
            else NoDiff(f"{p.name} has no record")
        )
        files = _left(store, s.record) if s.record else ()
        flag = "" if applied else f"{s.state.value}: {s.reason}" if s.reason else s.state.value
        if applied and s.unrecorded:  # its code is there, but radpatch never applied it (status --check fails it too)
            flag = f"not recorded: {s.reason}" if s.reason else "not recorded: radpatch has no record of applying it"
        diff = _withheld(store, p.name, files, flag) if flag and s.record else diff
        dist = (s.dist.name, str(s.dist.version))
        digest = s.record.registry_digest if s.record else p.digest
        out.append(Listed(p.name, dist, digest, p.digest, p.upstream, p.summary, diff, files, flag))
    for d in env.paths:
        store = Store(d)
        for name, rec in sorted(store.records().items(), key=lambda item: item[1].seq):
            if name in seen or (named is not None and name not in named):
                continue
            seen.add(name)
            files = _left(store, rec)
            dist = (rec.distribution, rec.version)
            flag = _intact(env, name, d)
            diff = _withheld(store, name, files, flag) if flag else recorded_diff(store, rec)
            out.append(Listed(name, dist, rec.registry_digest, "", rec.upstream, "", diff, files, flag))
    return out


def _withheld(store: Store, name: str, files: tuple[tuple[str, str], ...], flag: str) -> NoDiff:
    """Why a flagged entry gets no diff: the same for every entry of a drifted file, the lower of two
    stacked ones too (whose own bytes are kept), as `radpatch diff` refuses each: the image does
    not hold what radpatch wrote, so no diff of the entry says what it holds."""
    for relpath, left in files:
        try:
            held = sha256(read_regular(store.root / relpath))
        except OSError:
            held = ABSENT
        if held != left:
            return NoDiff(
                f"{relpath} is not the bytes radpatch wrote there, so the image does not hold the entry's diff "
                f"(`radpatch diff {name}` refuses it too)"
            )
    return NoDiff(f"it is not as applied ({flag.split(':')[0]}), so the image does not hold the entry's diff")


def _left(store: Store, rec: PatchRecord) -> tuple[tuple[str, str], ...]:
    """Each file of the entry with the sha256 of the bytes radpatch left there: the top of the file's
    chain of recorded links (an entry stacked above this one wrote last), what the image holds."""
    out = []
    for f in rec.files:
        chain = store.chain(f.path)
        out.append((f.path, chain[-1][1].patched_sha256 if chain else f.patched_sha256))
    return tuple(out)

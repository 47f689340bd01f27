"""The bytes adoption plans on: each candidate's files as RECORD has them, read once per
distribution from its wheel, or what radpatch's patches left for a file edited on top of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RadpatchError, RefusedError
from radpatch.install.environment import Installed, PythonEnv
from radpatch.prove import onto
from radpatch.prove.adopt_candidates import needs_wheel
from radpatch.state.decide import FileState, PatchState, State, reinstall_hint
from radpatch.state.record import Store

Say = Callable[[str], None]
# the RECORD bytes of files of an installed distribution, read from its wheel (checked against RECORD),
# and where they came from: apply's adopt path asks for them (commands/change.py reads the wheel)
WheelBytes = Callable[[Installed, list[str]], tuple[dict[str, bytes], str]]


def bases_of(
    states: dict[str, PatchState], todo: dict[str, list[FileState]], env: PythonEnv
) -> tuple[dict[Path, onto.HandEditBase], set[str]]:
    """What each file edited on top of radpatch's patches went on (the bytes kept, or rebuilt by
    the entry of a patch of this run), and the candidates that are none because those bytes are
    unknown (they stay refused as drifted, as any file radpatch patched and someone changed)."""
    out: dict[Path, onto.HandEditBase] = {}
    unknown: set[str] = set()
    for name, files in todo.items():
        root = states[name].root
        assert root is not None
        store = Store(root)
        for f in files:
            link = onto.edited_on(store, f.relpath, f.data) if f.path not in out else None
            if link is None:
                continue
            try:
                out[f.path] = onto.left_by(store, link, lambda n: states[n].patch if n in states else None, env)
            except onto.NotKept:
                unknown.add(name)
    return out, unknown


def record_bytes(
    states: dict[str, PatchState],
    todo: dict[str, list[FileState]],
    wheel: WheelBytes | None,
    say: Say,
    created: frozenset[Path] = frozenset(),
    bases: dict[Path, onto.HandEditBase] | None = None,
) -> tuple[dict[str, dict[Path, bytes | None]], dict[str, str]]:
    """Each candidate's files' RECORD bytes, read once per distribution, and where from. A drifted
    candidate whose wheel cannot be read is refused (saying how to give it); an applied one is left.
    A module the patch creates has no RECORD bytes: None (no file), and no wheel is read for it;
    a file edited on top of radpatch's patches starts from `bases` (what they left)."""
    bases = bases or {}
    got: dict[str, dict[Path, bytes | None]] = {}
    original_from: dict[str, str] = {}
    by_dist: dict[Path, list[str]] = {}
    for name in todo:
        dist = states[name].dist
        assert dist is not None
        by_dist.setdefault(dist.dist_info, []).append(name)

    def start(f: FileState, data: dict[str, bytes]) -> bytes | None:
        if f.path in bases:
            return bases[f.path].data
        return data[f.relpath] if needs_wheel(f, created) else None

    def said(n: str, source: str) -> str:
        tops = list(dict.fromkeys(bases[f.path].top.patch for f in todo[n] if f.path in bases))
        return "; ".join([*([source] if source else []), *(f"what {t} left (stacked on it)" for t in tops)])

    for names in by_dist.values():
        dist = states[names[0]].dist
        assert dist is not None
        rels = list(
            dict.fromkeys(f.relpath for n in names for f in todo[n] if needs_wheel(f, created) and f.path not in bases)
        )
        if not rels:
            for n in names:
                got[n] = {f.path: start(f, {}) for f in todo[n]}
                original_from[n] = said(n, "")
            continue
        try:
            if wheel is None:
                raise NoWheelGiven("no wheel to read the installed files' RECORD bytes from")
            data, source = wheel(dist, rels)
        except RadpatchError as exc:
            for n in names:
                ps = states[n]
                if ps.state is State.DRIFTED or not isinstance(exc, (EnvironmentProblem, NoWheelGiven)):
                    what = f"drifted: {ps.reason}" if ps.state is State.DRIFTED else "applied by its code, not recorded"
                    raise RefusedError(
                        f"{n}: cannot apply: {what}; to adopt a file that already carries the "
                        f"patch, radpatch needs its RECORD bytes: {exc.message}",
                        f"give the wheel {dist.name} {dist.version} was installed from: radpatch apply --wheel FILE "
                        f"{n} (or let radpatch reach the package index); or {reinstall_hint(ps)}",
                    )
                say(
                    f"{n}: applied (by its code), but not recorded: not adopted ({exc.message}); to record it, "
                    f"give the wheel {dist.name} {dist.version} was installed from: radpatch apply --wheel FILE {n}"
                )
            continue
        for n in names:
            got[n] = {f.path: start(f, data) for f in todo[n]}
            original_from[n] = said(n, source)
    return got, original_from


class NoWheelGiven(RefusedError):
    """apply was given no way to read a wheel."""

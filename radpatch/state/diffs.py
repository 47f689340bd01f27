"""The unified diff of a patch on the installed files: what `radpatch diff` prints and what the
CycloneDX SBOM carries (`pedigree.patches[].diff`), made in one place so the two never differ.

Applied: the kept original (exactly the bytes radpatch replaced), else the structural inverse,
against the installed file. Not applied: the installed file against the planned (and proven)
patched form. Nothing is written.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from radpatch.files import read_regular
from radpatch.install.environment import PythonEnv
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.record import ABSENT, PatchRecord, Store, sha256


def unified_diff(ps: PatchState, env: PythonEnv | None = None) -> str:
    """Pristine -> patched, file by file, as `a/RELPATH` / `b/RELPATH`."""
    from radpatch.prove import plan  # libcst: only when a diff is asked for
    from radpatch.rewrite import runner

    out: list[str] = []
    for f in ps.files:
        if ps.state is State.APPLIED:
            before = _original(ps, f) or runner.backward(ps.patch, f.rewrites, f.data, str(f.path))
            after = f.data
        else:
            before, after = f.data, plan.plan(ps.patch, f.rewrites, f.module, f.path, f.data, env).after
        out += _file_diff(before, after, f.relpath)
    return "".join(out)


@dataclass(frozen=True)
class NoDiff:
    """Why an entry's diff cannot be made from the record."""

    why: str


def recorded_diff(store: Store, rec: PatchRecord) -> str | NoDiff:
    """An entry's diff from the record alone (no registry): each file's kept original before it, and
    the bytes it wrote (the file itself, or the original kept for the entry stacked on it); NoDiff,
    naming the file, when either is no longer there."""
    out: list[str] = []
    for f in rec.files:
        before = b"" if f.original_sha256 == ABSENT else store.original(f.original_sha256)
        if before is None:
            return NoDiff(f"the kept original of {f.path} is gone")
        after = b"" if f.patched_sha256 == ABSENT else _bytes(store.root / f.path, f.patched_sha256)
        if after is None:
            after = store.original(f.patched_sha256)
        if after is None:
            return NoDiff(f"{f.path} is not the bytes radpatch wrote there, and no copy of them is kept")
        out += _file_diff(before, after, f.path)
    return "".join(out)


def _file_diff(before: bytes, after: bytes, relpath: str) -> list[str]:
    return list(
        difflib.unified_diff(
            before.decode("utf-8", "replace").splitlines(keepends=True),
            after.decode("utf-8", "replace").splitlines(keepends=True),
            f"a/{relpath}",
            f"b/{relpath}",
        )
    )


def _bytes(path: Path, digest: str) -> bytes | None:
    """The file's bytes if they hash to `digest`."""
    try:
        data = read_regular(path)
    except OSError:
        return None
    return data if sha256(data) == digest else None


def _original(ps: PatchState, f: FileState) -> bytes | None:
    """The kept original of a file exactly as radpatch left it (the structural inverse is only
    AST-equal to it, and would show layout noise)."""
    rec = next((r for r in (ps.record.files if ps.record else ()) if r.path == f.relpath), None)
    if ps.dist is None or rec is None or rec.patched_sha256 != f.sha256:
        return None
    return Store(ps.dist.root).original(rec.original_sha256)

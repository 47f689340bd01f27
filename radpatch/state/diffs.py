"""The unified diff of a patch on the installed files: what `radpatch diff` prints and what the
CycloneDX SBOM carries (`pedigree.patches[].diff`), made in one place so the two never differ.

Applied: the entry's own step of the stack, from the record: the kept original (exactly the
bytes it replaced) against the bytes it wrote (the installed file, or, where an entry is stacked
on it, the original kept for that one), so the diffs of a stack replayed in apply order give the
installed files; without a record of it, the structural inverse against the installed file. Not
applied: the installed file against the planned (and proven) patched form. Nothing is written.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from radpatch.files import read_regular
from radpatch.install.environment import PythonEnv
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.record import ABSENT, PatchRecord, Store, sha256
from radpatch.state.record_file import FileRecord


def unified_diff(ps: PatchState, env: PythonEnv | None = None) -> str:
    """Pristine -> patched, file by file, as `a/RELPATH` / `b/RELPATH`."""
    from radpatch.prove import plan  # libcst: only when a diff is asked for
    from radpatch.rewrite import runner

    out: list[str] = []
    for f in ps.files:
        if ps.state is State.APPLIED:
            step = _step(ps, f)
            if step is None:
                before, after = runner.backward(ps.patch, f.rewrites, f.data, str(f.path)), f.data
            else:
                before, after = step
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
        step = _recorded_step(store, f)
        if isinstance(step, NoDiff):
            return step
        out += _file_diff(*step, f.path)
    return "".join(out)


def _recorded_step(store: Store, f: FileRecord) -> tuple[bytes, bytes] | NoDiff:
    """A file's step of the stack as recorded: the bytes under the entry (its kept original) and
    the bytes it wrote (the file itself, or the original kept for the entry stacked on it)."""
    before = b"" if f.original_sha256 == ABSENT else store.original(f.original_sha256)
    if before is None:
        return NoDiff(f"the kept original of {f.path} is gone")
    after = b"" if f.patched_sha256 == ABSENT else _bytes(store.root / f.path, f.patched_sha256)
    if after is None:
        after = store.original(f.patched_sha256)
    if after is None:
        return NoDiff(f"{f.path} is not the bytes radpatch wrote there, and no copy of them is kept")
    return before, after


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


def _step(ps: PatchState, f: FileState) -> tuple[bytes, bytes] | None:
    """An applied entry's step on a file, from its record (exactly the bytes it replaced and wrote:
    the structural inverse is only AST-equal to them, and on a stacked file would keep the upper
    entries' lines); None when radpatch has no record of it there."""
    rec = next((r for r in (ps.record.files if ps.record else ()) if r.path == f.relpath), None)
    if ps.dist is None or rec is None:
        return None
    step = _recorded_step(Store(ps.dist.root), rec)
    return None if isinstance(step, NoDiff) else step

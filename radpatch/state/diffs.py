"""The unified diff of a patch on the installed files: what `radpatch diff` prints and what the
CycloneDX SBOM carries (`pedigree.patches[].diff`), made in one place so the two never differ.

Applied: the kept original (exactly the bytes radpatch replaced), else the structural inverse,
against the installed file. Not applied: the installed file against the planned (and proven)
patched form. Nothing is written.
"""

from __future__ import annotations

import difflib

from radpatch.install.environment import PythonEnv
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.record import Store


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
        out += difflib.unified_diff(
            before.decode("utf-8", "replace").splitlines(keepends=True),
            after.decode("utf-8", "replace").splitlines(keepends=True),
            f"a/{f.relpath}",
            f"b/{f.relpath}",
        )
    return "".join(out)


def _original(ps: PatchState, f: FileState) -> bytes | None:
    """The kept original of a file exactly as radpatch left it (the structural inverse is only
    AST-equal to it, and would show layout noise)."""
    rec = next((r for r in (ps.record.files if ps.record else ()) if r.path == f.relpath), None)
    if ps.dist is None or rec is None or rec.patched_sha256 != f.sha256:
        return None
    return Store(ps.dist.root).original(rec.original_sha256)

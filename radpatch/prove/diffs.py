"""The unified diff of a patch on the installed files: what `radpatch diff` prints and what the
CycloneDX SBOM carries (`pedigree.patches[].diff`), made in one place so the two never differ.

Applied: the entry's own step of the stack, from the record (state.recorded_diffs); without a record of
it, the structural inverse against the installed file. Not applied: the installed file against
the planned (and proven) patched form (prove.plan). Nothing is written.
"""

from __future__ import annotations

from radpatch.install.environment import PythonEnv
from radpatch.state.decide import PatchState, State
from radpatch.state.recorded_diffs import file_diff, joined, recorded_step


def unified_diff(ps: PatchState, env: PythonEnv | None = None) -> str:
    """Pristine -> patched, file by file, as `a/RELPATH` / `b/RELPATH`."""
    from radpatch.prove import plan  # libcst: only when a diff is asked for
    from radpatch.rewrite import runner

    out: list[list[str]] = []
    for f in ps.files:
        if ps.state is State.APPLIED:
            step = recorded_step(ps, f)
            if step is None:
                before, after = runner.backward(ps.patch, f.rewrites, f.data, str(f.path)), f.data
            else:
                before, after = step
        else:
            before, after = f.data, plan.plan(ps.patch, f.rewrites, f.module, f.path, f.data, env).after
        out.append(file_diff(before, after, f.relpath))
    return joined(out)

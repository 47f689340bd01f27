from __future__ import annotations

import difflib

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError
from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.state.decide import FileState, PatchState, State, patch_state
from radpatch.state.record import Store


def run(ctx: Context, name: str) -> int:
    """Print the unified diff pristine -> patched for the installed version; write nothing."""
    patch = ctx.registry.load(name)
    ps = patch_state(patch, ctx.env)
    if ps.state not in (State.APPLIED, State.NOT_APPLIED):
        raise RefusedError(f"{name}: no diff: {ps.state.value}: {ps.reason}")
    for f in ps.files:
        if ps.state is State.APPLIED:
            before, after = _original(ps, f) or runner.backward(patch, f.rewrites, f.data, str(f.path)), f.data
        else:
            before, after = f.data, plan.plan(patch, f.rewrites, f.module, f.path, f.data, ctx.env).after
        lines = difflib.unified_diff(
            before.decode("utf-8", "replace").splitlines(keepends=True),
            after.decode("utf-8", "replace").splitlines(keepends=True),
            f"a/{f.relpath}",
            f"b/{f.relpath}",
        )
        click.echo("".join(lines), nl=False)
    return EXIT_OK


def _original(ps: PatchState, f: FileState) -> bytes | None:
    """The kept original of a file exactly as radpatch left it (the structural inverse is only
    AST-equal to it, and would show layout noise)."""
    rec = next((r for r in (ps.record.files if ps.record else ()) if r.path == f.relpath), None)
    if ps.dist is None or rec is None or rec.patched_sha256 != f.sha256:
        return None
    return Store(ps.dist.root).original(rec.original_sha256)

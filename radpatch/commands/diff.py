"""`radpatch diff NAME`: the unified diff pristine -> patched for the installed version of a patch
status reads applied or not applied (state.decide.states); writes nothing. Applied: the recorded
step (radpatch.prove.diffs, shared with the SBOM). Not applied: planned through apply's own plan
(prove.run.for_apply), which refuses what apply would refuse, in apply's words (a module the install
lacks, a rewrite that does not match), and the diff is what apply would write."""

from __future__ import annotations

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError
from radpatch.prove import run as planned
from radpatch.prove.diffs import unified_diff
from radpatch.prove.form import judge
from radpatch.state.decide import State, states
from radpatch.state.recorded_diffs import file_diff, joined
from radpatch.write.takeover import renamed_requirement


def run(ctx: Context, name: str) -> int:
    """Print the unified diff pristine -> patched for the installed version; write nothing."""
    (ps,) = states(
        ctx.registry,
        ctx.env,
        [ctx.registry.load(name)],
        judge,
        renamed_requirement(ctx.registry, ctx.env),
        imported=False,
    ).each
    if ps.state not in (State.APPLIED, State.NOT_APPLIED):
        raise RefusedError(f"{name}: no diff: {ps.state.value}: {ps.reason}", ps.hint)
    if ps.state is State.APPLIED:
        text = unified_diff(ps, ctx.env)
    else:
        changes = planned.for_apply([ps.patch], {name: ps}, [], {}, ctx.env, lambda _: None)
        text = joined(
            [file_diff(f.before, f.after, f.path.relative_to(c.root).as_posix()) for c in changes for f in c.files]
        )
    # the bytes of the files as they are: a non-UTF-8 file's bytes are the surrogates file_diff kept
    click.echo(text.encode("utf-8", "surrogateescape"), nl=False)
    return EXIT_OK

"""`radpatch diff NAME`: the unified diff pristine -> patched for the installed version
(radpatch.prove.diffs, shared with the SBOM) of a patch status reads applied or not applied
(state.decide.states); writes nothing."""

from __future__ import annotations

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError
from radpatch.prove.diffs import unified_diff
from radpatch.prove.form import judge
from radpatch.registry.model import creates
from radpatch.state.decide import State, states


def run(ctx: Context, name: str) -> int:
    """Print the unified diff pristine -> patched for the installed version; write nothing."""
    (ps,) = states(ctx.registry, ctx.env, [ctx.registry.load(name)], judge, imported=False).each
    if ps.state not in (State.APPLIED, State.NOT_APPLIED):
        raise RefusedError(f"{name}: no diff: {ps.state.value}: {ps.reason}", ps.hint)
    for f in ps.files:  # a module the entry changes that the install lacks and the entry does not create
        if not f.exists and not creates(f.rewrites):
            raise RefusedError(f"{name}: no diff: {f.detail}", "apply it with the entry that creates the module")
    # the bytes of the files as they are: a non-UTF-8 file's bytes are the surrogates file_diff kept
    click.echo(unified_diff(ps, ctx.env).encode("utf-8", "surrogateescape"), nl=False)
    return EXIT_OK

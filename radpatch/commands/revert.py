from __future__ import annotations

import click

from radpatch import engine
from radpatch.context import Context
from radpatch.errors import EXIT_OK


def run(ctx: Context, names: tuple[str, ...], dry_run: bool) -> int:
    patches = ctx.registry.load_many(names)
    if dry_run:
        for change in engine.revert(ctx.env, patches, click.echo, dry_run=True):
            for f in change.files:
                click.echo(f"{change.patch.patch.name}: would restore {f.path}")
        return EXIT_OK
    with engine.exclusive(ctx.env, patches, click.echo):
        engine.revert(ctx.env, list(reversed(patches)), click.echo)
    return EXIT_OK

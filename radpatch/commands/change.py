"""`radpatch apply` and `radpatch revert`: both decide, plan and prove under the environment's
lock, then write all files or none (engine.py); --dry-run stops after the proof."""

from __future__ import annotations

import functools
from collections.abc import Callable

import click

from radpatch import engine
from radpatch.context import Context
from radpatch.errors import EXIT_OK

Step = Callable[..., list[engine.Change]]


def apply(ctx: Context, names: tuple[str, ...], dry_run: bool, import_check: bool = False) -> int:
    step = functools.partial(engine.apply, import_check=True) if import_check else engine.apply
    return _run(ctx, names, dry_run, step, "would patch", reverse=False)


def revert(ctx: Context, names: tuple[str, ...], dry_run: bool) -> int:
    # undo in the reverse of the command line's order, so patches stacked on a file come off
    return _run(ctx, names, dry_run, engine.revert, "would restore", reverse=True)


def _run(ctx: Context, names: tuple[str, ...], dry_run: bool, step: Step, verb: str, reverse: bool) -> int:
    patches = ctx.registry.load_many(names)
    ordered = list(reversed(patches)) if reverse else patches
    if dry_run:
        for change in step(ctx.env, ordered, click.echo, dry_run=True):
            for f in change.files:
                click.echo(
                    f"{change.patch.patch.name}: {verb} {f.path} ({len(f.before)} -> {len(f.after)} bytes; "
                    "proven: compiles, no new undefined names, reverses byte for byte)"
                )
        return EXIT_OK
    with engine.exclusive(ctx.env, patches, click.echo):
        step(ctx.env, ordered, click.echo)
    return EXIT_OK

"""`radpatch apply` and `radpatch revert`: both decide, plan and prove under the environment's
lock, then write all files or none (engine.py); --dry-run stops after the proof."""

from __future__ import annotations

import functools
from collections.abc import Callable

import click

from radpatch import engine
from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError
from radpatch.registry import series
from radpatch.registry.model import Patch
from radpatch.state.decide import State, patch_state

Step = Callable[..., list[engine.Change]]


def apply(ctx: Context, names: tuple[str, ...], dry_run: bool, import_check: bool = False) -> int:
    from radpatch.releases import overlaps  # overlapping entries need an order between them (`requires:`)

    # what the named entries require comes first (an applied requirement is a no-op)
    patches = series.with_requirements(ctx.registry.load_many(names), ctx.registry.load)
    overlaps.check_apply(ctx, patches)
    step = functools.partial(engine.apply, import_check=True) if import_check else engine.apply
    return _run(ctx, patches, dry_run, step, "would patch", reverse=False)


def revert(ctx: Context, names: tuple[str, ...], dry_run: bool) -> int:
    named = ctx.registry.load_many(names)
    _refuse_applied_dependents(ctx, named)
    # undo in the reverse of the order they were applied in (dependents, then the command line's
    # order, reversed), so patches stacked on a file come off top first
    wanted = {p.name for p in named}
    ordered = [p for p in series.with_requirements(named, ctx.registry.load) if p.name in wanted]
    return _run(ctx, ordered, dry_run, engine.revert, "would restore", reverse=True)


def _refuse_applied_dependents(ctx: Context, named: list[Patch]) -> None:
    """An entry that an applied entry requires stays until that one is reverted with it or first."""
    everything = ctx.registry.load_valid()
    leaving = {p.name for p in named}
    if not any(p.requires for p in everything):
        return
    for p in named:
        staying = [d for d in series.dependents(p.name, everything) if d not in leaving]
        applied = [d for d in staying if patch_state(ctx.registry.load(d), ctx.env).state is State.APPLIED]
        if applied:
            raise RefusedError(
                f"{p.name}: {', '.join(applied)} {'is' if len(applied) == 1 else 'are'} applied and "
                f"require{'s' if len(applied) == 1 else ''} it (`requires:`)",
                f"revert them with it: radpatch revert {' '.join([*applied, *(q.name for q in named)])}",
            )


def _run(ctx: Context, patches: list[Patch], dry_run: bool, step: Step, verb: str, reverse: bool) -> int:
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

"""`radpatch apply` and `radpatch revert`: both decide, plan and prove under the environment's
lock, then write all files or none (radpatch/write/); --dry-run stops after the proof."""

from __future__ import annotations

import functools
from collections.abc import Callable

import click

from radpatch.commands.options import wheel_of
from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError
from radpatch.install.environment import Installed
from radpatch.prove.run import PlanRefused
from radpatch.registry import series
from radpatch.registry.model import Patch
from radpatch.write import apply as applying
from radpatch.write import revert as reverting
from radpatch.write.exclusive import exclusive

Step = Callable[..., list[applying.Change]]


def apply(
    ctx: Context,
    names: tuple[str, ...],
    dry_run: bool,
    import_check: bool = False,
    wheels: tuple[str, ...] = (),
    record_only: bool = False,
) -> int:
    """`record_only` (capture): adopt what the files carry, and refuse a run that would write one."""
    # what the named entries require comes first (an applied requirement is a no-op)
    patches = series.with_requirements(ctx.registry.load_many(names), ctx.registry.load)
    step = functools.partial(
        applying.apply, import_check=import_check, wheel=wheel_bytes(wheels), record_only=record_only
    )
    try:
        return _run(ctx, patches, dry_run, step, "would patch")
    except PlanRefused as exc:
        raise _way_out(exc) from None


def _way_out(exc: PlanRefused) -> RefusedError:
    """A refused plan on a release verify found to contain the entry's change already (its cache, no
    network): the plan's own refusal, with declaring the release `obsolete:` as the way out."""
    from radpatch.releases.summaries import declare_obsolete_hint

    hint = declare_obsolete_hint(exc.patch, exc.dist)
    return exc if hint is None else RefusedError(exc.planned.message, hint)


def wheel_bytes(wheels: tuple[str, ...]) -> applying.WheelBytes:
    """How apply reads installed files' RECORD bytes when it adopts: from the `--wheel` files (a
    file, or a directory of wheels) that are the installed distribution's, else from the package
    index by range requests (releases.pristine; checked against RECORD either way)."""

    def read(dist: Installed, relpaths: list[str]) -> tuple[dict[str, bytes], str]:
        from radpatch.releases import pristine

        if wheels:
            found = wheel_of(dist, wheels)
            got, source = pristine.from_wheel(dist, relpaths, found)
        else:
            got, source = pristine.from_index(dist, relpaths)
        return {p.relpath: p.data for p in got}, source.describe()

    return read


def revert(ctx: Context, names: tuple[str, ...], dry_run: bool) -> int:
    from radpatch.state import unloaded

    named = unloaded.load_many(ctx.registry, ctx.env, names)  # a recorded entry no registry has: from its record
    # write.revert refuses while an applied entry requires one, and undoes them newest first
    return _run(ctx, named, dry_run, reverting.revert, "would restore")


def _run(ctx: Context, patches: list[Patch], dry_run: bool, step: Step, verb: str) -> int:
    if dry_run:
        for change in step(ctx, patches, click.echo, dry_run=True):
            if change.adopted:
                click.echo(f"{change.patch.patch.name}: would be {applying.adopted_note(change)}")
            for f in change.files:
                if f.path in change.adopted:
                    continue
                name = change.patch.patch.name
                if f.path in change.deleted:  # a module the patch created: no file before it
                    click.echo(f"{name}: would remove {f.path} (a module the patch created)")
                elif change.patch.orphan is not None:  # its distribution uninstalled: nothing to prove it on
                    click.echo(f"{name}: {verb} {f.path} (its kept original; exactly as radpatch left it)")
                else:
                    click.echo(
                        f"{name}: {verb} {f.path} ({len(f.before)} -> {len(f.after)} bytes; "
                        "proven: compiles, no new undefined names, reverses byte for byte)"
                    )
        return EXIT_OK
    with exclusive(ctx.env, patches, click.echo):  # the refusals and the decisions run under it
        step(ctx, patches, click.echo)
    return EXIT_OK

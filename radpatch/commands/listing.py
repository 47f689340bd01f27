"""`radpatch list` and `radpatch show NAME`."""

from __future__ import annotations

from collections.abc import Sequence

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK


def run_list(ctx: Context) -> int:
    patches = ctx.registry.load_many(ctx.registry.names())
    rows = [(p.name, p.distribution, p.range, p.summary) for p in patches]
    _table(("PATCH", "TARGET", "SUPPORTED", "SUMMARY"), rows)
    return EXIT_OK


def run_show(ctx: Context, name: str) -> int:
    p = ctx.registry.load(name)
    click.echo(f"{p.name}: {p.summary}")
    click.echo(f"  registry file: {p.source}")
    click.echo(f"  target:        {p.distribution} {p.range}")
    if p.obsolete is not None:
        click.echo(f"  obsolete from: {p.distribution} {p.obsolete} (fixed upstream)")
    click.echo("  modules:")
    for t in p.targets:
        for c in t.choices:
            click.echo(f"    {t.name}: {c.module}  (versions {c.versions or 'any'})")
    click.echo("  rewrites:")
    for r in p.rewrites:
        click.echo(f"    {r.id}: {r.op.describe()}  (versions {r.versions or 'all'}; {r.target})")
    if p.knobs:
        click.echo("  knobs (environment variables read at run time):")
        for k in p.knobs:
            click.echo(f"    {k.name} (default {k.default!r}): {k.meaning}")
    click.echo("")
    click.echo(p.description.rstrip())
    return EXIT_OK


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())

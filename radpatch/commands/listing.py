"""`radpatch list` and `radpatch show NAME`."""

from __future__ import annotations

from collections.abc import Sequence

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK
from radpatch.prove.overlaps import applied
from radpatch.registry import series
from radpatch.registry.loader.links import github_ref
from radpatch.registry.model import Patch
from radpatch.releases import overlap_report, vouched_exec
from radpatch.releases.summaries import (
    not_in_effect_releases,
    not_in_effect_words,
    obsolete_all,
    obsolete_span,
    obsolete_words,
)
from radpatch.state.verified import cache_root


def run_list(ctx: Context) -> int:
    patches = ctx.registry.load_many(ctx.registry.names())
    rows = [(p.name, p.distribution, p.range, p.summary) for p in patches]
    _table(("PATCH", "TARGET", "SUPPORTED", "SUMMARY"), rows)
    # below the table, so the columns stay what scripts read: what is known upstream, then overlaps
    notes = [f"upstream: {p.name}: {state}" for p in patches if (state := upstream_state(p)) != "-"]
    # the two orders tried on verify's cached release, or on the installed one where its files are the release's
    notes += overlap_report.lines(overlap_report.find(patches, texts=overlap_report.cached(ctx.env)))
    notes += [f"overlap: {c.line()}" for c in applied.in_env(ctx, patches)]  # with entries only the record has
    for line in notes:  # no blank line before them: every line of `list` starts with a word
        click.echo(line)
    return EXIT_OK


def upstream_state(p: Patch) -> str:
    """The entry's upstream links and, when verify has seen it (its cache, no network), from which
    release upstream contains the change: `-` when neither is known."""
    links = p.upstream
    parts = [_short(link) for link in links]
    every = obsolete_all(cache_root(), p) if obsolete_span(cache_root(), p) is not None else None
    if every is not None:  # only the releases verify read: a later one may have reverted it
        parts.append(f"{obsolete_words(every)} (verify read no later release)")
    elif p.obsolete is not None:
        parts.append(f"obsolete {p.obsolete}")
    held = not_in_effect_releases(cache_root(), p)
    if held:
        parts.append(not_in_effect_words(held))
    return ", ".join(parts) or "-"


def _short(link: str) -> str:
    """github.com/OWNER/REPO/pull/N -> OWNER/REPO#N; any other link as written."""
    return github_ref(link) or link


def run_show(ctx: Context, name: str) -> int:
    p = ctx.registry.load(name)
    click.echo(f"{p.name}: {p.summary}")
    click.echo(f"  registry file: {p.source}")
    click.echo(f"  target:        {p.distribution} {p.range}")
    if p.obsolete is not None:
        click.echo(f"  obsolete from: {p.distribution} {p.obsolete} (fixed upstream)")
    if p.requires:
        click.echo(f"  requires:      {', '.join(p.requires)} (applied first)")
    required_by = series.dependents(p.name, ctx.registry.load_valid())
    if required_by:
        click.echo(f"  required by:   {', '.join(required_by)}")
    click.echo("  modules:")
    for t in p.modules:
        for c in t.choices:
            click.echo(f"    {t.name}: {c.module}  (versions {c.versions or 'any'})")
    click.echo("  rewrites:")
    for r in p.rewrites:
        click.echo(f"    {r.id}: {r.op.describe()}  (versions {r.versions or 'all'}; {r.file})")
    if p.vouched_exec:
        click.echo(
            "  assumes (vouched_exec: code run there stores no name a rename it follows keeps;"
            " reads: covers that module, not what it imports):"
        )
        for v in p.vouched_exec:
            binds = "; ".join(f"`{b}`" for b in v.binds)
            click.echo(f"    {vouched_exec.said(v)}" + (f", its names bound by {binds}" if binds else ""))
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

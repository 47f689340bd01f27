"""`radpatch port NAME... --to VERSION|SPEC [--dry-run]`: plan (radpatch.releases.port), show, prove, write.

For each entry: the cell of every release asked for, then the unified diff of the edit (or why the
entry is left alone). Without --dry-run the edit is proven over the entry's whole new range and
only then written (atomically). Exit 1 when an entry is left alone because a release does not
prove (the nearest candidate is shown), or an edit does not prove; 0 otherwise.
"""

from __future__ import annotations

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK, EnvironmentProblem, RefusedError
from radpatch.releases import port as porting
from radpatch.releases.verify import parse_spec
from radpatch.releases.wheels import Releases


def run(ctx: Context, names: tuple[str, ...], to: str, dry_run: bool) -> int:
    wanted = parse_spec(to)
    releases = Releases.from_env()
    refused: list[str] = []
    for patch in ctx.registry.load_many(names):
        p = porting.plan(patch, wanted, releases)
        click.echo(f"{patch.name} ({patch.source}):")
        for c in p.cells:
            click.echo(f"  {c.version}: {c.kind}" + (f": {c.detail}" if c.detail else ""))
        if p.after is None:
            click.echo(f"  left alone: {p.why}")
            if any(c.kind not in porting.CLAIMABLE or c.proven is False for c in p.cells):
                refused.append(patch.name)
            continue
        click.echo(p.diff, nl=False)
        for line in p.changes:
            click.echo(f"  {line}")
        if dry_run:
            click.echo("  (dry run: nothing written)")
            continue
        failing = porting.prove_edit(p, releases)
        if failing:
            click.echo("  not written: the edited entry does not prove: " + "; ".join(failing))
            refused.append(patch.name)
            continue
        try:
            porting.write(p)
        except OSError as exc:
            raise EnvironmentProblem(
                f"{patch.source}: cannot write the ported entry ({exc.strerror})",
                "copy the entry into a registry you can write (--registry DIR), or run `port --dry-run` and apply "
                "the diff by hand",
            ) from None
        click.echo(f"  written: {patch.source} (proven over its new range {_range(p)})")
    if refused:
        raise RefusedError(
            f"not ported: {', '.join(refused)}",
            "see each release's cell above: fix the rewrite that no longer matches (its nearest candidate is shown)",
        )
    return EXIT_OK


def _range(p: porting.Port) -> str:
    return next((line.split(" -> ")[1] for line in p.changes if line.startswith("supported:")), p.patch.range)

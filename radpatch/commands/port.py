"""`radpatch port NAME... --to VERSION|SPEC [--dry-run]`: plan (radpatch.releases.port), show, prove, write.

For each entry: the cell of every release asked for, then the unified diff of the edit (or why the
entry is left alone). The edit is proven over the entry's whole new range (a dry run too) and
only then written (atomically; a dry run writes nothing). Exit 1 when an entry is left alone because a release does not
prove (the nearest candidate is shown), or an edit does not prove (also with --dry-run, which proves
the edit and writes nothing); 0 otherwise.
"""

from __future__ import annotations

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK, EnvironmentProblem, RefusedError
from radpatch.registry.model import Patch
from radpatch.registry.series import requirements_of
from radpatch.releases import port as porting
from radpatch.releases import port_failures, vouched_exec
from radpatch.releases.verify import parse_spec
from radpatch.releases.wheels import Releases


def run(ctx: Context, names: tuple[str, ...], to: str, dry_run: bool) -> int:
    wanted = parse_spec(to, "--to")
    releases = Releases.from_env()
    refused: list[str] = []  # a release asked for does not prove as the entry is
    unproven: list[str] = []  # the edit does not prove over the entry's whole new range
    ported: dict[str, Patch] = {}  # entries this run edited (written, or proven in a dry run): as edited
    unread: list[str] = []  # releases whose wheel cannot be read: the file is the problem, not the entry
    other: list[str] = []  # releases failing on the entry itself
    for patch in porting.in_series(ctx.registry.load_many(names), ctx.registry.load):
        below = tuple(ported.get(r.name, r) for r in requirements_of(patch, ctx.registry.load))
        p = porting.plan(patch, wanted, releases, requires=below)
        click.echo(f"{patch.name} ({patch.source}):")
        for c in p.cells:
            click.echo(f"  {c.version}: {c.kind}" + (f": {c.detail}" if c.detail else ""))
            if c.kind == "fail":  # the wheel, or the entry on it
                (unread if c.detail.startswith("wheel: ") else other).append(str(c.version))
            for said in c.stale:  # a `vouched_exec:` item matching nothing there
                click.echo(f"  {c.version}: {said}")
        for said in vouched_exec.absent_words(patch.vouched_exec, [(c.version, c.absent) for c in p.cells]):
            click.echo(f"  {said}")  # its file not there: not stale
        if p.after is None:
            click.echo(f"  left alone: {p.why}")
            if not p.settled:  # a release does not prove, or the edit is one to make by hand
                refused.append(patch.name)
                _requirement_hint(patch, names, ported, to)
            continue
        click.echo(p.diff, nl=False)
        for line in p.changes:
            click.echo(f"  {line}")
        failing = porting.prove_edit(p, releases)  # a dry run proves too: its exit says what a real run would do
        if failing:
            not_written = "would not be written" if dry_run else "not written"
            claimed = [c.version for c in p.cells]
            why = port_failures.summary(failing, claimed, p.had, patch.name)
            click.echo(f"  {not_written}: the edited entry does not prove: {why}")
            for line in p.shared:  # the edit of an anchor changed its aliases too: that may be why
                click.echo(
                    f"  {line}: the edit changed both; write the alias's range out in its place, then port again"
                )
            unproven.append(patch.name)
            continue
        for line in p.shared:  # it proves so (where module choices now overlap, apply picks by the code): say it
            click.echo(f"  {line}: the edit changed both, and the edited entry proves so")
        ported[patch.name] = porting.edited(p)
        if dry_run:
            click.echo(f"  (dry run: nothing written; the edit proves over its new range {p.range_after})")
            continue
        try:
            porting.write(p)
        except OSError as exc:
            raise EnvironmentProblem(
                f"{patch.source}: cannot write the ported entry ({exc.strerror})",
                "copy the entry into a registry you can write (--registry DIR), or run `port --dry-run` and apply "
                "the diff by hand",
            ) from None
        click.echo(f"  written: {patch.source} (proven over its new range {p.range_after})")
    if refused or unproven:
        hint = (
            "see each release's cell above and why the entry is left alone: fix what fails there (a rewrite that "
            "no longer matches shows its nearest candidate), or make the edit by hand; a release marked obsolete "
            "already contains the change: port to the others only"
            if refused
            else "the edit above leaves a release of the new range failing (named above): port a range that "
            "holds it too, or edit the entry by hand"
        )
        if unread:  # say what to do about the file first; the entry's own failures after it
            wheels = (
                f"the wheel of {', '.join(dict.fromkeys(unread))} is not readable (its cell names the file): replace "
                f"that file with a readable copy where it comes from ({releases.settings.describe()}), then run "
                f"`radpatch port {' '.join(names)} --to {to}` again"
            )
            hint = wheels if refused and not other and not unproven else f"{wheels}; {hint}"
        raise RefusedError(f"not ported: {', '.join(refused + unproven)}", hint)
    return EXIT_OK


def _requirement_hint(patch: Patch, names: tuple[str, ...], ported: dict[str, Patch], to: str) -> None:
    """An entry of a series left alone: its requirements may need porting with it."""
    missing = [r for r in patch.requires if r not in ported]
    if not missing:
        return
    others = [r for r in missing if r not in names]
    if others:
        together = " ".join([*others, patch.name])
        click.echo(
            f"  it requires {', '.join(missing)}, proven here as they are: if they need porting too, port them "
            f"together (`radpatch port {together} --to {to}`)"
        )
    else:
        click.echo(f"  it requires {', '.join(missing)}, which this run did not port (above)")

"""`radpatch capture NAME [PATH...]`: a registry entry from edits already made to installed files.

Thin: check the options, run capture's transaction (importing.capture_run: find the edits, read
their befores, build the entry, write it and have `apply` record it, or leave nothing), and say
what it captured. `apply` and `revert` (commands.change's) are handed in by cli.py, and on to the
transaction: a command does not import another.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import click

from radpatch.commands.options import check_supported
from radpatch.context import Context
from radpatch.errors import EXIT_OK, UsageError
from radpatch.importing import capture_run, captured, emit
from radpatch.importing.capture_run import Request as Request  # the command line builds it
from radpatch.install.environment import Installed

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


class Apply(Protocol):
    """commands.change.apply, as capture calls it: record only, the pristine bytes from `wheels`."""

    def __call__(
        self, ctx: Context, names: tuple[str, ...], dry_run: bool, *, wheels: tuple[str, ...], record_only: bool
    ) -> int: ...


Revert = Callable[[Context, tuple[str, ...], bool], int]  # commands.change.revert


def run(ctx: Context, req: Request, dry_run: bool, apply_command: Apply, revert_command: Revert) -> int:
    name, out, wheel = req.name, req.out, req.wheel
    if not _NAME.match(name):  # refusals that need neither the index nor the files: before anything is read
        raise UsageError(f"NAME {name!r}: use letters, digits, '_', '-' and '.'", "e.g. radpatch capture fix_handshake")
    check_supported(req.supported)
    capture_run.check_new(ctx, name, out)
    say = _comment if dry_run else click.echo  # --dry-run's output is the entry: YAML, its notes comments
    prepared = capture_run.prepare(ctx, req, say)
    if dry_run:
        _show(Path(out), name, prepared.made.entry)
        return EXIT_OK

    def apply(c: Context, entry: str) -> int:  # records only: a run that would write is refused
        return apply_command(c, (entry,), False, wheels=(wheel,) if wheel else (), record_only=True)

    capture_run.write_and_record(ctx, Path(out), prepared, apply, lambda c, entry: revert_command(c, (entry,), False))
    _say_captured(ctx, prepared.found.dist, out, prepared.made)
    return EXIT_OK


def _comment(text: str) -> None:
    click.echo(f"# {text}")


def _show(out: Path, name: str, entry: emit.Entry) -> None:
    click.echo(f"# would write {out / (name + '.yaml')}")
    click.echo(entry.yaml, nl=False)
    for rel, text in entry.payloads:
        n = text.count("\n")
        click.echo(f"# would write {out / name / rel} ({n} line{'s' * (n != 1)})")


def _say_captured(ctx: Context, dist: Installed, out: str, made: captured.Captured) -> None:
    entry = made.entry
    for c in made.changes:
        click.echo(f"captured {c.rel} ({dist.name} {dist.version})")
    click.echo(f"{Path(out) / (entry.name + '.yaml')}: {entry.steps} rewrite{'s' * (entry.steps != 1)}")
    for note in entry.fallbacks:
        click.echo(f"  note: {note}")
    on = dict(made.stacked)
    tops = list(dict.fromkeys(on.values()))
    undo = [f"the bytes {', '.join(tops)} left back" * bool(tops)]
    undo += ["the wheel's bytes back" * any(c.before is not None and c.rel not in on for c in made.changes)]
    back = " and ".join(u for u in undo if u)
    name = entry.name
    click.echo(
        f"try: {ctx.invocation([out])} status {name}; `{ctx.invocation([out])} revert {name}` undoes it ({back})"
    )

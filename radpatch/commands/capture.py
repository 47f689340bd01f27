"""`radpatch capture NAME [PATH...]`: a registry entry from edits already made to installed files.

Thin: find the edited and new modules (importing.capture), read their pristine bytes from the
wheel of the installed version (releases.pristine: the index with verify's cache, or --wheel),
build the entry as `import` builds one and write it (importing.emit), then hand it to `apply`,
which records it as applied without rewriting the edited files. An entry apply will not record
is removed again: capture leaves a recorded entry or nothing.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from radpatch.commands import change
from radpatch.commands.options import check_supported
from radpatch.context import Context
from radpatch.errors import EXIT_OK, RadpatchError, RefusedError, UsageError
from radpatch.importing import capture, emit
from radpatch.install.environment import Installed
from radpatch.releases import pristine

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


@dataclass(frozen=True)
class Options:
    """What the command line asks of `radpatch capture` (its arguments and options, by their names)."""

    name: str
    paths: tuple[str, ...]
    out: str
    distribution: str | None
    wheel: str | None
    supported: str | None
    dry_run: bool


def run(ctx: Context, options: Options) -> int:
    _check_options(ctx, options)
    say = _comment if options.dry_run else click.echo  # --dry-run's output is the entry: YAML, its notes comments
    found = capture.find(ctx.env, options.paths, options.distribution)
    _say_left_out(found.left_out, say)
    if not found.edited:
        raise RefusedError(
            f"nothing to capture: no module of {found.dist.name} {found.dist.version} differs from its RECORD in "
            f"{found.scanned}",
            "edit the installed files first (or name them: radpatch capture NAME PATH...), then capture",
        )
    made = capture.build(options.name, found, _pristine(found, options.wheel, say), options.supported)
    _say_left_out(made.layout_only, say)
    if options.dry_run:
        _show(Path(options.out), options.name, made.entry)
        return EXIT_OK
    _write_and_record(ctx, Path(options.out), made.entry, options.wheel)
    _say_captured(found.dist, options.out, made)
    return EXIT_OK


def _comment(text: str) -> None:
    click.echo(f"# {text}")


def _pristine(found: capture.Found, wheel: str | None, say: Callable[[str], None]) -> dict[str, bytes]:
    """The RECORD bytes of the edited (not the new) modules, from the wheel; said where from."""
    dist, changed = found.dist, [e.relpath for e in found.edited if not e.new]
    if not changed:
        return {}
    got, source = pristine.from_wheel(dist, changed, Path(wheel)) if wheel else pristine.from_index(dist, changed)
    n = len(changed)
    say(
        f"{dist.name} {dist.version}: the pristine bytes of {n} file{'s' * (n != 1)} from {source.describe()}, "
        f"{'each' if n > 1 else 'its bytes'} hashing to RECORD's sha256"
    )
    return {p.relpath: p.data for p in got}


def _show(out: Path, name: str, entry: emit.Entry) -> None:
    click.echo(f"# would write {out / (name + '.yaml')}")
    click.echo(entry.yaml, nl=False)
    for rel, text in entry.payloads:
        n = text.count("\n")
        click.echo(f"# would write {out / name / rel} ({n} line{'s' * (n != 1)})")


def _write_and_record(ctx: Context, out: Path, entry: emit.Entry, wheel: str | None) -> None:
    """Write the entry, then apply it: apply adopts the files that carry it (records them as applied,
    writes nothing). An entry apply refuses is removed again."""
    written = emit.write(out, [entry])
    try:
        change.apply(
            Context(ctx.python, (*ctx.registries, str(out))), (entry.name,), False, wheels=(wheel,) if wheel else ()
        )
    except RadpatchError as exc:
        _remove(written, out / entry.name)
        exc.hint = f"capture kept no entry ({out / (entry.name + '.yaml')} removed); " + (
            exc.hint or "fix the edit and capture again"
        )
        raise


def _say_captured(dist: Installed, out: str, made: capture.Captured) -> None:
    entry = made.entry
    for c in made.changes:
        click.echo(f"captured {c.rel} ({dist.name} {dist.version}){' as a new module' if c.before is None else ''}")
    click.echo(f"{Path(out) / (entry.name + '.yaml')}: {entry.steps} rewrite{'s' * (entry.steps != 1)}")
    for note in entry.fallbacks:
        click.echo(f"  note: {note}")
    undo = ["the wheel's bytes back" * any(c.before is not None for c in made.changes)]
    undo += ["the new modules removed" * any(c.before is None for c in made.changes)]
    back = " and ".join(u for u in undo if u)
    name = entry.name
    click.echo(
        f"try: radpatch --registry {out} status {name}; `radpatch --registry {out} revert {name}` undoes it ({back})"
    )


def _say_left_out(left: tuple[capture.LeftOut, ...], say: Callable[[str], None], most: int = 20) -> None:
    for x in left[:most]:
        say(f"left out {x.relpath}: {x.why}")
    if len(left) > most:
        say(f"left out {len(left) - most} more files as well")


def _check_options(ctx: Context, options: Options) -> None:
    """Refusals that need neither the index nor the files: before anything is read."""
    name, out, supported = options.name, options.out, options.supported
    if not _NAME.match(name):
        raise UsageError(f"NAME {name!r}: use letters, digits, '_', '-' and '.'", "e.g. radpatch capture fix_handshake")
    check_supported(supported)
    for path in (Path(out) / f"{name}.yaml", Path(out) / name):
        if path.exists():
            raise RefusedError(
                f"{path} exists already: capture writes a new entry and never overwrites one",
                "choose another NAME or --out directory, or remove the old entry first",
            )
    known = ctx.registry.files.get(name)
    if known is not None:
        raise RefusedError(
            f"an entry named {name} exists already ({known}); entry names are unique across registries",
            "choose another NAME",
        )


def _remove(written: list[Path], payloads: Path) -> None:
    """The files this run wrote, and the directories under `payloads` (new in this run: checked
    absent before) that they leave empty."""
    for path in written:
        with contextlib.suppress(OSError):
            path.unlink()
        d = path.parent
        while d == payloads or payloads in d.parents:
            with contextlib.suppress(OSError):
                d.rmdir()  # fails, harmlessly, while the directory still holds anything
            d = d.parent

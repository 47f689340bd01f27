"""The verbs that read files beside the registry's entries, handed to `cli`'s group: import (unified
diffs), capture (edits already made to installed files), restore (a wheel's RECORD bytes)."""

from __future__ import annotations

from typing import Any

import click

from radpatch.context import Context

pass_ctx = click.make_pass_decorator(Context)


@click.command("import")
@click.argument("patches", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "-p",
    "strip",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Strip N leading path components, as patch -pN (default: as patch, the base name).",
)
@click.option(
    "-d",
    "directory",
    default="",
    metavar="DIR",
    help="Resolve paths in DIR, relative to the site directory (as patch -d).",
)
@click.option(
    "--out",
    default=".",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Registry directory to write the entries to (default: .).",
)
@click.option("--name", default=None, metavar="NAME", help="Entry name (a prefix when several patch files are given).")
@click.option("--supported", default=None, metavar="SPEC", help="Version range (default: ==the installed version).")
@click.option(
    "--include",
    multiple=True,
    metavar="GLOB",
    help="Import only sections whose file (after -p) matches GLOB; repeatable (as filterdiff -i).",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Leave out sections whose file (after -p) matches GLOB; repeatable (as filterdiff -x).",
)
@click.option(
    "--python", "python", default=None, metavar="PYTHON|VENV", help="The environment whose files the patches apply to."
)
@pass_ctx
def import_(
    ctx: Context,
    patches: tuple[str, ...],
    strip: int | None,
    directory: str,
    out: str,
    name: str | None,
    supported: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    python: str | None,
) -> int:
    """Write registry entries from unified diffs (patch -pN series), one per patch file."""
    from radpatch.commands import importing

    target = Context(python, ctx.registries) if python else ctx
    return importing.run(target, patches, strip, directory, out, name, supported, include, exclude)


@click.command()
@click.argument("name")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option(
    "--out",
    default=".",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Registry directory to write the entry to (default: .).",
)
@click.option(
    "--distribution",
    default=None,
    metavar="NAME",
    help="Without PATH: the distribution whose edits to capture (default: the one installing the vllm package).",
)
@click.option(
    "--wheel",
    metavar="FILE",
    type=click.Path(dir_okay=False, readable=False),
    help="Read the pristine bytes from this wheel (offline) instead of the package index.",
)
@click.option("--supported", default=None, metavar="SPEC", help="Version range (default: ==the installed version).")
@click.option("--dry-run", is_flag=True, help="Print the entry it would write; write and record nothing.")
@click.option(
    "--python", "python", default=None, metavar="PYTHON|VENV", help="The environment whose files were edited."
)
@pass_ctx
def capture(ctx: Context, /, python: str | None, **options: Any) -> int:
    """Write a registry entry NAME from edits already made to installed files, and record it as applied.

    PATH: an edited or new .py file (absolute, or relative to site-packages), a module name, or a
    directory; without PATH, every module of the distribution that differs from its RECORD, and
    new .py files under its packages."""
    from radpatch.commands import capture as cmd
    from radpatch.commands import change

    target = Context(python, ctx.registries) if python else ctx
    dry_run = options.pop("dry_run")
    return cmd.run(target, cmd.Request(**options), dry_run, change.apply, change.revert)


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--wheel",
    metavar="FILE",
    type=click.Path(dir_okay=False, readable=False),
    help="Read the pristine bytes from this wheel (offline) instead of the package index.",
)
@click.option("--dry-run", is_flag=True, help="Fetch and check the bytes, say what would be restored, write nothing.")
@pass_ctx
def restore(ctx: Context, paths: tuple[str, ...], wheel: str | None, dry_run: bool) -> int:
    """Put files of an installed distribution back to their RECORD bytes, from its wheel (no reinstall).

    PATH: a file under site-packages (absolute, or relative to site-packages), a module name
    (vllm.v1.core.kv_cache_utils), or a directory (each of its files not as installed)."""
    from radpatch.commands import restore as cmd

    return cmd.run(ctx, paths, wheel, dry_run)

"""The verbs that read files beside the registry's entries, handed to `cli`'s group: import (unified
diffs), capture (edits already made to installed files), restore (a wheel's RECORD bytes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from radpatch.commands.options import wheels_option
from radpatch.context import Context

FC = TypeVar("FC", bound=Callable[..., Any])

pass_ctx = click.make_pass_decorator(Context)

# options two of the verbs share, their words written once (restore's --wheel is apply's: commands.options)
_SUPPORTED = click.option(
    "--supported", default=None, metavar="SPEC", help="Version range (default: ==the installed version)."
)
_WHEEL = click.option(
    "--wheel",
    metavar="FILE|DIR",
    type=click.Path(dir_okay=True, readable=False),
    help="Read the pristine bytes from this wheel (or the installed version's in a directory of wheels), "
    "offline, instead of the package index.",
)


def _out(written: str) -> Callable[[FC], FC]:
    """`--out`: the registry directory import and capture write to (`written`: what they write there)."""
    return click.option(
        "--out",
        default=".",
        metavar="DIR",
        type=click.Path(file_okay=False),
        help=f"Registry directory to write the {written} to (default: .).",
    )


def _target(says: str) -> Callable[[FC], FC]:
    """`--python` of import and capture: the environment they read, as `says` puts it."""
    return click.option("--python", "python", default=None, metavar="PYTHON|VENV", help=says)


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
@_out("entries")
@click.option("--name", default=None, metavar="NAME", help="Entry name (a prefix when several patch files are given).")
@_SUPPORTED
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
    "--distribution",
    default=None,
    metavar="NAME",
    help="Whose a new module in a namespace directory several distributions share is (as capture's); "
    "the patches' other files must be its files too.",
)
@_target("The environment whose files the patches apply to.")
@pass_ctx
def import_(ctx: Context, /, python: str | None, **options: Any) -> int:
    """Write registry entries from unified diffs (patch -pN series), one per patch file."""
    from radpatch.commands import importing

    target = Context(python, ctx.registries) if python else ctx
    return importing.run(target, **options)  # the options by the names of its parameters


@click.command()
@click.argument("name")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@_out("entry")
@click.option(
    "--distribution",
    default=None,
    metavar="NAME",
    help="Without PATH: the distribution whose edits to capture (default: the one installing the vllm package); "
    "with PATH, whose a new module (or a directory) in a namespace directory several share is.",
)
@_WHEEL
@_SUPPORTED
@click.option("--dry-run", is_flag=True, help="Print the entry it would write; write and record nothing.")
@_target("The environment whose files were edited.")
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
@wheels_option(
    "Read the pristine bytes from this wheel (or the installed version's in a directory of wheels), "
    "offline, instead of the package index. Repeatable."
)
@click.option("--dry-run", is_flag=True, help="Fetch and check the bytes, say what would be restored, write nothing.")
@pass_ctx
def restore(ctx: Context, paths: tuple[str, ...], wheels: tuple[str, ...], dry_run: bool) -> int:
    """Put files of an installed distribution back to their RECORD bytes, from its wheel (no reinstall).

    PATH: a file under site-packages (absolute, or relative to site-packages), a module name
    (vllm.v1.core.kv_cache_utils), or a directory (each of its files not as installed)."""
    from radpatch.commands import restore as cmd

    return cmd.run(ctx, paths, wheels, dry_run)

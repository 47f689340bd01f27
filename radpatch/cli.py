"""Click wiring only: every command is a function in radpatch.commands."""

from __future__ import annotations

import os
import sys
import traceback
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

from radpatch import __version__
from radpatch.commands import json_output, usage
from radpatch.commands.file_verbs import capture, import_, restore
from radpatch.commands.options import wheels_option
from radpatch.context import Context
from radpatch.errors import EXIT_INTERNAL, EXIT_USAGE, RadpatchError, UsageError

pass_ctx = click.make_pass_decorator(Context)


def complete_patch(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of patch names from the registries the command line names so far (plus
    RADPATCH_REGISTRY); already given names are left out. Never raises: completion must stay quiet."""
    from click.shell_completion import CompletionItem  # loaded only when the shell asks

    from radpatch.registry.catalog import Registry

    root = ctx.find_root()
    given = set(ctx.params.get(param.name or "", ()) or ())
    try:
        names = Registry.discover(tuple(root.params.get("registries") or ())).names()
    except Exception:  # noqa: BLE001 - a broken registry must not break the user's shell
        return []
    return [CompletionItem(n) for n in names if n.startswith(incomplete) and n not in given]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--python",
    "python",
    metavar="PYTHON|VENV",
    type=click.Path(readable=False),
    help="Act on this interpreter's environment, or this virtual environment directory (default: radpatch's own).",
)
@click.option(
    "--registry",
    "registries",
    multiple=True,
    metavar="DIR",
    type=click.Path(file_okay=False, readable=False),
    help="Also load patches from DIR (repeatable; also RADPATCH_REGISTRY).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(__version__, prog_name="radpatch")
@click.pass_context
def cli(click_ctx: click.Context, python: str | None, registries: tuple[str, ...], debug: bool) -> None:
    """Declarative, provable, reversible patches for installed Python distributions."""
    click_ctx.obj = Context(python, registries)


@cli.command("list")
@pass_ctx
def list_(ctx: Context) -> int:
    """List the patches in the registries."""
    from radpatch.commands import listing

    return listing.run_list(ctx)


@cli.command()
@click.argument("name", shell_complete=complete_patch)
@pass_ctx
def show(ctx: Context, name: str) -> int:
    """Show a patch: versions, module per version range, rewrites, knobs."""
    from radpatch.commands import listing

    return listing.run_show(ctx, name)


@cli.command()
@click.argument("names", nargs=-1, required=True, shell_complete=complete_patch)
@click.option("--dry-run", is_flag=True, help="Plan and prove, write nothing.")
@click.option(
    "--import-check/--no-import-check",
    default=None,
    help="Before writing, import each patched module in the target interpreter (a subprocess); "
    "refuse if it fails only once patched.  [env var: RADPATCH_IMPORT_CHECK]",
)
@wheels_option(
    "Adopting a file that already carries a patch: read its RECORD bytes from this wheel (or a "
    "directory of wheels), offline, instead of the package index. Repeatable."
)
@pass_ctx
def apply(
    ctx: Context, names: tuple[str, ...], dry_run: bool, import_check: bool | None, wheels: tuple[str, ...]
) -> int:
    """Apply patches (all or nothing; already applied ones are left alone).

    A file that already carries a patch's result (a hand edit, a sed or `patch` step) is adopted:
    recorded as applied and left as it is, its RECORD bytes (from the wheel) kept for revert."""
    from radpatch.commands import change

    check = _import_check_env() if import_check is None else import_check
    return change.apply(ctx, names, dry_run, check, wheels)


def _import_check_env() -> bool:
    """RADPATCH_IMPORT_CHECK, read here rather than by click: every click release names the
    variable in its error (click 8.1.0, the floor, names only the option)."""
    raw = os.environ.get("RADPATCH_IMPORT_CHECK", "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise UsageError(
        f"RADPATCH_IMPORT_CHECK={os.environ['RADPATCH_IMPORT_CHECK']!r} is not a boolean",
        "set it to 1 (import-check every apply) or 0, or unset it",
    )


@cli.command()
@click.argument("names", nargs=-1, required=True, shell_complete=complete_patch)
@click.option("--dry-run", is_flag=True, help="Prove the revert, write nothing.")
@pass_ctx
def revert(ctx: Context, names: tuple[str, ...], dry_run: bool) -> int:
    """Revert patches, restoring the original files byte for byte."""
    from radpatch.commands import change

    return change.revert(ctx, names, dry_run)


@cli.command()
@click.argument("name", shell_complete=complete_patch)
@pass_ctx
def diff(ctx: Context, name: str) -> int:
    """Print the unified diff a patch makes to the installed files (writes nothing)."""
    from radpatch.commands import diff as cmd

    return cmd.run(ctx, name)


@cli.command()
@click.argument("names", nargs=-1, shell_complete=complete_patch)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--check", is_flag=True, help="Exit 3 unless every named patch (default: every recorded one) is applied.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "cyclonedx"]),
    default=None,
    help="table (default), json (as --json), or cyclonedx: a CycloneDX 1.6 SBOM of the patched distributions.",
)
@pass_ctx
def status(ctx: Context, names: tuple[str, ...], as_json: bool, check: bool, fmt: str | None) -> int:
    """Show each patch's state: applied, not-applied, drifted, incompatible, not-installed, obsolete."""
    if fmt == "cyclonedx":
        from radpatch.commands import sbom

        if as_json or check:
            raise UsageError(
                "--format cyclonedx prints a BOM: it does not combine with --json or --check",
                "run `radpatch status --check` separately",
            )

        return sbom.run(ctx, names)
    from radpatch.commands import status as cmd

    return cmd.run(ctx, names, as_json or fmt == "json", check)


@cli.command()
@click.argument("names", nargs=-1, shell_complete=complete_patch)
@click.option(
    "--all", "every", is_flag=True, help="Verify every patch of the registries: a matrix of patches x releases."
)
@click.option(
    "--versions",
    "spec",
    metavar="SPEC",
    help="PEP 440 range of releases to verify (default: the patch's supported range).",
)
@click.option(
    "--python",
    "python",
    metavar="X.Y",
    help="The target's Python version to judge version tests for (default: the Python radpatch runs on).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_ctx
def verify(
    ctx: Context, names: tuple[str, ...], every: bool, spec: str | None, python: str | None, as_json: bool
) -> int:
    """Prove a patch against every released version in its range, from the wheels (no GPU, no install).

    With several names or --all: one matrix of patches x releases (pass, obsolete, moved, no match, out of range)."""
    from radpatch.commands import verify as cmd

    return cmd.run_many(ctx, names, every, spec, as_json, python)


@cli.command()
@click.argument("names", nargs=-1, required=True, shell_complete=complete_patch)
@click.option("--to", "to", required=True, metavar="VERSION|SPEC", help="The release(s) to port the patches to.")
@click.option("--dry-run", is_flag=True, help="Show the edit (a unified diff) and write nothing.")
@pass_ctx
def port(ctx: Context, names: tuple[str, ...], to: str, dry_run: bool) -> int:
    """Port patches to new releases: widen `supported`, add a moved module, or say why not (edits the YAML)."""
    from radpatch.commands import port as cmd

    return cmd.run(ctx, names, to, dry_run)


cli.add_command(import_)
cli.add_command(capture)
cli.add_command(restore)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    json_output.reset()
    try:
        rv = cli.main(args=args, prog_name="radpatch", standalone_mode=False)
    except RadpatchError as exc:
        click.echo(f"radpatch: error: {exc.render()}", err=True)
        json_output.error(args, exc.message, exc.hint, exc.exit_code)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("radpatch: interrupted", err=True)
        return 130
    except click.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `radpatch` (click 8.2+): the help, as click prints it
            exc.show()
            return EXIT_USAGE
        message, hint = usage.render(exc, args, cli)
        click.echo(f"radpatch: error: {message}\n  hint: {hint}", err=True)
        json_output.error(args, message, hint, EXIT_USAGE)
        return EXIT_USAGE
    except click.ClickException as exc:
        exc.show()
        code = EXIT_USAGE if exc.exit_code == 2 else exc.exit_code
        json_output.error(args, exc.format_message(), "", code)
        return code
    except KeyboardInterrupt:
        click.echo("radpatch: interrupted", err=True)
        return 130
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into exit 70
        if debug:
            traceback.print_exc()
        click.echo(
            f"radpatch: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", err=True
        )
        return EXIT_INTERNAL
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())

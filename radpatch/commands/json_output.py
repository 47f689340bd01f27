"""What a command with `--json` prints on stdout: its JSON (`emit`), or, when it fails before
printing any (bad input, a registry error, a refusal), one error object, so a script reading stdout
always gets JSON (docs/cli.md "JSON on errors"); stderr keeps the one-line error either way."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

ERROR_SCHEMA = 1  # of the error object; raised when a key changes meaning or goes away
JSON_FORMATS = ("json", "cyclonedx")  # the `--format` values whose output is JSON


class _Printed:
    done = False


def reset() -> None:
    """A new invocation (cli.main): nothing printed yet."""
    _Printed.done = False


def emit(data: object) -> None:
    """Print a command's JSON on stdout (and remember it was printed)."""
    click.echo(json.dumps(data, indent=2))
    _Printed.done = True


def wants_json(args: Sequence[str]) -> bool:
    """The command line asks for JSON output: `--json`, or `--format` json or cyclonedx (a BOM is JSON
    a program reads: on an error it gets the same error object, not a BOM)."""
    for i, arg in enumerate(args):
        if arg == "--json" or arg in (f"--format={f}" for f in JSON_FORMATS):
            return True
        if arg == "--format" and i + 1 < len(args) and args[i + 1] in JSON_FORMATS:
            return True
    return False


def error(args: Sequence[str], message: str, hint: str, exit_code: int) -> None:
    """The error object on stdout, when JSON was asked for and none was printed."""
    if _Printed.done or not wants_json(args):
        return
    click.echo(
        json.dumps({"schema_version": ERROR_SCHEMA, "error": message, "hint": hint or None, "exit_code": exit_code})
    )
    _Printed.done = True

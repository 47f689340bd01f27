"""A click usage error in radpatch's own one-or-two-line shape (`radpatch: error: ...` and a hint),
in place of click's four lines ("Usage/Try/Error"): a global option given after the command gets
the command line with it moved before the command; any other error names the command's --help."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

import click

GLOBAL_WITH_VALUE = ("--python", "--registry")
GLOBAL_FLAGS = ("--debug", "--version")


def render(exc: click.UsageError, args: Sequence[str], group: click.Group) -> tuple[str, str]:
    """(message, hint) for `exc`, raised parsing `args` (the command line after `radpatch`) by `group`."""
    ctx = exc.ctx
    command = ctx.info_name if ctx is not None and ctx.parent is not None else _command(args, group)
    where = f" for `{command}`" if command else ""
    helping = f"see `radpatch{' ' + command if command else ''} --help`"
    if isinstance(exc, click.NoSuchOption):
        message = f"no such option {exc.option_name}{where}"
        moved = _global_moved(exc.option_name, command, args) if command else None
        if moved is not None:
            return message, f"global options go before the command: {shlex.join(['radpatch', *moved])}"
        near = sorted(exc.possibilities or ())
        return message, (f"did you mean {' or '.join(near)}? " if near else "") + helping
    first, _, rest = exc.format_message().partition(". ")
    message = first[:1].lower() + first[1:].rstrip(".") + where
    return message, (rest[:1].lower() + rest[1:] + " " if rest else "") + helping


def _global_moved(option: str, command: str, args: Sequence[str]) -> list[str] | None:
    """`args` with the global `option` (and its value) moved before `command`, or None when
    `option` is no global option or is not found after the command."""
    if option not in GLOBAL_WITH_VALUE + GLOBAL_FLAGS or command not in args:
        return None
    at = args.index(command)
    for i in range(at + 1, len(args)):
        token = args[i]
        if token == "--":
            return None
        if token == option or token.startswith(option + "="):
            takes = option in GLOBAL_WITH_VALUE and token == option
            if takes and i + 1 >= len(args):
                return None
            given = list(args[i : i + (2 if takes else 1)])
            rest = [*args[at:i], *args[i + len(given) :]]
            return [*args[:at], *given, *rest]
    return None


def _command(args: Sequence[str], group: click.Group) -> str | None:
    """The command `args` name (click gives some errors, such as an option without its value, no
    context): the first argument that is no global option nor its value."""
    i = 0
    while i < len(args):
        if args[i] in GLOBAL_WITH_VALUE:
            i += 2
            continue
        if not args[i].startswith("-"):
            return args[i] if args[i] in group.commands else None
        i += 1
    return None

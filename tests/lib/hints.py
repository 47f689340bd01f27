"""The commands a message tells the user to run, as the user would type them: each `radpatch ...`
between backticks, split as a shell splits it, and whether radpatch's command line accepts it (its
options in the places click reads them: `--python` and `--registry` before the command)."""

from __future__ import annotations

import re
import shlex

import click

from radpatch.cli import cli

COMMAND = re.compile(r"`(radpatch [^`]+)`")


def hinted(text: str) -> list[list[str]]:
    """Each `radpatch ARGS` the text names, in order, as argv without the program's name."""
    return [shlex.split(c)[1:] for c in COMMAND.findall(text)]


def usage_error(argv: list[str]) -> str | None:
    """What radpatch's command line says of `argv` before running anything, or None when it parses."""
    try:
        with cli.make_context("radpatch", list(argv)) as ctx:
            # the command and its arguments: `_protected_args` since click 8.2, `protected_args` before it
            protected = getattr(ctx, "_protected_args", None)
            words = [*(ctx.protected_args if protected is None else protected), *ctx.args]
            name, sub, rest = cli.resolve_command(ctx, words)
            assert sub is not None, name
            sub.make_context(name or "", rest, parent=ctx)
    except click.UsageError as exc:
        return exc.format_message()
    return None


def without_python(argv: list[str]) -> list[str]:
    """argv with its `--python X` left out (an in-process test's radpatch already runs on the test's site)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--python":
            skip = True
            continue
        out.append(a)
    return out

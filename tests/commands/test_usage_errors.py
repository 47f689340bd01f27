"""Click's usage errors were four lines ("Usage/Try/Error") and a global option given after the
command got no hint that it goes first (att54 #13). They are radpatch's shape now: `radpatch: error:`
and one hint line, exit 2.

Generated: the command (every verb that reads the registry) x the global option (`--registry DIR`,
`--registry=DIR`, `--debug`) x where it is put after the command (right after the command's name,
at the end). Oracle: the command line the hint prints, run, does exactly what the documented order
(global options first, docs/cli.md) does: same exit code, same output. Then other usage errors (a
missing argument, an unknown option, a bad choice, an unknown command): the hint's --help, run, exits 0."""

from __future__ import annotations

import itertools
import shlex
from pathlib import Path

import pytest

from tests.lib.generated import sample

COMMANDS = [
    ("list",),
    ("show", "toy"),
    ("diff", "toy"),
    ("status",),
    ("status", "--check", "toy"),
    ("apply", "--dry-run", "toy"),
]
GLOBALS = ["--registry", "--registry=", "--debug"]
PLACES = ["after the name", "at the end"]


def _shape(err: str) -> str:
    """The hint of a usage error in radpatch's one-or-two-line shape."""
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("radpatch: error: ") and lines[1].startswith("  hint: "), err
    assert "Usage:" not in err and "Try '" not in err, err
    return lines[1][len("  hint: ") :]


@pytest.mark.parametrize(("command", "option", "place"), sample(itertools.product(COMMANDS, GLOBALS, PLACES)))
def test_a_global_option_after_the_command_hints_the_command_line_that_works(  # type: ignore[no-untyped-def]
    toy: Path, radpatch, command: tuple[str, ...], option: str, place: str
) -> None:
    given = {"--registry": ["--registry", str(toy)], "--registry=": [f"--registry={toy}"], "--debug": ["--debug"]}[
        option
    ]
    first = [] if option.startswith("--registry") else ["--registry", str(toy)]
    name, rest = command[0], list(command[1:])
    argv = [*first, name, *given, *rest] if place == "after the name" else [*first, name, *rest, *given]
    wrong = radpatch(*argv)
    assert wrong.code == 2 and wrong.out == "", wrong
    hint = _shape(wrong.err)
    assert wrong.err.startswith(f"radpatch: error: no such option {given[0].partition('=')[0]} for `{name}`"), wrong.err
    assert hint.startswith("global options go before the command: radpatch "), hint
    hinted = shlex.split(hint.partition(": ")[2])[1:]
    documented = radpatch(*first, *given, *command)
    followed = radpatch(*hinted)
    assert (followed.code, followed.out, followed.err) == (documented.code, documented.out, documented.err), hinted


OTHERS = {
    "missing argument": (["show"], "show"),
    "unknown option": (["status", "--frob"], "status"),
    "misspelt option": (["status", "--chek"], "status"),
    "bad choice": (["status", "--format", "xml"], "status"),
    "option without its value": (["port", "toy", "--to"], "port"),
    "unknown command": (["stat"], None),
    "global option without its value": (["--python"], None),
}


@pytest.mark.parametrize("case", sample(OTHERS))
def test_other_usage_errors_are_two_lines_whose_help_runs(toy: Path, radpatch, case: str) -> None:  # type: ignore[no-untyped-def]
    argv, command = OTHERS[case]
    r = radpatch("--registry", str(toy), *argv)
    assert r.code == 2 and r.out == "", r
    hint = _shape(r.err)
    assert hint.endswith(f"see `radpatch{' ' + command if command else ''} --help`"), hint
    helped = radpatch(*shlex.split(hint.rpartition("`radpatch")[2].rstrip("`")))
    assert helped.code == 0 and helped.out.startswith("Usage: radpatch"), helped

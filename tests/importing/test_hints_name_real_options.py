"""att20 F3: a refusal's hint names only options its own command has. import and capture build
their entries with one builder (importing.emit); each hands it its own way to leave a file out, and
every `--option` a refusal of that builder names is checked against the command's click params."""

from __future__ import annotations

import re

import click
import pytest

from radpatch.cli import cli
from radpatch.errors import RefusedError
from radpatch.importing import captured, emit
from radpatch.importing.import_steps import DiffFile

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
REL = "toy/m.py"
CHANGES = {  # (before, after) of one module that the builder refuses
    "deleted": ("X = 1\n", None),
    "no code change": ("X = 1\n", "X = 1\n"),
    "comments only": ("X = 1\n", "X = 1  # why\n"),
    "does not parse": ("X = 1\n", "X = (\n"),
    "not text in its encoding": ("X = 1\n", "# coding: ascii\nX = '\udce9'\n"),
}
COMMANDS = {"import": emit.EntrySpec.leave_out, "capture": captured.LEAVE_OUT}


def _options(command: str) -> set[str]:
    found = cli.commands[command]
    assert isinstance(found, click.Command)
    return {o for p in found.params for o in (*p.opts, *p.secondary_opts) if o.startswith("--")} | {"--help"}


@pytest.mark.parametrize(("command", "change"), [(c, k) for c in COMMANDS for k in CHANGES])
def test_every_option_a_refusal_names_is_one_its_command_has(command: str, change: str) -> None:
    before, after = CHANGES[change]
    spec = emit.EntrySpec(
        "e", "e.patch", "", "toy", "==1.0", (), (DiffFile(REL, before, after, "toy", REL),), leave_out=COMMANDS[command]
    )
    with pytest.raises(RefusedError) as info:
        emit.build(spec)
    named = set(OPTION.findall(info.value.message + " " + info.value.hint))
    assert named <= _options(command), (named - _options(command), info.value.render())
    assert REL in info.value.render()

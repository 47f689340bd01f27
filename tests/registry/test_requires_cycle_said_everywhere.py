"""A `requires:` cycle (att54 #6): `status --check P` hinted `radpatch apply P`, which failed on the
cycle; `show P` and `status` never mentioned it. Every command that reads the entries now says it:
file:line:column of the `requires:` key, the cycle, exit 2, and a hint that works.

Generated: the cycle's length (2, 3) x an entry outside it that requires into it (none, one) x the
command (show, diff, list, status, status --check, apply, revert) x which entry it names (one on the
cycle, the one outside) x where `requires:` sits in the file (first key, last key). Oracle: the YAML
file itself (the line:column the message names holds the `requires` key), and the hint followed:
with the named requirement taken out of that entry's `requires:`, the same command does not fail on
the registry, and `apply` then `status --check` of the entry pass on the installed toy package."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.site import Site
from tests.lib.toy import TOY_FILES

REWRITES = [  # one change each, none overlapping another: every order of them applies
    "util: toypkg.util\nrewrites:\n  - replace: {scope: scale, find: x * 2, with: x * 3}\n",
    "util: toypkg.core\nrewrites:\n  - replace: {scope: plan, find: size = 4, with: size = 5}\n",
    'util: toypkg.core\nrewrites:\n  - replace: {scope: groups, find: plan(spec), with: "plan(spec[:])"}\n',
]
OUTSIDE = "util: toypkg.core\nrewrites:\n  - add_parameter: {function: groups, name: extra, default: None}\n"
COMMANDS = ["show", "diff", "list", "status", "status --check", "apply", "revert"]
SAID = re.compile(r"(/\S+\.yaml):(\d+):(\d+): requires: a cycle \(([\w -> ]+)\)")


def _entry(requires: list[str], rewrites: str, first: bool) -> str:
    req = f"requires: [{', '.join(requires)}]\n" if requires else ""
    body = 'summary: s\ndescription: d\ndistribution: toypkg\nsupported: ">=1.0,<2"\nmodules:\n  ' + rewrites
    return req + body if first else body.replace("rewrites:\n", req + "rewrites:\n")


def _argv(reg: Path, command: str, name: str) -> list[str]:
    return ["--registry", str(reg), *command.split(), *([] if command == "list" else [name])]


@pytest.mark.parametrize(
    ("length", "outside", "command", "named", "first"),
    sample(
        (n, o, c, x, f)
        for n, o, c, x, f in itertools.product([2, 3], [False, True], COMMANDS, ["on", "outside"], [True, False])
        if o or x == "on"
    ),
)
def test_a_requires_cycle_is_said_by_every_command_and_its_hint_works(  # type: ignore[no-untyped-def]
    site: Site, tmp_path: Path, radpatch, length: int, outside: bool, command: str, named: str, first: bool
) -> None:
    site.install("toypkg", "1.0", TOY_FILES)
    reg = tmp_path / "reg"
    cycle = [f"c{i}" for i in range(length)]
    for i, name in enumerate(cycle):
        write_entry(reg, name, _entry([cycle[(i + 1) % length]], REWRITES[i], first))
    if outside:
        write_entry(reg, "r", _entry([cycle[-1]], OUTSIDE, first))
    name = cycle[0] if named == "on" else "r"
    r = radpatch(*_argv(reg, command, name))
    assert r.code == 2 and r.out == "" and "radpatch apply" not in r.err, (r.code, r.out, r.err)
    lines = r.err.splitlines()
    assert len(lines) == 2 and lines[1].startswith("  hint: "), r.err
    said = SAID.search(lines[0])
    assert said is not None, r.err
    where, line, column, chain = Path(said[1]), int(said[2]), int(said[3]), said[4].split(" -> ")
    assert where.parent == reg and set(chain) == set(cycle) and chain[0] == chain[-1] == where.stem, chain
    assert where.read_text().splitlines()[line - 1][column - 1 :].startswith("requires:"), (where, line, column)
    # the hint, followed: the requirement that closes the cycle taken out of that entry's `requires:`
    assert "out of the other's `requires:`" in lines[1]
    text = where.read_text()
    where.write_text(text.replace(f"requires: [{chain[1]}]\n", ""))
    again = radpatch(*_argv(reg, command, name))
    assert "a cycle" not in again.err and again.code != 2, (again.code, again.err)
    if command != "apply":
        assert radpatch("--registry", str(reg), "apply", name).code == 0
    assert radpatch("--registry", str(reg), "status", "--check", name).code == 0

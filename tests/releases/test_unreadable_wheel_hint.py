"""A release whose wheel cannot be read (att54 #9): verify and port hinted "fix the rewrites ... or
narrow `supported`", which is wrong (the entry is fine, the file is not), and the progress line said
"600 B of 0 B (-)". The hint now names the release, the wheel's source and what to do with the file.

Generated: how the served wheel is broken (truncated, not a zip at all, a member unlike its RECORD)
x the command (verify NAME, verify as a matrix of two entries, port --dry-run) x the index answering
range requests or not. Oracle: the index's own file: replaced by a readable copy as the hint says
(a good wheel of the release), the command the hint names, run,
passes (exit 0); the read line never divides by an unknown size."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from radpatch.errors import EXIT_REFUSED
from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, entry
from tests.lib.wheels import unlike_record

ENTRY = entry("A toy patch every release needs.", ">=1.0")
RELEASES = {v: {f"{PKG}/core.py": GOOD} for v in ("1.0", "1.1", "1.2")}
BROKEN = "1.1"


BREAKS: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda data: data[: len(data) // 2],
    "not-a-zip": lambda data: b"<html><body>503 Service Unavailable</body></html>\n",
    "unlike-record": lambda data: unlike_record(data, f"{PKG}/core.py"),
}
COMMANDS = {
    "verify": ["verify", "cap"],
    "matrix": ["verify", "cap", "cap2"],
    "port": ["port", "cap", "--to", ">=1.0", "--dry-run"],
}


@pytest.mark.parametrize(("how", "command", "ranges"), sample(itertools.product(BREAKS, COMMANDS, [True, False])))
def test_an_unreadable_wheel_hints_what_to_do_with_the_file(
    how: str, command: str, ranges: bool, loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    server = loopback("radpatch-toy", RELEASES)
    server.ranges = ranges
    (wheel,) = [p for p in Path(server.root).iterdir() if f"-{BROKEN}-" in p.name]
    good = wheel.read_bytes()
    wheel.write_bytes(BREAKS[how](good))
    reg = write_registry("cap", ENTRY)
    (reg / "cap2.yaml").write_text(ENTRY)
    r = radpatch("--registry", str(reg), *COMMANDS[command])
    assert r.code == EXIT_REFUSED, (r.code, r.out, r.err)
    hint = r.err.splitlines()[-1]
    assert hint.startswith("  hint: ") and "narrow `supported`" not in hint and "fix the rewrite" not in hint, r.err
    assert f"the wheel of {BROKEN} is not readable" in hint and server.url in hint, hint
    assert "(-)" not in r.err and not re.search(r"of 0 B", r.err), r.err
    again = re.search(r"then run `radpatch ([^`]+)` again", hint)
    assert again is not None, hint
    # the hint, followed: the file fixed where it comes from, then the command it names
    assert "replace that file with a readable copy" in hint, hint
    wheel.write_bytes(good)
    after = radpatch("--registry", str(reg), *again[1].split())
    assert after.code == 0, (after.code, after.out, after.err)

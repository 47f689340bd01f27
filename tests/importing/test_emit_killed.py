"""import and capture write an entry's payloads and its YAML (importing.entry_files.write). A run killed
between the YAML and its payloads (att40b #7) left an entry naming a payload not written: every
command with that --registry failed, and the next capture refused ("exists already"). Now the
payloads go first and the YAML last; a payload a killed run left, holding the same bytes, is no clash.

Generated: the write the process is killed at (SIGKILL in os.replace, the 1st to the last), for
two entries with payloads. After the kill the registry loads (`radpatch list`), and writing again
gives every entry."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.lib.generated import sample

pytestmark = pytest.mark.processes

ENTRY = """\
summary: s
description: d
distribution: rpk
supported: ">=1.0"
modules:
  core: rpk.core
rewrites:
  - id: add
    file: core
    insert_definitions: {{payload: {name}/add.py, after: f}}
"""
WRITES = 4  # two entries, each a payload and its YAML
SCRIPT = textwrap.dedent("""\
    import os, signal, sys
    from pathlib import Path
    from radpatch.importing import emit, entry_files
    entries = [
        emit.Entry(n, {entry!r}.format(name=n), (("add.py", "def g():\\n    return 1\\n"),), 1, ())
        for n in ("one", "two")
    ]
    kill_at = int(sys.argv[2])
    real, calls = os.replace, []
    def replace(a, b):
        calls.append(b)
        if len(calls) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(a, b)
    os.replace = replace
    entry_files.write(Path(sys.argv[1]), entries)
    """).format(entry=ENTRY)


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kill_at", sample(range(1, WRITES + 1)))
def test_a_write_killed_midway_leaves_a_registry_that_loads_and_writes_again(tmp_path: Path, kill_at: int) -> None:
    out = tmp_path / "reg"
    killed = _run("-c", SCRIPT, str(out), str(kill_at))
    assert killed.returncode == -9, killed.stderr

    listed = _run("-m", "radpatch", "--registry", str(out), "list")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stdout + listed.stderr
    again = _run("-c", SCRIPT, str(out), "0")  # the same write, not killed: what the next run does
    assert again.returncode == 0, again.stderr
    final = _run("-m", "radpatch", "--registry", str(out), "list")
    assert final.returncode == 0 and "one" in final.stdout and "two" in final.stdout, final.stdout + final.stderr

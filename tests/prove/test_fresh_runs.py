"""tests/lib/fresh_runs, the oracle of the unimported-submodule tests, runs each program as a fresh
`python -I -c` process of the same target would: the same modules, names, path and argv at the
start, nothing a program before it imported, the same exit status and error; on radpatch's Python
and every other target."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.fresh_runs import fresh_run, fresh_runs
from tests.lib.interpreters import OTHER_TARGETS

EXES = {"own": sys.executable, **{v: str(p) for v, p in OTHER_TARGETS.items()}}
START = "import sys; print(sorted(sys.modules)); print(sorted(globals())); print(sys.path); print(sys.argv)"
PROGRAMS = [
    START,
    "import xml.dom.minidom, json.decoder, logging.handlers",  # binds submodules in this child only
    "import xml; print(xml.dom.minidom)",  # AttributeError, as in a fresh interpreter
    "import json; print(json.decoder)",  # json's own __init__ imports it: works in both
    "import logging; logging.handlers",
    START,  # the start again, after siblings imported
    "import sys; sys.exit(3)",
    "raise SystemExit('why')",
    "import sys; print('out'); print('err', file=sys.stderr)",
    "def f(:\n    pass",  # a SyntaxError
    "raise KeyboardInterrupt",
]


@pytest.mark.parametrize("exe", EXES)
def test_each_program_runs_as_in_a_fresh_interpreter(exe: str, tmp_path: Path) -> None:
    runs = fresh_runs(EXES[exe], PROGRAMS, tmp_path / "runs")
    for program, run in zip(PROGRAMS, runs):
        fresh = subprocess.run([EXES[exe], "-I", "-c", program], capture_output=True, text=True)
        assert (run.returncode, run.stdout) == (fresh.returncode, fresh.stdout), program
        assert run.stderr.strip().splitlines()[-1:] == fresh.stderr.strip().splitlines()[-1:], program
    assert [r.returncode != 0 for r in runs[1:5]] == [False, True, False, True]


@pytest.mark.parametrize("flags", [("-I",), ("-I", "-B")])
@pytest.mark.parametrize("exe", EXES)
def test_each_program_runs_by_the_kept_parent_as_in_a_fresh_interpreter(
    exe: str, flags: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fresh_run: the same, a program at a time, with argv, the current directory and the flags."""
    monkeypatch.chdir(tmp_path)
    programs = [*PROGRAMS, "import os, sys; print(os.getcwd(), sys.flags.dont_write_bytecode, sys.stdin.read())"]
    for program in programs:
        run = fresh_run(EXES[exe], program, ("a", "b c"), flags)
        fresh = subprocess.run(
            [EXES[exe], *flags, "-c", program, "a", "b c"], capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        assert (run.returncode, run.stdout) == (fresh.returncode, fresh.stdout), program
        assert run.stderr.strip().splitlines()[-1:] == fresh.stderr.strip().splitlines()[-1:], program
    assert fresh_run(EXES[exe], "import xml; xml.dom", (), flags).returncode == 1

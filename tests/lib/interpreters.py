"""The real target interpreters under /root/.pyenv, and generated modules run by one of them: what
the proof's tests of another Python's standard library (tests/prove/test_stdlib_names.py,
test_target_stdlib.py) check its answers against."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

PYENV = Path("/root/.pyenv/versions")
OWN = f"{sys.version_info[0]}.{sys.version_info[1]}"  # radpatch's own Python
SUPPORTED = ("3.10", "3.11", "3.12", "3.13")


def _newest(version: str) -> Path | None:
    found = sorted(PYENV.glob(f"{version}.*/bin/python"))
    return found[-1] if found else None


# version -> its newest interpreter under PYENV, for each supported version but radpatch's own
OTHER_TARGETS: dict[str, Path] = {v: p for v in SUPPORTED if v != OWN and (p := _newest(v)) is not None}

# the modules a newer or older standard library lacks that the tests prefer to import, in order
PREFERRED_LACKING = ("tomllib", "imp", "distutils", "cgi", "imghdr")


@functools.cache
def stdlib_lacking(executable: Path) -> tuple[str, ...]:
    """The public modules radpatch's standard library has that `executable`'s does not (asked once
    per interpreter, from its sys.stdlib_module_names): PREFERRED_LACKING's first, then the rest sorted."""
    theirs = subprocess.run(
        [str(executable), "-I", "-S", "-c", "import sys, json; print(json.dumps(sorted(sys.stdlib_module_names)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    missing = sorted(n for n in set(sys.stdlib_module_names) - set(json.loads(theirs)) if not n.startswith("_"))
    preferred = [n for n in PREFERRED_LACKING if n in missing]
    return (*preferred, *(n for n in missing if n not in preferred))


def preferred_lacking(executable: Path) -> str | None:
    """A public module radpatch's standard library has that `executable`'s does not, one the tests
    prefer to import (PREFERRED_LACKING); None when it lacks none of them."""
    return next((n for n in stdlib_lacking(executable) if n in PREFERRED_LACKING), None)


def targets_lacking() -> dict[str, Path]:
    """OTHER_TARGETS whose standard library lacks one of PREFERRED_LACKING."""
    return {v: p for v, p in OTHER_TARGETS.items() if preferred_lacking(p) is not None}


_RUN_ALL = """
import json, sys
failed = []
for source in json.load(open(sys.argv[1])):
    try:
        exec(compile(source + "\\nf()\\n", "generated.py", "exec"), {"__name__": "generated"})
        failed.append(False)
    except %s:
        failed.append(True)
print(json.dumps(failed))
"""


def fail_when_run(executable: str, sources: list[str], tmp: Path, error: str = "ImportError") -> list[bool]:
    """Which of `sources` (each a module defining f(), called after it) raise `error` when
    `executable` runs them, in one process for all; any other exception fails the test."""
    batch = tmp / "generated.json"
    batch.write_text(json.dumps(sources))
    done = subprocess.run([executable, "-I", "-c", _RUN_ALL % error, str(batch)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    failed: list[bool] = json.loads(done.stdout)
    return failed


# a module and what a patch may make of it, each a different answer of a target interpreter's probe
# (tests/prove/test_target_probe_code.py, test_probe_server.py)
BEFORE = "import os\n\n\ndef f():\n    return os.sep\n"
PROBED = {
    "same": BEFORE,
    "new-name": BEFORE.replace("return os.sep", "return undefined_name"),
    "missing-module": "import tomllib\n" + BEFORE,
    "syntax-error": BEFORE.replace("return os.sep", "return (os.sep"),
    "unreachable": BEFORE.replace("return os.sep", "return os.sep\n    x = 1"),
}

"""Code a patch puts after a call that never returns (`sys.exit(...)`, `os._exit(...)`, `exit()`, a
function annotated `-> NoReturn`) never runs: refused as code after a `raise` is (att21 pass 4: it was
applied, and `status --check` said applied, while the inserted code was dead).

Generated: the ways a module spells such a call (imports with and without `as`, from-imports, the
site builtins, annotations in every spelling), and look-alikes that return (a parameter or a local
or a module-level rebinding of the name, a second def of it, a call inside `contextlib.suppress` or a
`try` that catches SystemExit), times inserted code, times the block it is in. Each patched function
runs in a subprocess of this interpreter under a line tracer that writes each line as it runs (so
`os._exit` cannot lose it): the proof must refuse exactly the code no run reaches."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.reach import unreachable

# name: (module header, the call in f's block ({I} its indentation), whether control gets past it)
STOPS = {
    "sys-exit": ("import sys\n", "{I}sys.exit(x)\n", False),
    "sys-exit-no-arg": ("import sys\n", "{I}sys.exit()\n", False),
    "sys-as": ("import sys as _s\n", "{I}_s.exit(3)\n", False),
    "from-sys-exit": ("from sys import exit\n", "{I}exit(4)\n", False),
    "from-sys-exit-as": ("from sys import exit as bye\n", "{I}bye(5)\n", False),
    "os-exit": ("import os\n", "{I}os._exit(0)\n", False),
    "os-path-binds-os": ("import os.path\n", "{I}os._exit(0)\n", False),
    "from-os-exit": ("from os import _exit\n", "{I}_exit(0)\n", False),
    "site-exit": ("", "{I}exit(6)\n", False),
    "site-quit": ("", "{I}quit(7)\n", False),
    "noreturn": (
        "from typing import NoReturn\n\n\ndef die() -> NoReturn:\n    raise SystemExit(8)\n",
        "{I}die()\n",
        False,
    ),
    "noreturn-string": ("def die() -> 'NoReturn':\n    raise SystemExit(8)\n", "{I}die()\n", False),
    "noreturn-typing-attr": (
        "import typing\n\n\ndef die() -> typing.NoReturn:\n    raise SystemExit(9)\n",
        "{I}die()\n",
        False,
    ),
    "never": ("from typing import Never\n\n\ndef die() -> Never:\n    raise SystemExit(9)\n", "{I}die()\n", False),
    "assert-never": ("import typing\n", "{I}typing.assert_never(x)\n", False),
    # look-alikes: control gets past them
    "rebound-exit": ("exit = print\n", "{I}exit(x)\n", True),
    "sys-shadowed-by-local": ("import sys\n", "{I}sys = type('S', (), {{'exit': print}})\n{I}sys.exit(x)\n", True),
    "from-sys-exit-rebound": ("from sys import exit\nexit = print\n", "{I}exit(x)\n", True),
    "die-defined-twice": (
        "from typing import NoReturn\n\n\ndef die() -> NoReturn:\n    raise SystemExit(1)\n\n\ndef die():\n    pass\n",
        "{I}die()\n",
        True,
    ),
    "die-returns-none": ("def die() -> None:\n    pass\n", "{I}die()\n", True),
    "suppressed": (
        "import contextlib\nimport sys\n",
        "{I}with contextlib.suppress(SystemExit):\n{I}    sys.exit(x)\n",
        True,
    ),
    "try-caught": ("import sys\n", "{I}try:\n{I}    sys.exit(x)\n{I}except SystemExit:\n{I}    pass\n", True),
    "exit-attribute-of-other": ("import math\n", "{I}math.floor(x)\n", True),
}

INSERTED = {"assignment": "{I}y = 2\n", "call": "{I}len([x])\n", "def": "{I}def inner():\n{I}    return 1\n"}
BLOCKS = {"function": "", "loop": "    for i in range(3):\n", "if": "    if x is not None:\n"}

RUNNER = """
import os, sys
source = open(sys.argv[1]).read()
namespace = {"__name__": "generated"}
exec(compile(source, "generated.py", "exec"), namespace)
def trace(frame, event, arg):
    if frame.f_code.co_filename == "generated.py" and event == "line":
        os.write(1, f"{frame.f_lineno}\\n".encode())
    return trace
sys.settrace(trace)
for x in (0, 1):
    try:
        namespace["f"](x)
    except BaseException:
        pass
"""


def build(stop: str, inserted: str | None, block: str) -> tuple[str, int]:
    """The module, and the line the inserted code starts at."""
    header, call, _ = STOPS[stop]
    indent = "        " if BLOCKS[block] else "    "
    head = header + "\n\ndef f(x):\n" + BLOCKS[block] + call.format(I=indent)
    body = INSERTED[inserted].format(I=indent) if inserted else ""
    return head + body + "    return 0\n", len(head.splitlines()) + 1


def lines_reached(tmp: Path, source: str) -> set[int]:
    (tmp / "generated.py").write_text(source)
    done = subprocess.run(
        [sys.executable, "-B", "-c", RUNNER, str(tmp / "generated.py")], capture_output=True, text=True, cwd=tmp
    )
    return {int(n) for n in done.stdout.split()}


CASES = sample(itertools.product(STOPS, INSERTED, BLOCKS))


@pytest.mark.parametrize(("stop", "inserted", "block"), CASES, ids=["-".join(c) for c in CASES])
def test_code_after_a_call_that_never_returns_is_refused(stop: str, inserted: str, block: str, tmp_path: Path) -> None:
    (before, _), (after, first) = build(stop, None, block), build(stop, inserted, block)
    runs = first in lines_reached(tmp_path, after)
    assert runs == STOPS[stop][2], (after, first)
    found = unreachable(before, after)
    assert bool(found) == (not runs), (after, found)
    if found:
        assert f"its code at line {first} " in found[0] and "which never returns, so it never runs" in found[0], found


def test_both_outcomes_are_generated() -> None:
    assert {falls for _, _, falls in STOPS.values()} == {True, False}

"""A module nested deeper than Python compiles (a generated table, an adversarial release file) is
refused as Python refuses it: a SyntaxError radpatch turns into its one-line refusal. Its text went to
libcst's parser when `ast` refused it (to read a newer grammar), and libcst's native parser
overflowed its stack: exit 139, no message (`verify` died reading such a release as a base).

Generated: brackets of each kind, unary operators, nested calls, subscripts and conditional
expressions, at depths around and far past the compiler's limits, alone or in a module with other
code; each parsed in a subprocess (a crash must not take the test run down). Oracle: the running
Python's own compile() of the text - where it compiles, radpatch reads it; where it does not,
radpatch refuses it with SyntaxError, and nothing crashes. Code Python compiles but nested deeper
than radpatch's own walkers recurse (a level at a time, under Python's limit of 1000 frames) may be
refused (RecursionError, which rewrite.runner turns into "nested too deeply"); up to 400 levels
it is read."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.lib import REPO
from tests.lib.generated import sample

KINDS = {
    "parens": lambda n: "(" * n + "1" + ")" * n,
    "lists": lambda n: "[" * n + "]" * n,
    "dicts": lambda n: "{1: " * n + "1" + "}" * n,
    "unary": lambda n: "-" * n + "1",
    "calls": lambda n: "f(" * n + "1" + ")" * n,
    "subscripts": lambda n: "a" + "[0]" * n,
    "conditionals": lambda n: "1 if x else " * n + "0",
}
DEPTHS = (100, 390, 410, 1000, 1100, 5000, 100_000)
AROUND = ("alone", "in-module")
CASES = sample([(k, d, w) for k in KINDS for d in DEPTHS for w in AROUND])

PROGRAM = """
import sys
from radpatch.rewrite.source import Source
text = sys.stdin.read()
try:
    compile(text, "m.py", "exec")
    python = "compiles"
except (SyntaxError, RecursionError, MemoryError):
    python = "refused"
try:
    Source.parse(text)
    print(python, "read")
except (SyntaxError, RecursionError, MemoryError):  # rewrite.runner refuses each: "nested too deeply"
    print(python, "refused")
"""


@pytest.mark.parametrize(("kind", "depth", "around"), CASES)
def test_a_module_nested_too_deeply_is_refused_never_a_crash(kind: str, depth: int, around: str) -> None:
    expr = KINDS[kind](depth)
    text = f"x = {expr}\n" if around == "alone" else f"import os\n\n\ndef f(x):\n    return os.sep\n\n\nY = {expr}\n"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], input=text, capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    python, radpatch = done.stdout.split()
    # each level of these kinds is one node more (parentheses make none); Module and Assign add 2
    levels = 3 if kind == "parens" else depth + 3
    if python == "compiles" and levels > 400:  # past what radpatch's walkers recurse through: either
        assert radpatch in ("read", "refused"), done.stdout
        return
    assert radpatch == ("read" if python == "compiles" else "refused"), done.stdout

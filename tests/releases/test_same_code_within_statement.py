"""A port lands on the same match inside a statement too (att52 #1): `replace x * 2 -> x * 3,
occurrence: 2` took the first `x * 2` of `y = x * 2 + x * 2` on 1.0 (the one before it being on an
earlier line); on 1.1, where upstream changed that earlier line, occurrence 2 is the second `x * 2` of
the same statement. The statement and its neighbours were the same, so port said pass, and apply put the
change on the other operand. radpatch.releases.surroundings now compares what the edit leaves of the
statement too.

Generated: the statement holding two or more matches (an expression, two statements on one line, a
call's arguments) x what comes before it on 1.0 (a match on an earlier line or none) x what 1.1 changes
above it (that match gone, one added, an unrelated line changed, nothing) x which occurrence. Oracle: GNU
`patch` of the diff the rewrite makes on 1.0, applied to 1.1: where surroundings.compare finds no
mismatch and GNU patch applies, radpatch's rewrite of 1.1 gives the same code."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from radpatch.registry.loader import load_patch
from radpatch.releases import surroundings
from radpatch.rewrite.runner import forward, steps
from tests.lib.generated import sample
from tests.lib.same_code import PATCH, gnu_patch

pytestmark = pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")

STATEMENTS = {
    "expression": "y = x * 2 + x * 2",
    "one line": "b = x * 2; c = x * 2",
    "arguments": "y = max(x * 2, x * 2, 0)",
}
BEFORE = {"a match above": "a = x * 2", "none above": "a = 0"}
CHANGES = {
    "match gone": lambda above: above.replace("x * 2", "x * 4"),
    "match added": lambda above: above + "\n    z = x * 2",
    "unrelated": lambda above: above + "\n    w = 1",
    "nothing": lambda above: above,
}
CASES = sample(list(itertools.product(STATEMENTS, BEFORE, CHANGES, (1, 2, 3))))


@pytest.mark.parametrize(("statement", "before", "change", "nth"), CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_a_port_takes_the_same_match_inside_a_statement_or_refuses(
    statement: str, before: str, change: str, nth: int, tmp_path: Path
) -> None:
    above = BEFORE[before]
    old = "def f(x):\n    " + above + "\n    q = 0\n    " + STATEMENTS[statement] + "\n    return locals()\n"
    new = (
        "def f(x):\n    "
        + CHANGES[change](above)
        + "\n    q = 0\n    "
        + STATEMENTS[statement]
        + "\n    return locals()\n"
    )
    entry = tmp_path / "e.yaml"
    entry.write_text(
        'summary: s\ndescription: d\ndistribution: toy\nsupported: "==1.0"\nmodules:\n  m: toy.m\nrewrites:\n'
        f"  - replace:\n      scope: f\n      find: x * 2\n      with: x * 3\n      occurrence: {nth}\n"
    )
    patch = load_patch(entry)
    try:
        done = forward(patch, patch.rewrites, old.encode(), "m.py").decode()
        theirs = steps(patch, patch.rewrites, old.encode(), "m.py")
        ours_text = forward(patch, patch.rewrites, new.encode(), "m.py").decode()
        ours = steps(patch, patch.rewrites, new.encode(), "m.py")
    except Exception:
        pytest.skip("the occurrence is not there on one of the releases")
    if surroundings.compare(theirs, ours) is not None:
        return  # refused: allowed whatever patch does
    gnu = gnu_patch(old, done, new)
    if gnu is not None:
        assert ast.dump(ast.parse(gnu)) == ast.dump(ast.parse(ours_text)), (old, new, done, ours_text, gnu)

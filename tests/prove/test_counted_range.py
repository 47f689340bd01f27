"""`for i in range(n): last = i` then a read of last: a `for` loop's zero passes over an iterable not
known empty are not counted (prove/names/loops.py), so the read is refused exactly where the loop
surely runs no pass: where the path's tests say n is not positive (`if n < 1: for i in range(n):`,
`n <= 0`, `not n >= 1`, ...). The earlier rule (accepted only where an open test said n >= 1) refused
correct code, and before it the rule read any comparison in any open test (attack on issue 21, F4).

Generated: the guard's comparison (every operator, n on either side, constants 0..2, inside `not`,
`and`, `or`) x the branch the loop is in. Oracle: the patched function run for n in -1..3 and b
both ways: refused exactly where every run that reaches the loop raises UnboundLocalError."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

OPS = ("<", "<=", ">", ">=", "==", "!=")
FORMS = ("n {op} {c}", "{c} {op} n", "not n {op} {c}", "n {op} {c} and b", "n {op} {c} or b")
CASES = sample([(f, op, c, branch) for f in FORMS for op in OPS for c in (0, 1, 2) for branch in ("if", "else")])

BEFORE = "def f(n, b):\n    last = -1\n    return 0\n"


def after(test: str, branch: str) -> str:
    loop = "        for i in range(n):\n            last = i\n        return last\n"
    if branch == "if":
        return f"def f(n, b):\n    if {test}:\n{loop}    return 0\n"
    return f"def f(n, b):\n    if {test}:\n        return 0\n    else:\n{loop}"


def always_raises(code: str, test: str, branch: str) -> bool:
    """Does every run that reaches the loop raise (the loop surely runs no pass there)?"""
    space: dict[str, object] = {}
    exec(code, space)
    f = space["f"]
    runs = [(n, b) for n, b in itertools.product(range(-1, 4), (False, True)) if eval(test) == (branch == "if")]
    outcomes = []
    for n, b in runs:
        try:
            f(n, b)  # type: ignore[operator]
            outcomes.append(False)
        except UnboundLocalError:
            outcomes.append(True)
    return bool(outcomes) and all(outcomes)


@pytest.mark.parametrize(("form", "op", "c", "branch"), CASES)
def test_a_read_after_range_n_is_refused_where_the_tests_say_it_runs_no_pass(
    form: str, op: str, c: int, branch: str
) -> None:
    test = form.format(op=op, c=c)
    code = after(test, branch)
    assert bool(refused(BEFORE, code)) == always_raises(code, test, branch), code

"""`for i in range(n): v = i` then a read of v is accepted only where an open `if` says n >= 1
(prove/names/loops.Loops.counted). The rule read any comparison of n with a positive number
anywhere in any open test, whichever branch the loop was in (attack on issue 21, F4): `if n < 1:
for i in range(n): last = i` / `return last` was applied and raised UnboundLocalError for every n
that reached it; so did `n != 1`, `not n >= 1`, `n > 1 or b`.

Generated: the guard's comparison (every operator, n on either side, constants 0..2, inside `not`,
`and`, `or`) x the branch the loop is in. Oracle: the patched function run for n in -1..3 and b
both ways: the names step refuses exactly where some run raises UnboundLocalError - except the
one idiom loops.py names and keeps (`n == c` in its else: vLLM sizes n as a count there;
omni-infer's series), accepted though n == 0 would raise."""

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


def raises(code: str) -> bool:
    space: dict[str, object] = {}
    exec(code, space)
    f = space["f"]
    for n, b in itertools.product(range(-1, 4), (False, True)):
        try:
            f(n, b)  # type: ignore[operator]
        except UnboundLocalError:
            return True
    return False


@pytest.mark.parametrize(("form", "op", "c", "branch"), CASES)
def test_a_counted_range_is_taken_only_where_the_test_says_n_is_at_least_one(
    form: str, op: str, c: int, branch: str
) -> None:
    test = form.format(op=op, c=c)
    code = after(test, branch)
    # the idiom: the loop runs only where `n == c` (c >= 1) is false
    reach = [n for n, b in itertools.product(range(-1, 4), (False, True)) if eval(test) == (branch == "if")]
    idiom = op == "==" and c >= 1 and all(n != c for n in reach)
    if idiom:
        assert not refused(BEFORE, code), code
        return
    assert bool(refused(BEFORE, code)) == raises(code), code

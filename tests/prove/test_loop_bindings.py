"""A name bound in a loop's body and read after the loop is bound only where every way out of the loop
binds it (flow38, the last adversarial pass's highest finding: `for i in xs:` / `if i < 0: break` /
`v = i` then `return v` was applied and raised UnboundLocalError for an empty xs or a negative first
item). The ways out: no pass at all (an iterable that may be empty, a `while` test false at once),
a `break`, the `continue` or the end of a last pass; the `else` runs on all but the `break`.

Generated: the loop shape (for/while, break or continue before or after the binding, for-else,
`while True:`, nested loops, literal iterables, a binding before the loop) times the read (after
the loop, in a closure after it: in a function) times the scope (a function, module level). The oracle runs each
for every iterable in XS: the names step refuses exactly where one raises NameError, but for a `for` loop's
zero passes over an iterable not known empty, which are not counted (prove/names/loops.py, as pylint does not
count them: a real series' new module binds in `for ... in zip(batch, sizes):` and reads after it): a shape
with no `while` runs only the non-empty iterables (an empty literal still runs no pass)."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.blocks import indent
from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

XS = ([], [1], [-1], [1, -1], [-1, 1], [2, 3])
SHAPES = {
    "for": "for i in xs:\n    v = i\n",
    "for-zip": "for i, j in zip(xs, [*xs]):\n    v = i\n    if v is None:\n        v = j\n",
    "for-break-before": "for i in xs:\n    if i < 0:\n        break\n    v = i\n",
    "for-break-after": "for i in xs:\n    v = i\n    if i < 0:\n        break\n",
    "for-continue-before": "for i in xs:\n    if i < 0:\n        continue\n    v = i\n",
    "for-continue-after": "for i in [0, *xs]:\n    v = i\n    if i < 0:\n        continue\n",
    "for-else-binds": "for i in xs:\n    v = i\nelse:\n    v = 0\n",
    "for-else-pass": "for i in xs:\n    v = i\nelse:\n    pass\n",
    "for-found-else-raises": (
        "for i in xs:\n    if i > 0:\n        v = i\n        break\nelse:\n    raise ValueError(xs)\n"
    ),
    "for-found": "for i in xs:\n    if i > 0:\n        v = i\n        break\n",
    "for-target": "for v in xs:\n    pass\n",
    "while-true-break-before": (
        "it = iter(xs)\nwhile True:\n    i = next(it, None)\n    if i is None:\n        break\n    v = i\n"
    ),
    "while-true-bound-then-break": "it = iter(xs)\nwhile True:\n    v = next(it, 0)\n    if v >= 0:\n        break\n",
    "while-one-bound-then-break": "it = iter([*xs, 0])\nwhile 1:\n    v = next(it)\n    if v >= 0:\n        break\n",
    "while-test": "n = len(xs)\nwhile n:\n    v = n\n    n -= 1\n",
    "while-test-else": "n = len(xs)\nwhile n:\n    v = n\n    n -= 1\nelse:\n    v = 0\n",
    "nested": "for i in xs:\n    for j in xs:\n        v = j\n",
    "literal": "for i in [1, 2]:\n    v = i\n",
    "literal-string": "for i in 'ab':\n    v = i\n",
    "literal-break-before": "for i in [1, 2]:\n    if xs:\n        break\n    v = i\n",
    "range-literal": "for i in range(3):\n    v = i\n",
    "range-literal-empty": "for i in range(2, 2):\n    v = i\n",
    "range-unknown": "for i in range(len(xs)):\n    v = i\n",
    "bound-before": "v = 0\nfor i in xs:\n    v = i\n",
}
READS = {"after": "return v\n", "closure": "return (lambda: v)()\n"}
SCOPES = ("function", "module")


def module(shape: str, read: str, scope: str) -> str:
    if scope == "function":
        return "def f(xs):\n" + indent(shape + read, "    ")
    return "xs = XS\n" + shape + read.replace("return ", "V = ")


def runs_unbound(source: str, scope: str) -> bool:
    """Does some iterable in XS make f (or the module) raise NameError/UnboundLocalError? (The empty
    one only where a `while` loop is what may run no pass: module doc.)"""
    for xs in XS if "while" in source else [x for x in XS if x]:
        namespace: dict[str, object] = {"XS": list(xs)}
        try:
            exec(compile(source, "generated.py", "exec"), namespace)
            if scope == "function":
                namespace["f"](list(xs))  # type: ignore[operator]
        except NameError:  # UnboundLocalError is one
            return True
        except ValueError:
            continue
    return False


# a module-level closure called at import time is not followed (the names step does not tell when a
# function runs): the if/match family has the same gap, named in flow38's report
CASES = sample([c for c in itertools.product(SHAPES, READS, SCOPES) if c[1:] != ("closure", "module")])


@pytest.mark.parametrize(("shape", "read", "scope"), CASES, ids=["-".join(c) for c in CASES])
def test_a_read_after_a_loop_is_refused_exactly_where_a_way_out_leaves_the_name_unbound(
    shape: str, read: str, scope: str
) -> None:
    before, after = module(SHAPES[shape], "", scope), module(SHAPES[shape], READS[read], scope)
    found = refused(before, after)
    assert bool(found) == runs_unbound(after, scope), (after, found)
    if found:
        assert "is bound on some paths only" in found[0].describe(), found[0].describe()

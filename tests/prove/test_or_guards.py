"""Reads guarded by `or`, `not (a and b)` and the like (issue 21): a name bound on some paths only,
read only where a test tells it is bound, is not refused; read where it may be unbound, it is.

Generated: how the name is bound on some paths (under `if a:`, `if a and b:`, the else of `if not a:`,
`if a or b:`, with a flag set beside it, with a `None` default of another name set beside it) x the
guard (a test over a, b, c: plain, `not`, `and`, `or`, De Morgan, nested, a walrus) x where the read
sits under it (an if, elif or else, an early return, a conditional expression, an `and`/`or` operand,
a `while` test and after it, an assert, a comprehension's `if` and item). The oracle runs f for every
a, b, c in {0, 1}: the names step refuses exactly where Python raises NameError for some of them.

And what the guards must not let through: a loop whose pass rebinds (or a call of it changes) what a
guard tests reads the name on a later pass with the claim's facts no longer true, and an `and` that
binds a name by walrus leaves what was known of that name before it behind."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

BINDS = {
    "if a": "if a:\n    v = 1\n",
    "if a and b": "if a and b:\n    v = 1\n",
    "else of not a": "if not a:\n    pass\nelse:\n    v = 1\n",
    "if a or b": "if a or b:\n    v = 1\n",
    "flag": "ok = False\nif a:\n    v = 1\n    ok = True\n",
    "none default": "w = None\nif a:\n    v = 1\n    w = 2\n",
}
GUARDS = (
    "a",
    "not not a",
    "a and c",
    "not (not a or c)",
    "not (c or not a)",
    "(a or c) and a",
    "a and b",
    "not (not a or not b)",
    "not (not b or not a) and c",
    "(w1 := a) and c",
    "a or c",
    "not (a and c)",
    "not a or c",
    "c",
    "b",
    "(w1 := c) or a",
)
OWN_GUARDS = {"flag": ("ok", "not (not ok or c)", "ok or c"), "none default": ("w is not None", "not (w is None or c)")}
PLACES = {
    "if": "if {X}:\n    r = v\n",
    "elif": "if c and not c:\n    pass\nelif {X}:\n    r = v\n",
    "else": "if not ({X}):\n    pass\nelse:\n    r = v\n",
    "early return": "if not ({X}):\n    return 0\nr = v\n",
    "early return or": "if c and not c or not ({X}):\n    return 0\nr = v\n",
    "conditional expression": "r = v if {X} else 0\n",
    "and operand": "r = ({X}) and v\n",
    "or operand": "r = not ({X}) or v\n",
    "while test": "while {X}:\n    r = v\n    break\n",
    "after while": "while not ({X}):\n    return 0\nr = v\n",
    "assert": "assert {X}\nr = v\n",
    "assert or": "assert not ({X}) or v\n",
    "comprehension if": "r = [v for _ in [0] if {X}]\n",
    "comprehension if or": "r = [0 for _ in [0] if not ({X}) or v]\n",
    "comprehension item": "r = [v if {X} else 0 for _ in [0]]\n",
}
CALLS = list(itertools.product((0, 1), repeat=3))
BEFORE = b"def f(a, b, c):\n    return 0\n"


def function(bind: str, guard: str, place: str) -> str:
    body = BINDS[bind] + PLACES[place].format(X=guard) + "return 0\n"
    return "def f(a, b, c):\n" + indent(body, "    ")


CASES = sample(
    [(bind, guard, place) for bind in BINDS for guard in GUARDS + OWN_GUARDS.get(bind, ()) for place in PLACES]
)


@pytest.mark.parametrize(("bind", "guard", "place"), CASES, ids=["|".join(c) for c in CASES])
def test_a_read_under_a_guard_is_refused_exactly_where_it_may_be_unbound(bind: str, guard: str, place: str) -> None:
    after = function(bind, guard, place)
    found = introduced(BEFORE, after.encode())
    assert found is not None, after
    assert bool(found) == f_raises_name_error(after, CALLS, (AssertionError,)), (
        after,
        [p.describe() for p in found],
    )


# A loop's later pass: the guard's name rebound (or changed through a call) by an earlier pass, after the
# read. The claim's facts told of the value at its join, not of the value the next pass tests.
LOOPS = {
    "while": "n = 0\nwhile ({T}) and n < 3:\n{BODY}    n = n + 1\n",
    "for": "for _ in [0, 1, 2]:\n{BODY}",
}
TESTS = ("a or c", "c", "not a or c")
CHANGES = {
    "rebound": "a = 1\n",
    "rebound by walrus": "if (a := 1):\n    pass\n",
    "not rebound": "c = 0\n",
    "mutated": "a.append(1)\n",
}


def loop_function(loop: str, test: str, change: str) -> str:
    body = indent(f"if a:\n    r = v\n    break\n{CHANGES[change]}", "    ")
    head = "a = [] if not a else [1]\n" if change == "mutated" else ""
    text = head + "if a:\n    v = 1\n" + LOOPS[loop].format(T=test, BODY=body) + "return 0\n"
    return "def f(a, b, c):\n" + indent(text, "    ")


LOOP_CASES = sample(list(itertools.product(LOOPS, TESTS, CHANGES)))


@pytest.mark.parametrize(("loop", "test", "change"), LOOP_CASES, ids=["|".join(c) for c in LOOP_CASES])
def test_a_guard_a_loop_pass_rebinds_is_not_taken_on_the_next_pass(loop: str, test: str, change: str) -> None:
    after = loop_function(loop, test, change)
    found = introduced(BEFORE, after.encode())
    assert found is not None, after
    assert bool(found) == f_raises_name_error(after, CALLS), (after, [p.describe() for p in found])


# What an `and`/`or` binds by walrus: the facts known of that name before it no longer hold after it.
@pytest.mark.parametrize("spelling", ["r = (w := a) and 0\n", "r = (w := a) or 0\n", "r = 0 if (w := a) else 1\n"])
def test_a_walrus_in_a_guard_takes_back_what_was_known_of_its_name(spelling: str) -> None:
    body = f"w = None\nif a:\n    v = 1\n{spelling}if w is not None:\n    return v\nreturn 0\n"
    after = "def f(a, b, c):\n" + indent(body, "    ")
    found = introduced(BEFORE, after.encode())
    assert found is not None, after
    assert f_raises_name_error(after, CALLS), after
    assert found, after

"""A parameter coerced inside a `try` (`try: flag = bool(flag)` / `except TypeError: flag = False`)
is tested alike on every later test of it (issue 21, names51 over-refusals): only a coercion that was
itself the first statement counted, so `if flag: v = 1` / `other()` / `if flag: return v` after the
try was refused though every path out of it leaves flag a value whose truth cannot change.

Now a `try` whose body coerces the parameter first of all counts when each handler binds it to such a
value first, or ends (`return`, `raise`); the twin, a handler that passes, leaves the caller's object
(its `__bool__` raised once, then flips) and stays refused.

Generated: the coercion (as test_coerced_parameters) x the handler (binds a constant, returns, raises;
the twin: passes) x where the try is (first, after other code and a call). The oracle runs f with True,
False, objects whose truth flips at each test, and one whose first `__bool__` raises TypeError, for
a = 0 and 1: the names step refuses exactly where one raises NameError."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

HEAD = """class Flip:
    def __init__(self, first):
        self.next = first

    def __bool__(self):
        now, self.next = self.next, not self.next
        return now


class Odd:
    def __init__(self):
        self.n = 0

    def __bool__(self):
        self.n += 1
        if self.n == 1:
            raise TypeError("not yet")
        return self.n % 2 == 1


def other(x=None):
    return None


"""
VALUES = {
    "bool(flag)": "bool(flag)",
    "not flag": "not flag",
    "flag is True": "flag is True",
    "isinstance(flag, bool)": "isinstance(flag, bool)",
    "flag or False (twin)": "flag or False",
}
HANDLERS = {
    "binds a constant": "flag = False\n",
    "returns": "return None\n",
    "raises": "raise\n",
    "passes (twin)": "pass\n",
}
WHERE = {
    "first": "{try_}{tests}",
    "after other code and a call": "w = 0\nother(w)\n{try_}{tests}",
}
TESTS = "if flag:\n    v = 1\nother()\nif flag:\n    r = v\n"


def function(value: str, handler: str, where: str) -> str:
    try_ = f"try:\n    flag = {VALUES[value]}\nexcept TypeError:\n{indent(HANDLERS[handler])}"
    body = WHERE[where].format(try_=try_, tests=TESTS)
    return HEAD + "def f(flag, a):\n" + indent(body + "return None\n")


CASES = sample(list(itertools.product(VALUES, HANDLERS, WHERE)))


@pytest.mark.parametrize(("value", "handler", "where"), CASES, ids=["-".join(c) for c in CASES])
def test_a_parameter_coerced_in_a_try_is_tested_alike(value: str, handler: str, where: str) -> None:
    source = function(value, handler, where)
    found = introduced(f"{HEAD}def f(flag, a):\n    return None\n".encode(), source.encode())
    assert found is not None, source
    namespace: dict[str, object] = {}
    exec(compile(HEAD, "head.py", "exec"), namespace)
    flip, odd = namespace["Flip"], namespace["Odd"]
    values = (lambda: True, lambda: False, lambda: flip(False), lambda: flip(True), lambda: odd())  # type: ignore[operator]
    raises = f_raises_name_error(source, [(v(), a) for v in values for a in (0, 1)], (TypeError,))
    assert bool(found) == raises, (source, [p.describe() for p in found])

"""A parameter the body binds again, first of all, to a value whose truth cannot change
(`flag = bool(flag)`) is tested alike on every later test of it (issue 21, names49 item 3).

Refused though correct before: no parameter was fixed (names47: an annotation is not enforced), so
`flag = bool(flag)` / `if flag: v = 1` / `other()` / `if flag: return v` was refused though the
rebinding leaves flag a bool on every path.

Generated: the rebinding (`bool(flag)`, `not flag`, `flag is True`, `isinstance(flag, bool)`; the twin
`flag or False`, which may keep the caller's object) x where it is (the first statement, after other
code and a call; the twins: after the tests of flag and a read, on one path only). The oracle runs f
with True, False and objects whose truth flips at each test (false first, true first), for a = 0 and
1: the names step refuses exactly where one raises NameError."""

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


def other(x=None):
    return None


"""
VALUES = {
    "bool(flag)": "bool(flag)",
    "not flag": "not flag",
    "flag is True": "flag is True",
    "isinstance(flag, bool)": "isinstance(flag, bool)",
    # twin
    "flag or False": "flag or False",
}
WHERE = {
    "first": "flag = {value}\n{tests}",
    "after other code and a call": "w = 0\nother(w)\nflag = {value}\n{tests}",
    # twins
    "after the tests and a read": "{tests}flag = {value}\n",
    "on one path only": "if a:\n    flag = {value}\n{tests}",
}
TESTS = "if flag:\n    v = 1\nother()\nif flag:\n    r = v\n"


def function(value: str, where: str) -> str:
    body = WHERE[where].format(value=VALUES[value], tests=TESTS)
    return HEAD + "def f(flag, a):\n" + indent(body + "return None\n")


CASES = sample(list(itertools.product(VALUES, WHERE)))


@pytest.mark.parametrize(("value", "where"), CASES, ids=["-".join(c) for c in CASES])
def test_a_parameter_bound_again_to_a_fixed_truth_is_tested_alike(value: str, where: str) -> None:
    source = function(value, where)
    found = introduced(f"{HEAD}def f(flag, a):\n    return None\n".encode(), source.encode())
    assert found is not None, source
    namespace: dict[str, object] = {}
    exec(compile(HEAD, "head.py", "exec"), namespace)
    flip = namespace["Flip"]
    calls = [(v(), a) for v in (lambda: True, lambda: False, lambda: flip(False), lambda: flip(True)) for a in (0, 1)]  # type: ignore[operator]
    raises = f_raises_name_error(source, calls)
    assert bool(found) == raises, (source, [p.describe() for p in found])

"""A parameter the body binds again, first of all, to a value whose truth cannot change
(`flag = bool(flag)`) is tested alike on every later test of it (issue 21, names49 item 3).

Refused though correct before: no parameter was fixed (names47: an annotation is not enforced), so
`flag = bool(flag)` / `if flag: v = 1` / `other()` / `if flag: return v` was refused though the
rebinding leaves flag a bool on every path.

Generated: the rebinding (`bool(flag)`, `not flag`, `flag is True`, `isinstance(flag, bool)`; the twin
`flag or False`, which may keep the caller's object) x where it is (the first statement, after other
code and a call; the twins: after the tests of flag and a read, on one path only) x how the module
rebinds the builtin the rebinding calls at import (none; `global bool` in another def, `globals()[...]`,
`vars()[...]` at module level: att50 #3, accepted though `bool` was no longer the builtin). The oracle runs f
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
CALLED = {"bool(flag)": ("bool", "lambda x: x"), "isinstance(flag, bool)": ("isinstance", "lambda x, y: x")}
REBIND = {  # run at import: the builtin the rebinding calls is the module's own from then on
    "none": "",
    "global in another def": "def setup():\n    global {fn}\n    {fn} = {impl}\n\n\nsetup()\n\n\n",
    "globals()": "def setup():\n    globals()['{fn}'] = {impl}\n\n\nsetup()\n\n\n",
    "vars()": "vars()['{fn}'] = {impl}\n\n\n",  # at module level: its globals
}


def prefix(value: str, rebind: str) -> str:
    fn, impl = CALLED.get(value, ("bool", "lambda x: x"))
    return HEAD + REBIND[rebind].format(fn=fn, impl=impl)


def function(value: str, where: str, rebind: str = "none") -> str:
    body = WHERE[where].format(value=VALUES[value], tests=TESTS)
    return prefix(value, rebind) + "def f(flag, a):\n" + indent(body + "return None\n")


CASES = sample(list(itertools.product(VALUES, WHERE, REBIND)))


@pytest.mark.parametrize(("value", "where", "rebind"), CASES, ids=["-".join(c) for c in CASES])
def test_a_parameter_bound_again_to_a_fixed_truth_is_tested_alike(value: str, where: str, rebind: str) -> None:
    source = function(value, where, rebind)
    found = introduced(f"{prefix(value, rebind)}def f(flag, a):\n    return None\n".encode(), source.encode())
    assert found is not None, source
    namespace: dict[str, object] = {}
    exec(compile(HEAD, "head.py", "exec"), namespace)
    flip = namespace["Flip"]
    calls = [(v(), a) for v in (lambda: True, lambda: False, lambda: flip(False), lambda: flip(True)) for a in (0, 1)]  # type: ignore[operator]
    raises = f_raises_name_error(source, calls)
    assert bool(found) == raises, (source, [p.describe() for p in found])

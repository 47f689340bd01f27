"""A path fact dies at anything that can change what it states (att40b #2): `if self.x: v = 1` /
`self.flip()` / `if self.x: return v` was applied, and raised UnboundLocalError where flip made x
true. A call (`self.flip()`, `setattr(self, ...)`, `a.append(1)`, `a.pop()`), a store through an
alias (`o = self; o.x = ...`, `b = a; b += [1]`), a store through a subscript (`a[:] = ...`) or a
call inside the test itself kills what the path knew of attribute paths and of a local's truth;
what `is None` tells of a local stays (no call rebinds it), so those stay accepted, a call between
or not.

Generated: the subject (an attribute path, a parameter) x the test (`S`, `not S`, `S is None`,
`S is not None`) x the change between (what can change the subject's value, or none). The oracle
runs the method over every value of x and a: the names step refuses exactly where one raises
NameError (UnboundLocalError is one). Left out by design: a call that changes nothing the test
reads between two tests of an attribute path or a local's truth (`print(0)`): the walk does not
follow what a call stores, so it is taken to change it (a refusal of correct code, the price of
att40b #2); so is a change that can only move the value the way the second test does not take
(`b = a; b += [1]` before `if not a:`)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample

XS = (0, 1, None, [], [1])
AS = (None, [], [1])
TESTS = {"truth": "{s}", "not": "not {s}", "is-none": "{s} is None", "not-none": "{s} is not None"}
CHANGES = {  # subject -> change -> the statements between the two tests
    "self.x": {
        "method": "self.flip()\n",
        "setattr": 'setattr(self, "x", None if self.x else 1)\n',
        "alias-store": "o = self\no.x = None if self.x else 1\n",
        "in-test": "",  # the second test calls flip before it reads the subject
        "nothing": "",
    },
    "a": {
        "calls": "a.clear() if a else a.append(1)\n",
        "pop-or-append": "if a:\n    a.pop()\nelse:\n    a.append(1)\n",
        "alias-iadd": "b = a\nb += [1]\n",  # only ever makes it true: not with a `not a` test (module doc)
        "subscript": "a[:] = [] if a else [1]\n",
        "call-between": "print(0)\n",  # kept: only with an `is None` test, which no call changes
        "nothing": "",
    },
}
CLASS = (
    "class C:\n    def __init__(self, x):\n        self.x = x\n\n    def flip(self):\n"
    "        self.x = None if self.x else 1\n\n    def m(self, a):\n"
)


def method(subject: str, test: str, change: str, read: str) -> str:
    cond = TESTS[test].format(s=subject)
    second = f"(self.flip() or True) and ({cond})" if change == "in-test" else cond
    body = f"if {cond}:\n    v = 1\n{CHANGES[subject][change]}if {second}:\n    return {read}\nreturn -1\n"
    return CLASS + indent(body, "        ")


def runs_unbound(source: str) -> bool:
    namespace: dict[str, object] = {"print": lambda *a: None}
    exec(compile(source, "generated.py", "exec"), namespace)
    for x, a in itertools.product(XS, AS):
        try:
            namespace["C"](list(x) if isinstance(x, list) else x).m(list(a) if isinstance(a, list) else a)  # type: ignore[operator]
        except NameError:
            return True
        except (AttributeError, TypeError):
            continue
    return False


CASES = sample(
    [
        (s, t, ch)
        for s in CHANGES
        for t in TESTS
        for ch in CHANGES[s]
        if (ch != "call-between" or t.endswith("none")) and (ch, t) != ("alias-iadd", "not")
    ]
)


@pytest.mark.parametrize(("subject", "test", "change"), CASES, ids=["-".join(c) for c in CASES])
def test_a_fact_is_refused_as_evidence_exactly_where_something_between_may_change_it(
    subject: str, test: str, change: str
) -> None:
    after = method(subject, test, change, "v")
    before = method(subject, test, change, "-1")
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == runs_unbound(after), (after, [p.describe() for p in found])

"""A `match` case's guard that binds and comes out false (att41 #4): `case 1 if (v := b): pass` /
`case _: pass` / `return v if a == 1 else -1` was refused, though v is bound wherever a is 1: the
guard ran (and bound v) whether it came out true, into the case, or false, on to the later cases.

Generated: the guard (a walrus alone, compared, first or second operand of an `and`, an `or`;
the pattern's capture read in the guard) x the later cases (a catch-all, one that binds too, a value
that may leave none matched) x the read after the match (plain, under the case's condition, under
the other one). The oracle runs each over every (a, b): an accepted variant never raises NameError
(UnboundLocalError is one); the read under the case's own condition, of a name the guard binds
whenever it runs, and a read after every case binds it, are accepted."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

ARGS = [(a, b) for a in (1, 2, 3) for b in (0, 1, 2)]
GUARDS = {  # the guard, and whether it binds v wherever it runs
    "walrus": ("(v := b)", True),
    "compared": "(v := b) > 0",
    "first-and": "(v := b) and a",
    "second-and": "b and (v := b)",
    "or": "b or (v := a)",
}
LATER = {
    "catch-all": "case _:\n    pass\n",
    "binding": "case _:\n    v = 0\n",
    "value": "case 2:\n    pass\n",
}
READS = {
    "plain": "return v\n",
    "same-case": "return v if a == 1 else -1\n",
    "if-same-case": "if a == 1:\n    return v\nreturn -1\n",
    "other-case": "return v if a == 2 else -1\n",
}
WHOLE = ("walrus", "compared", "first-and")  # guards that bind v wherever they run


def function(guard: str, later: str, read: str) -> str:
    test = GUARDS[guard] if isinstance(GUARDS[guard], str) else GUARDS[guard][0]  # type: ignore[index]
    cases = f"case 1 if {test}:\n    pass\n{LATER[later]}"
    body = f"match a:\n{indent(cases, '    ')}{READS[read]}"
    return "def f(a, b):\n" + indent(body, "    ")


def raises_name_error(source: str) -> bool:
    return f_raises_name_error(source, ARGS)


CASES = sample(list(itertools.product(GUARDS, LATER, READS)))


@pytest.mark.parametrize(("guard", "later", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_guard_that_binds_binds_for_the_later_cases_where_its_pattern_matched(
    guard: str, later: str, read: str
) -> None:
    after = function(guard, later, read)
    found = introduced(b"def f(a, b):\n    return 0\n", after.encode())
    assert found is not None, after
    accepted = not found
    assert not (accepted and raises_name_error(after)), after  # never wrong code
    if guard in WHOLE and (read in ("same-case", "if-same-case") or later == "binding"):
        assert accepted, (after, [p.describe() for p in found])

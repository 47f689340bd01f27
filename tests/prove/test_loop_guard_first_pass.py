"""A read in a loop's body of a name bound only further down the loop, under a test false on the
first pass (att41 #4): `first = True` / `for x in a:` / `if not first: r = r + prev` / `prev = x` /
`first = False` was refused ("not assigned before the loop's first pass", UnboundLocalError), and
so was `for i, x in enumerate(a):` / `if i: r = r + prev` / `prev = x`. Neither ever reads `prev`
unbound: the flag is false, and the index non-zero, only once a pass has bound it.

Generated: the guard (a flag in three spellings; enumerate's index in three tests and starts; an
index that is not enumerate's) x the order of the binding and the flag's flip x what else the body
does (nothing, a `continue` at its top, a `del` of the name, the flag set back) . The oracle runs
each over every list in XS: an accepted variant never raises NameError (UnboundLocalError is one);
the flag flipped before the binding, set back inside the loop, an index that is not enumerate's (or
one that starts at 1), and a `del` stay refused; the two shapes above and their sound spellings are
accepted."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

XS = ([], [1], [2], [3, 1], [2, 3], [1, 2, 3], [3, 2, 1], [0, 2], [2, 2])
# name: (before the loop, the loop's target, its iterable, the read's test, the flag's flip, the flag's reset)
GUARDS = {
    "flag-not": ("first = True\n", "x", "a", "not first", "first = False\n", "first = True\n"),
    "flag-seen": ("seen = False\n", "x", "a", "seen", "seen = True\n", "seen = False\n"),
    "flag-eq": ("state = 0\n", "x", "a", "state == 1", "state = 1\n", "state = 0\n"),
    "enumerate": ("", "i, x", "enumerate(a)", "i", "", ""),
    "enumerate-gt": ("", "i, x", "enumerate(a)", "i > 0", "", ""),
    "enumerate-start0": ("", "i, x", "enumerate(a, start=0)", "i != 0", "", ""),
    "enumerate-start1": ("", "i, x", "enumerate(a, 1)", "i", "", ""),
    "zip-index": ("", "i, x", "zip(range(len(a)), a)", "i", "", ""),
}
ORDERS = {  # the binding and the flip (none for an index)
    "bind-flip": "prev = x\n{flip}",
    "bind-condflip": "prev = x\nif x > 1:\n{flip_in}",
    "flip-bind": "{flip}prev = x\n",
    "condbind-flip": "if x > 1:\n    prev = x\n{flip}",
}
EXTRAS = {"none": "", "continue": "if x == 2:\n    continue\n", "del": "del prev\n", "reset": "{reset}"}


def function(guard: str, order: str, extra: str) -> str:
    init, target, iterable, test, flip, reset = GUARDS[guard]
    top = EXTRAS[extra] if extra == "continue" else ""
    end = EXTRAS[extra].format(reset=reset) if extra in ("del", "reset") else ""
    seq = ORDERS[order].format(flip=flip, flip_in=indent(flip or "pass\n", "    "))
    body = f"{top}if {test}:\n    r = r + prev\n{seq}{end}"
    return "def f(a):\n" + indent(f"r = 0\n{init}for {target} in {iterable}:\n{indent(body, '    ')}return r\n", "    ")


def raises_name_error(source: str) -> bool:
    return f_raises_name_error(source, [(list(xs),) for xs in XS])


def expected_accepted(guard: str, order: str, extra: str) -> bool | None:
    """True: must be accepted; False: must stay refused; None: either, as long as it is sound."""
    index = not guard.startswith("flag")
    if guard in ("zip-index", "enumerate-start1") or extra in ("del", "reset") or order in ("flip-bind",):
        return False
    if order == "condbind-flip":
        return False  # unsound for a flag; an index reads it on a pass after one that bound nothing
    if index:
        return extra == "none"  # a `continue` on the first pass leaves it unbound for the second
    return True


def _valid(guard: str, order: str, extra: str) -> bool:
    index = not guard.startswith("flag")
    return not (index and (order not in ("bind-flip", "condbind-flip") or extra == "reset"))


CASES = sample([c for c in itertools.product(GUARDS, ORDERS, EXTRAS) if _valid(*c)])


@pytest.mark.parametrize(("guard", "order", "extra"), CASES, ids=["-".join(c) for c in CASES])
def test_a_read_guarded_false_on_the_first_pass_is_accepted_only_where_no_pass_reads_it_unbound(
    guard: str, order: str, extra: str
) -> None:
    after = function(guard, order, extra)
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    accepted, unsound = not found, raises_name_error(after)
    assert not (accepted and unsound), after  # never wrong code
    want = expected_accepted(guard, order, extra)
    if want is not None:
        assert accepted == want, (after, [p.describe() for p in found])

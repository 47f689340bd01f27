"""A read after a call, guarded by a test of a local the call cannot change (issue 21 #1): `flag = not a`
/ `if flag: x = 1` / `g()` / `if flag: return x` was refused, because any call took away what the path
knew of a local's truth. A call cannot rebind a plain local (only a nested function declaring it
`nonlocal` can), but it can change the object a local holds (`flag = a` with a list that g appends to):
the fact survives where every value the local is bound to is immutable (fixed_values).

Generated: how the flag gets its value (`not a`, `a is None`, `len(a)`, `isinstance(...)`, a bool set
under a branch; and the unsafe twins: a parameter, one annotated `bool` or `int | None` (Python does
not enforce an annotation: called with a list, names47), an alias of a parameter, of a module list, a
list made here) x the call between (none, `g()`, `g(flag)`, `g(a)`,
a nested function that flips the flag through `nonlocal`) x how x is read (`if flag: return x`, `x if
flag else 0`, `flag and x`). The oracle runs f over its arguments, with g appending to every list it
is given and to the module's list: the names step refuses exactly where one call raises NameError, and
where a call meets a flag of unknown type (the walk does not follow what the call changes)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

HEAD = """SEEN = []


def g(*args):
    SEEN.append(1)
    for o in args:
        if isinstance(o, list):
            o.append(1)


"""
ANY = (0, 1, None, [], [0], "", "x")
GUARDS = {  # (parameters, how flag is bound, the arguments f is called with)
    "parameter": ("flag, a=0", "", ANY),
    "parameter bool": ("flag: bool, a=0", "", ANY),  # Python does not enforce it (names47)
    "parameter int or None": ("flag: 'int | None', a=0", "", ANY),
    "not": ("a", "flag = not a\n", ANY),
    "is None": ("a", "flag = a is None\n", ANY),
    "len": ("a", "flag = len(a) > 0\n", ([], [0], "", "x")),
    "isinstance": ("a", "flag = isinstance(a, list) and not a\n", ANY),
    "set under a branch": ("a", "flag = False\nif a:\n    flag = True\n", ANY),
    # unsafe twins: the object flag holds can change
    "alias of a parameter": ("a", "flag = a\n", ANY),
    "alias of a module list": ("a", "flag = SEEN\n", ANY),
    "list made here": ("a", "flag = []\nif a:\n    flag = [a]\n", ANY),
    "or of a parameter": ("a", "flag = a or False\n", ANY),
}
UNKNOWN = (
    "parameter",
    "parameter bool",
    "parameter int or None",
    "alias of a parameter",
    "alias of a module list",
    "list made here",
    "or of a parameter",
)
CALLS = {
    "none": "",
    "g()": "g()\n",
    "g(flag)": "g(flag)\n",
    "g(a)": "g(a)\n",
    "nonlocal": "h()\n",
}
FLIP = "def h():\n    nonlocal flag\n    flag = not flag\n"
READS = {
    "if": "if flag:\n    return x\nreturn 0\n",
    "conditional": "return x if flag else 0\n",
    "and": "return flag and x\n",
}


def function(guard: str, call: str, read: str) -> str:
    params, setup, _ = GUARDS[guard]
    flip = FLIP if call == "nonlocal" else ""
    body = f"{setup}{flip}if flag:\n    x = 1\n{CALLS[call]}{READS[read]}"
    return f"{HEAD}def f({params}):\n" + indent(body, "    ")


CASES = sample(list(itertools.product(GUARDS, CALLS, READS)))


@pytest.mark.parametrize(("guard", "call", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_read_guarded_by_a_local_no_call_changes_is_accepted(guard: str, call: str, read: str) -> None:
    params, _, args = GUARDS[guard]
    after = function(guard, call, read)
    found = introduced(f"{HEAD}def f({params}):\n    return 0\n".encode(), after.encode())
    assert found is not None, after
    raises = f_raises_name_error(after, [(v,) for v in args], (TypeError,))
    # a call may change what an object of unknown type holds: refused, whether this one does or not
    assert bool(found) == (raises or (guard in UNKNOWN and call != "none")), (after, [p.describe() for p in found])

"""A name bound on some paths of a branch nested in another (found with the match guard family of
att41 #4): `if a == 1:` / `if b: v = b` / `if a == 1: return v` was applied, and raised
UnboundLocalError where b was false: the nested if's claim (v unbound where b is false) was not
carried past the outer join, and a read in a later branch took it for a sibling's. Nor was a claim
kept where the other branch claimed the name too and then bound it (`else:` / `if c: v = 1` /
`v = 2`).

Generated: what each branch of `if a:` / `else:` does with v (nothing, binds it, binds it under
`if b:`, under `if b:` then on every path, under `if b:` or returns, through a walrus under an `and`)
x the read after it (plain, under `a`, under `a and b`, under `not a`). The oracle calls it with
every (a, b): an accepted variant never raises NameError (UnboundLocalError is one); one where every
path binds v before the read is accepted."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

ARGS = [(a, b) for a in (0, 1) for b in (0, 1)]
BRANCHES = {  # the branch's code, and whether it binds v on every path that goes on
    "none": ("pass\n", False),
    "bind": ("v = 1\n", True),
    "cond-bind": ("if b:\n    v = 1\n", False),
    "cond-bind-then-bind": ("if b:\n    v = 1\nv = 2\n", True),
    "cond-bind-or-return": ("if b:\n    v = 1\nelse:\n    return -1\n", True),
    "walrus-and": ("if b and (v := b):\n    pass\n", False),
}
READS = {
    "plain": "return v\n",
    "under-a": "if a:\n    return v\nreturn -1\n",
    "under-a-and-b": "if a and b:\n    return v\nreturn -1\n",
    "under-not-a": "if not a:\n    return v\nreturn -1\n",
}


def function(then: str, other: str, read: str) -> str:
    body = f"if a:\n{indent(BRANCHES[then][0], '    ')}else:\n{indent(BRANCHES[other][0], '    ')}{READS[read]}"
    return "def f(a, b):\n" + indent(body, "    ")


def raises_name_error(source: str) -> bool:
    return f_raises_name_error(source, ARGS)


CASES = sample(list(itertools.product(BRANCHES, BRANCHES, READS)))


@pytest.mark.parametrize(("then", "other", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_claim_made_in_a_nested_branch_holds_past_the_outer_join(then: str, other: str, read: str) -> None:
    after = function(then, other, read)
    found = introduced(b"def f(a, b):\n    return 0\n", after.encode())
    assert found is not None, after
    accepted = not found
    assert not (accepted and raises_name_error(after)), after  # never wrong code
    if BRANCHES[then][1] and BRANCHES[other][1]:
        assert accepted, (after, [p.describe() for p in found])


ORDERED = {  # the read's test after `if a >= 1:` / `if a >= OUTER: v = 1` (nothing in the else), and sound?
    ">= 2": True,
    "> 1": True,
    "== 3": True,
    ">= 1": False,
    "> 0": False,
    "!= 0": False,
}
ORDERED_CASES = sample(list(itertools.product(ORDERED, ("2", "1 + 1"))))


@pytest.mark.parametrize(("read", "inner"), ORDERED_CASES, ids=["-".join(c) for c in ORDERED_CASES])
def test_a_claim_carried_out_keeps_what_every_unbound_path_tells(read: str, inner: str) -> None:
    """`if a >= 1:` / `if a >= 2: v = 1` / `if a >= 2: return v`: the paths that leave v unbound tell
    `a >= 2` false (one directly, one by `a >= 1` false), so the read under `a >= 2` is accepted; a
    compared value that is not a constant tells nothing (`1 + 1`)."""
    body = f"if a >= 1:\n    x = 1\n    if a >= {inner}:\n        v = 1\nif a {read}:\n    return v\nreturn -1\n"
    after = "def f(a):\n" + indent(body, "    ")
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    namespace: dict[str, object] = {}
    exec(compile(after, "generated.py", "exec"), namespace)
    unsound = False
    for a in range(-1, 5):
        try:
            namespace["f"](a)  # type: ignore[operator]
        except NameError:
            unsound = True
    assert not (not found and unsound), after
    assert (not found) == (ORDERED[read] and inner == "2"), (after, [p.describe() for p in found])

"""A call or a store through an object inside a comprehension kills the path's facts and claims
(att41 #1): `if self.x: v = 1` / `[setattr(self, "x", 1) for _ in [0]]` / `if self.x: return v`
was applied, and raised UnboundLocalError where x was false. The comprehension's parts run in its
own scope, so what they changed reached the path's facts but not the claims made on them.

Generated: the comprehension (list, set, dict, a generator consumed by list()) x where the change
sits (the element, an `if`, a later `for`'s iterable, the target itself) x the change (a method
call, setattr, a call through a local alias, an attribute store as the target; none, which stays
accepted). The oracle runs
the method over every x: the names step refuses exactly where one raises NameError."""

from __future__ import annotations

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample

XS = (0, 1, None)
KINDS = {"list": "[{e} {g}]", "set": "{{{e} {g}}}", "dict": "{{0: {e} {g}}}", "genexp": "list({e} {g})"}
CALLS = {"method": "self.flip()", "setattr": 'setattr(self, "x", None if self.x else 1)', "alias": "fl()"}
CLASS = (
    "class C:\n    def __init__(self, x):\n        self.x = x\n\n    def flip(self):\n"
    "        self.x = None if self.x else 1\n\n    def m(self):\n"
)


def comprehension(kind: str, where: str, change: str) -> str:
    call = CALLS.get(change, "0")
    elt, gen = "0", "for _ in [0]"
    if where == "element":
        elt = call
    elif where == "if":
        gen = f"for _ in [0] if {call} is None or True"
    elif where == "later-for":
        gen = f"for _ in [0] for _ in [{call}]"
    else:  # target: the store is the change
        gen = "for self.x in [None if self.x else 1]"
    return KINDS[kind].format(e=elt, g=gen)


def method(kind: str, where: str, change: str, read: str) -> str:
    alias = "fl = self.flip\n" if change == "alias" else ""
    comp = comprehension(kind, where, change)
    body = f"{alias}if self.x:\n    v = 1\nb = {comp}\nif self.x:\n    return {read}\nreturn -1\n"
    return CLASS + indent(body, "        ")


def runs_unbound(source: str) -> bool:
    namespace: dict[str, object] = {}
    exec(compile(source, "generated.py", "exec"), namespace)
    for x in XS:
        try:
            namespace["C"](x).m()  # type: ignore[operator]
        except NameError:
            return True
    return False


CASES = sample(
    [(k, w, ch) for k in KINDS for w in ("element", "if", "later-for") for ch in CALLS]
    + [(k, "target", "store") for k in KINDS]
    + [(k, "element", "nothing") for k in ("list", "set", "dict")]  # no change: still accepted
)


@pytest.mark.parametrize(("kind", "where", "change"), CASES, ids=["-".join(c) for c in CASES])
def test_a_change_inside_a_comprehension_kills_the_claims_made_on_what_it_changed(
    kind: str, where: str, change: str
) -> None:
    after = method(kind, where, change, "v")
    before = method(kind, where, change, "-1")
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == runs_unbound(after), (after, [p.describe() for p in found])

"""A function kept in a `try` body, seen by its handlers (issue 21, names53 #4): `try: boom(a); keep(g)` /
`except ValueError: del v; return 0` was refused (g "kept" on the handler's path, then run at its `return`
with v deleted), though a handler runs only where something raised, and nothing raised once g was kept:
`keep(g)` of a module function that cannot raise, `BOX.cb = g` on a plain class's instance. Now a
handler's paths leave out what the body (and its `else`, whose raise no handler catches) kept after the
body's last statement that may raise once it is kept; one that may raise after it kept g (`keep_then(g)`,
a store on an object whose `__setattr__` may raise) leaves g kept there, as Python runs it.

Generated: how g is kept x where in the try (after a call that may raise, before it, alone, in the `else`)
x what the handler does (passes, returns, re-raises, deletes v and returns) x what the paths after do (del
v and return; v bound again). The oracle runs f for a = 0 and 1, the twins raising after they kept g and
not, then what f kept: the names step refuses
exactly where that raises NameError."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import KEEPING, raises_anywhere

HEAD = (
    "KEPT = []\n\n\n"
    + KEEPING
    + """def boom(a):
    if a:
        raise ValueError('x')


def keep_then(fn, a):
    KEPT.append(fn)
    boom(T[0])


class Raising:
    def __setattr__(self, k, val):
        object.__setattr__(self, k, val)
        boom(T[0])


T = [False]  # whether the twins raise once they kept g: call runs f both ways
RB = Raising()


def call(a):
    for t in (False, True):
        T[0] = t
        try:
            f(a)
        except ValueError:
            pass
        run_kept()
        RB.__dict__.pop("cb", lambda: None)()


"""
)
KEEPS = {
    "by a call that cannot raise": "keep(g)\n",
    "on a plain class's instance": "BOX.cb = g\n",
    "appended to a module list": "KEPT.append(g)\n",
    "by a call that may raise after (twin)": "keep_then(g, a)\n",
    "on an object whose __setattr__ may raise after (twin)": "RB.cb = g\n",
}
WHERE = {
    "after a call that may raise": "try:\n    boom(a)\n{k}except ValueError:\n{h}",
    "before a call that may raise": "try:\n{k}    boom(a)\nexcept ValueError:\n{h}",
    "alone": "try:\n{k}except ValueError:\n{h}",
    "in the else": "try:\n    boom(a)\nexcept ValueError:\n{h}else:\n{k}",
}
HANDLERS = {
    "passes": "    pass\n",
    "returns": "    return 0\n",
    "re-raises": "    raise\n",
    "deletes v and returns": "    del v\n    return 0\n",
}
AFTER = {"del v and return": "del v\nreturn 0\n", "v bound again": "v = 2\nreturn 0\n"}


def function(keep: str, where: str, handler: str, after: str) -> str:
    body = "v = 1\n\n\ndef g():\n    return v\n\n\n" + WHERE[where].format(k=indent(KEEPS[keep]), h=HANDLERS[handler])
    return HEAD + "def f(a):\n" + indent(body + AFTER[after])


CASES = sample(list(itertools.product(KEEPS, WHERE, HANDLERS, AFTER)))


@pytest.mark.parametrize(("keep", "where", "handler", "after"), CASES, ids=["-".join(c) for c in CASES])
def test_a_handler_sees_what_was_kept_before_a_raise_only(keep: str, where: str, handler: str, after: str) -> None:
    source = function(keep, where, handler, after)
    found = introduced(f"{HEAD}def f(a):\n    return None\n".encode(), source.encode())
    assert found is not None, source
    raises = raises_anywhere(source, lambda ns, a: ns["call"](a))  # type: ignore[operator]
    assert bool(found) == raises, (source, [p.describe() for p in found])

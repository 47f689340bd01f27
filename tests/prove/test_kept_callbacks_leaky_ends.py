"""A function kept in a branch that returns, inside a loop, a `try` body or a `with` whose manager may
swallow (issue 21, names51 over-refusals): `for _ in xs: if a: KEPT.append(g); return` was judged as if
g were kept on the paths after the loop too (a loop's pass, a try's body were "leaky" for every end),
so `del v` / `other()` there was refused, though no path that kept g gets there. Now what goes on
through such a part depends on how the branch ends: a `break`/`continue` goes on through a loop's pass,
a `raise` into a try's handler or out of a swallowing `with`, and so does anything that may raise
after g was kept (`keep_then(g)` may keep it and raise; `return other()`); a `return` goes on through none.

Generated: how g is kept (appended to a module list, by a call of a module function that cannot raise,
on an attribute of a plain class's instance: cannot raise after it kept g, names53 #4; by a call that
may raise after, on an imported object: may) x how the branch ends (`return None`, `return other()`,
`raise`, `break` in a loop; the twin: it falls through) x where (a loop, a try body, a `with suppress`,
a loop in a try body, no such part) x what the paths after do (`del v`, a call, v bound again; `del v` on
a path, a call). The oracle runs f
for a = 0 and 1, then what f kept: the names step refuses where that raises NameError, and where an
end goes on (then any later call may run g, as kept_callbacks says), and nowhere else."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import KEEPING, raises_anywhere

HEAD = (
    "import contextlib\n\nKEPT = []\n\n\n"
    + KEEPING
    + """import types

NS = types.SimpleNamespace()


def keep_then(fn):
    KEPT.append(fn)
    return other()


def call(a):
    try:
        f(a)
    except ValueError:
        pass
    run_kept()


"""
)
KEEPS = {  # how g is kept, whether that statement may raise once g is kept
    "appended to a module list": ("KEPT.append(g)\n", False),
    # names53 #4, as Python runs them: keep's body cannot raise, a store on a plain class's instance
    # lands in its dict or raises before (they were counted as raising after they kept g)
    "kept by a call": ("keep(g)\n", False),
    "stored on an attribute": ("BOX.cb = g\n", False),
    "kept by a call that may raise after": ("keep_then(g)\n", True),
    "stored on an imported object": ("NS.cb = g\n", True),
}
ENDS = {
    "returns": "return None\n",
    "returns a call's value": "return other()\n",
    "raises": "raise ValueError('x')\n",
    "breaks": "break\n",
    "falls through": "",  # twin: kept on the paths on
}
WHERE = {
    "in a loop": "for _ in [0]:\n    if a:\n{b8}",
    "in a try body": "try:\n    if a:\n{b8}except ValueError:\n    pass\n",
    "in a with that may swallow": "with contextlib.suppress(ValueError):\n    if a:\n{b8}",
    "in a loop in a try body": "try:\n    for _ in [0]:\n        if a:\n{b12}except ValueError:\n    pass\n",
    "in no such part": "if a:\n{b4}",
}
AFTER = {
    "del v, a call, bound again": "del v\nother()\nv = 2\n",
    "del v on a path, a call": "if other() is None:\n    del v\nother()\n",
}


def goes_on(keep: str, end: str, where: str) -> bool:
    """Does a path that kept g go on past where (then any later call may run g)?"""
    looped = "loop" in where
    caught = "try" in where or "with" in where
    raising = end in ("raises", "returns a call's value") or KEEPS[keep][1]
    return end == "falls through" or (looped and end == "breaks") or (caught and raising)


def function(keep: str, end: str, where: str, after: str) -> str:
    branch = KEEPS[keep][0] + ENDS[end]
    shape = WHERE[where].format(b4=indent(branch), b8=indent(branch, " " * 8), b12=indent(branch, " " * 12))
    body = "def g():\n    return v\n\n\nv = 1\n" + shape + AFTER[after] + "return None\n"
    return HEAD + "def f(a):\n" + indent(body)


CASES = sample([c for c in itertools.product(KEEPS, ENDS, WHERE, AFTER) if c[1] != "breaks" or "loop" in c[2]])


@pytest.mark.parametrize(("keep", "end", "where", "after"), CASES, ids=["-".join(c) for c in CASES])
def test_a_function_kept_where_the_path_ends_inside_a_loop_try_or_with(
    keep: str, end: str, where: str, after: str
) -> None:
    source = function(keep, end, where, after)
    found = introduced(f"{HEAD}def f(a):\n    return None\n".encode(), source.encode())
    assert found is not None, source
    raises = raises_anywhere(source, lambda ns, a: ns["call"](a))  # type: ignore[operator]
    assert bool(found) == (raises or goes_on(keep, end, where)), (source, [p.describe() for p in found])

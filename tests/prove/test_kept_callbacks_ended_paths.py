"""A function kept in a branch that ends (`return`, `raise`) is kept on that branch's paths only
(issue 21, names49 item 1).

Refused though correct before: `if a: cbs.append(g); return` counted g as kept on the paths after the
`if` too, so a `del v` there (or a call after one) was judged a run of g with v gone.

Generated: how g is kept (a Thread, a partial, a list display, appended to a list, stored into a dict,
added to a set, a tuple passed on to a function that runs it, a list grown by `+=`, a set by `|=`; kept
by a call, stored on an attribute: those run after f is done) x how the branch ends (`return`, `raise`
of a made error, `raise` of one made before; the twins: it falls through, or deletes v before it
returns) x where the branch is (the if's own, one nested in it) x what the paths after it do (`del v`, a
call, v bound again; `del v` on a path, then a call). The oracle runs f for a = 0 and 1, then what f
kept: the names step refuses exactly where one raises NameError, and in the twins, where g stays kept on
the paths on (any later call may run it, as kept_callbacks says)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import KEEPING, KEPT_WAYS, raises_anywhere

HEAD = (
    """import functools
import threading

KEPT = []
ERROR = ValueError("made before")


"""
    + KEEPING
    + """def call(a):
    try:
        f(a)
    except ValueError:
        pass
    run_kept()


"""
)
KEEPS = {  # how g is kept, how f runs it
    **KEPT_WAYS,
    # run once f is done (run_kept)
    "kept by a call": ("k = keep(g)\n", ""),
    "stored on an attribute": ("k = g\nBOX.cb = k\n", ""),
}
ANYWHERE = ("kept by a call", "stored on an attribute")
ENDS = {
    "returns": "return None\n",
    "raises a made error": "raise ValueError('x')\n",
    "raises one made before": "raise ERROR\n",
    # twins
    "falls through": "",
    "deletes v, then returns": "del v\nreturn None\n",
}
RAN = ("falls through", "deletes v, then returns")  # kept on the paths on: any later call may run it
WHERE = {"the if's own": "if a:\n{branch}", "nested in it": "if a:\n    if a > 0:\n{branch_}    other()\n"}
AFTER = {  # v bound at f's end (a closure reading a name f leaves unbound is refused as such: resolve)
    "del v, a call, bound again": "del v\nother()\nv = 2\n",
    "del v on a path, a call": "if other() is None:\n    del v\nother()\n",
}


def function(keep: str, end: str, where: str, after: str) -> str:
    store, run = KEEPS[keep]
    branch = indent(store + run + ENDS[end])
    body = "v = 1\n" + WHERE[where].format(branch=branch, branch_=indent(branch)) + AFTER[after]
    return HEAD + "def f(a):\n" + indent("def g():\n    return v\n" + body + "return None\n")


CASES = sample(list(itertools.product(KEEPS, ENDS, WHERE, AFTER)))


@pytest.mark.parametrize(("keep", "end", "where", "after"), CASES, ids=["-".join(c) for c in CASES])
def test_a_function_kept_where_the_path_ends_is_kept_there_only(keep: str, end: str, where: str, after: str) -> None:
    after_source = function(keep, end, where, after)
    found = introduced(f"{HEAD}def f(a):\n    return None\n".encode(), after_source.encode())
    assert found is not None, after_source
    raises = raises_anywhere(after_source, lambda ns, a: ns["call"](a))  # type: ignore[operator]
    allowed = end in RAN  # where it was kept (or run through a local), a later call may run it
    assert bool(found) == (raises or allowed), (after_source, [p.describe() for p in found])

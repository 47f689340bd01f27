"""An inserted statement is carried by a release only where its value reaches the statements that
use it and where it runs at all (issue 23, att23b F1): any store of the name it sets between it and
its use (a for or with target, a walrus, a read-and-store, an augmented assignment, an assignment in
an if/try/while body, `del`, an `except ... as`, a nested function's `nonlocal`), or a `return` or
`raise` between upstream's anchor and it, makes the release not carry it (radpatch.releases.
carried_order, through carried.carries).

Generated: upstream's spelling of the anchor x statements before the inserted one x statements after
it. The reference is the release's function, run: it carries the change exactly when it returns
what the patched base returns (every variant is built to either change the value or leave it)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from radpatch.releases.carried import carries
from radpatch.releases.compared import Compared
from tests.lib.generated import sample

BEFORE = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
AFTER = "def size(items):\n    buckets = [items]\n    n = len(items)\n    n = min(n, len(buckets))\n    return n\n"
INSERTED = "n = min(n, len(buckets))"
ANCHORS = ["n = len(items)", "n = len(list(items))"]
# between upstream's anchor and the inserted statement
PRE = [
    None,
    "x = n + 1",
    "for _ in (1,):\n    break",
    "while True:\n    break",
    "if n > 1:\n    return n",
    "if n > 1:\n    raise ValueError(n)",
    "try:\n    pass\nfinally:\n    return n",
]
# between the inserted statement and its use (`return n`)
POST = [
    None,
    "x = n",
    "if n > 5:\n    x = 1",
    "def g(m):\n    return m",
    "for n in (len(items),):\n    pass",
    "if items is not None:\n    n = len(list(items))",
    "(n := len(list(items)))",
    "n = max(n, len(list(items)))",
    "n += 2",
    "with contextlib.nullcontext(len(items)) as n:\n    pass",
    "try:\n    n = len(list(items))\nfinally:\n    pass",
    "try:\n    pass\nexcept Exception:\n    pass\nelse:\n    n = len(items)",
    "while n < 3:\n    n += 1",
    "del n\nn = len(items)",
    "n, m = len(items), 0",
    "[n] = [len(items)]",
    "def g():\n    nonlocal n\n    n = len(items)\ng()",
    "try:\n    raise ValueError\nexcept ValueError as n:\n    pass",
    "if n:\n    return len(items)",
    "import os as n",
]


def _release(anchor: str, pre: str | None, post: str | None) -> str:
    lines = ["buckets = [items]", anchor, *([pre] if pre else []), INSERTED, *([post] if post else []), "return n"]
    return "import contextlib\n\n\ndef size(items):\n" + "".join(textwrap.indent(s, "    ") + "\n" for s in lines)


def _runs_like_the_patch(source: str) -> bool:
    out = []
    for src in (source, AFTER):
        space: dict[str, Any] = {}
        exec(compile(src, "release", "exec"), space)  # noqa: S102 - the release's own code decides
        try:
            out.append(space["size"]([1, 2, 3]))
        except Exception as e:  # noqa: BLE001 - a failure is an answer too
            out.append(type(e))
    return bool(out[0] == out[1])


CASES = [(a, pre, post) for a in ANCHORS for pre in PRE for post in POST]


@pytest.mark.parametrize(("anchor", "pre", "post"), sample(CASES))
def test_carried_exactly_where_the_release_runs_like_the_patch(anchor: str, pre: str | None, post: str | None) -> None:
    release = _release(anchor, pre, post)
    assert carries(Compared(BEFORE.encode(), AFTER.encode(), release.encode())) is _runs_like_the_patch(release), (
        release
    )


def test_the_reference_is_not_one_answer() -> None:
    answers = {_runs_like_the_patch(_release(a, pre, post)) for a, pre, post in CASES}
    assert answers == {True, False}

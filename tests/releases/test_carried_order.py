"""An upstream release carries an inserted statement only where it takes effect: after the
statement it follows, in upstream's own spelling of that statement too (radpatch.releases.
carried_order, called by carried.carries), not before it where the anchor overwrites its result.

Generated: upstream's spelling of the anchor, an unrelated statement or none, and every place of
the inserted statement in the scope; the reference says the release carries the change exactly
when the statement comes after the anchor (and before the return)."""

from __future__ import annotations

import pytest

from radpatch.releases.carried import carries
from radpatch.releases.compared import Compared
from tests.lib.generated import sample

BEFORE = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
AFTER = "def size(items):\n    buckets = [items]\n    n = len(items)\n    n = min(n, len(buckets))\n    return n\n"
INSERTED = "n = min(n, len(buckets))"
ANCHORS = ["n = len(items)", "n = len(list(items))", "n = sum(1 for _ in items)"]
EXTRAS = [None, "n = 0", "log = print"]


def _body(anchor: str, extra: str | None) -> list[str]:
    """Upstream's statements of size() before its return."""
    return ["buckets = [items]", *([extra] if extra else []), anchor]


def _release(anchor: str, extra: str | None, at: int) -> tuple[str, bool]:
    """size() with the inserted statement at `at` among upstream's statements; whether it is in effect."""
    body = _body(anchor, extra)
    lines = [*body[:at], INSERTED, *body[at:], "return n"]
    return "def size(items):\n" + "".join(f"    {s}\n" for s in lines), at > body.index(anchor)


CASES = [(a, e, at) for a in ANCHORS for e in EXTRAS for at in range(len(_body(a, e)) + 1)]


@pytest.mark.parametrize(("anchor", "extra", "at"), sample(CASES))
def test_the_inserted_statement_is_carried_only_after_its_anchor(anchor: str, extra: str | None, at: int) -> None:
    release, in_effect = _release(anchor, extra, at)
    assert carries(Compared(BEFORE.encode(), AFTER.encode(), release.encode())) is in_effect, release


def test_the_reported_case_upstreams_statement_before_the_recomputation_is_not_carried() -> None:
    release = (
        "def size(items):\n    buckets = [items]\n    n = 0\n    n = min(n, len(buckets))\n"
        "    n = len(list(items))\n    return n\n"
    )
    assert not carries(Compared(BEFORE.encode(), AFTER.encode(), release.encode()))
    moved = release.replace("    n = min(n, len(buckets))\n", "").replace(
        "    return n", "    n = min(n, len(buckets))\n    return n"
    )
    assert carries(Compared(BEFORE.encode(), AFTER.encode(), moved.encode()))

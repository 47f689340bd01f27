"""Keyword changes at several calls of one scope where one of them cannot be said as set_keyword
(kw37 F2, attack36): `g(1, **kw)` -> `g(1, **kw, x=5)` (a keyword after `**kw`: no `after:` names
that place) is a `replace`, and `g(2)` -> `g(2, x=5)` was a set_keyword with `occurrence: 2`, its
number among the installed file's calls, which apply counts past the matches only earlier
set_keyword steps of the same call took: apply refused the entry, and `import` wrote nothing. Now a
set_keyword whose number apply would count otherwise is not written; its call is replaced, and
the imported entry applies as GNU patch does. Also F4: a keyword added to a call that passes it
through `**{...}` already is not said as set_keyword (apply refuses that), but as GNU patch gives it.

Generated: how many calls x which call the unsayable change is at x which others change x the
kind of change (a keyword added, a value changed); each imported and checked against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch

# kind -> (a call unchanged, the same call as set_keyword changes it, the same call changed otherwise)
KINDS = {
    "added": ("g({n}, **kw)", "g({n}, x=5, **kw)", "g({n}, **kw, x=5)"),
    "value": ("g({n}, x=1)", "g({n}, x=2)", "g(-{n}, x=2)"),
    "spread": ('g({n}, **{{"x": 1}})', 'g({n}, **{{"x": 1}})', 'g({n}, x=5, **{{"x": 1}})'),
}


def case(kind: str, calls: int, wide: int, narrow: tuple[int, ...]) -> tuple[str, str]:
    same, said, other = KINDS[kind]
    rows_b = [f"    r{k} = {same.format(n=k)}\n" for k in range(calls)]
    rows_a = [
        f"    r{k} = {(other if k == wide else said if k in narrow else same).format(n=k)}\n" for k in range(calls)
    ]
    head = "def f(g, kw):\n"
    tail = "    return " + ", ".join(f"r{k}" for k in range(calls)) + "\n"
    return head + "".join(rows_b) + tail, head + "".join(rows_a) + tail


def _cases() -> list[tuple[str, int, int, tuple[int, ...]]]:
    out = []
    for kind, calls in itertools.product(KINDS, (2, 3)):
        for wide in range(calls):
            rest = [k for k in range(calls) if k != wide]
            for size in range(len(rest) + 1):
                out += [(kind, calls, wide, narrow) for narrow in itertools.combinations(rest, size)]
    return out


CASES = sample(_cases())


@pytest.mark.parametrize(("kind", "calls", "wide", "narrow"), CASES)
def test_no_set_keyword_is_numbered_past_a_match_another_step_took(
    kind: str, calls: int, wide: int, narrow: tuple[int, ...]
) -> None:
    """As data: a set_keyword with `occurrence: n` comes only where the calls before its own that an
    earlier step changed were all changed by set_keyword steps like it (apply's count)."""
    before, after = case(kind, calls, wide, narrow)
    steps = rewrites(before, after).steps
    taken_by_other = 0
    for s in steps:
        n = s.get("occurrence")
        if s.op == "set_keyword" and isinstance(n, int):
            assert taken_by_other == 0 or n - 1 < wide, steps
        if s.op == "replace":
            taken_by_other += 1
    if kind == "spread":
        assert all(s.op != "set_keyword" for s in steps), steps


@pytest.mark.wheel
def test_keyword_changes_beside_a_replaced_call_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    """Against the oracle: each case imported, applied by the engine, AST-equal to GNU patch's
    result, `status --check` 0, reverted to the installed bytes."""
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)

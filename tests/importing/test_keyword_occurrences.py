"""Issue 20 (att20 F5): the same keyword change at several calls of one scope (a `sed -i
's/daemon=True)/daemon=False)/'` of vLLM 0.11.0's EngineCoreProc.__init__, which starts two
threads). The importer counted `occurrence:` on the scope as its earlier steps had changed it,
while apply counts in the installed file's source order (docs/registry.md): every call changed
gave `occurrence: 1` and then a whole-call replace; the first and third of three gave
`occurrence: 1` and `occurrence: 2`, an entry that changes the second call, written with exit 0
and "1 not reproduced (an importer bug)". Now each changed call is a set_keyword with its number
among the installed matches. Generated: how many calls x which of them change x whether another
call already passes the new value; each imported, applied as GNU patch gives, checked, reverted."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch


def case(calls: int, changed: tuple[int, ...], passing_new: bool) -> tuple[str, str]:
    def body(values: list[str]) -> str:
        rows = [f"    t{k} = start(worker_{k}, daemon={v})\n" for k, v in enumerate(values)]
        if passing_new:
            rows.insert(1, "    extra = start(None, daemon=False)\n")
        return "def launch(start, *workers):\n    worker_0 = worker_1 = worker_2 = worker_3 = None\n" + "".join(rows)

    before = ["True"] * calls
    after = ["False" if k in changed else "True" for k in range(calls)]
    return body(before) + "    return t0\n", body(after) + "    return t0\n"


CASES = sample(
    [
        (n, subset, passing_new)
        for n in (2, 3, 4)
        for size in range(1, n + 1)
        for subset in itertools.combinations(range(n), size)
        for passing_new in (False, True)
    ]
)


@pytest.mark.parametrize(("calls", "changed", "passing_new"), CASES)
def test_each_changed_call_is_counted_among_the_installed_matches(
    calls: int, changed: tuple[int, ...], passing_new: bool
) -> None:
    """As data: with no call passing the new value already, every changed call is one set_keyword,
    numbered by its place among the installed calls passing the old value."""
    before, after = case(calls, changed, passing_new)
    steps = rewrites(before, after).steps
    if passing_new:
        return  # the oracle below decides (the undo could take the other call for the result)
    assert [s.op for s in steps] == ["set_keyword"] * len(changed), steps
    occurrences = [dict(s.keys).get("occurrence") for s in steps]
    assert occurrences == [k + 1 for k in changed], steps


@pytest.mark.wheel
def test_keyword_changes_at_some_occurrences_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    """Against the oracle: each case imported, applied by the engine, AST-equal to GNU patch's
    result, `status --check` 0, reverted to the installed bytes."""
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)

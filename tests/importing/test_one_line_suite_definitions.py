"""att59 F5: a change inside a definition whose body is written on its header's line (`class K: x =
1; y = 2`, `def f(): return 1`) is imported as a replace of the whole definition (no `find` names a
statement of a one-line suite), which apply proves, AST-equal to what GNU patch makes of the same
diff, reads applied and reverts to the installed bytes; before, import wrote a `replace` inside the
class that its own apply check refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives

pytestmark = pytest.mark.wheel

HEAD, TAIL = "A = 1\n", "B = 2\n"
CASES = [  # (the definition before, after)
    ("class K: x = 1; y = 2\n", "class K: y = 2\n"),
    ("class K: x = 1; y = 2\n", "class K: x = 1; y = 3\n"),
    ("class K: x = 1\n", "class K: x = 1; z = 0\n"),
    ("def f(): return 1\n", "def f(): return 2\n"),
    ("def f(a): a += 1; return a\n", "def f(a): return a\n"),
    ("class K:\n    def m(self): return 1\n", "class K:\n    def m(self): return 2\n"),
]


def test_a_one_line_suite_changed_is_imported_as_gnu_patch_gives(tmp_path: Path) -> None:
    cases = [(HEAD + b + TAIL, HEAD + a + TAIL) for b, a in CASES]
    passed = imported_as_gnu_patch_give_each(tmp_path / "all", cases)
    for i, (before, after) in enumerate(cases):
        if i not in passed:  # alone, for its message
            imported_as_gnu_patch_gives(tmp_path / f"c{i}", before, after)
    assert sorted(passed) == list(range(len(cases)))

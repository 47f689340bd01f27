"""Issue 20: methods added to a class import as `insert_definitions` (a payload, anchored by the
method next to them), never as an `insert_after` or `replace` whose `find` is the whole method
above them. A method holding a multi-line string (a docstring, a text constant, a string with a
line at column 0) was written that way - the payload's string lines were thought to be indented
by the rewrite (pegaflow's vLLM 0.13.0 deferred-release patch: seven methods added after
FreeKVCacheBlockQueue.get_all_free_blocks were a `replace` of that 20-line method).

Generated: class shapes (a docstring of its own or not, one or two methods, a module def after)
x what the new methods hold (docstrings of several layouts, a text constant, a line at column 0
inside a string, a decorator, a comment above, two methods) x where they go (after the first
method, at the class's end, before the first). As data (the importer's steps), and against the
oracle: each case's GNU diff imported, applied by the real engine, AST-equal to GNU patch's result,
`status --check` 0, reverted to the installed bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch

CLASSES = {
    "plain": "class C:\n    def m(self):\n        return 1\n",
    "documented": (
        'class C:\n    """The class.\n\n    More.\n    """\n\n    def m(self):\n        """M."""\n        return 1\n'
    ),
    "two": "class C:\n    def m(self):\n        return 1\n\n    def n(self):\n        x = 2\n        return x\n",
}
TAIL = "\n\ndef after():\n    return 0\n"
NEW = {
    "docstring": (
        '    def k(self):\n        """Add one.\n\n        Args:\n            x: more.\n        """\n        return 3\n'
    ),
    "flat-docstring": '    def k(self):\n        """\n        Flat.\n        """\n        return 3\n',
    "text": '    def k(self):\n        text = """a\n  b\nc"""\n        return text\n',
    "column-0": '    def k(self):\n        return """\nat column 0\n    and indented\n"""\n',
    "property": '    @property\n    def k(self):\n        """The k.\n\n        Long.\n        """\n        return 3\n',
    "comment": (
        "    # ===== new methods =====\n\n"
        '    def k(self):\n        """K.\n\n        Long.\n        """\n        return 3\n'
    ),
    "two-methods": (
        '    def k(self):\n        """K.\n\n        Long.\n        """\n        return 3\n\n'
        '    def j(self, a: int) -> int:\n        """J.\n\n        Long.\n        """\n        return a\n'
    ),
}
WHERE = ("after-first", "end", "before-first")


def case(cls: str, new: str, where: str) -> tuple[str, str]:
    before = CLASSES[cls] + TAIL
    body = CLASSES[cls]
    method = body.index("    def m(self):")
    if where == "before-first":
        after = body[:method] + NEW[new] + "\n" + body[method:]
    elif where == "end":
        after = body + "\n" + NEW[new]
    else:
        end = body.index("return 1\n") + len("return 1\n")
        after = body[:end] + "\n" + NEW[new] + body[end:]
    return before, after + TAIL


CASES = sample([(c, n, w) for c in CLASSES for n in NEW for w in WHERE])


@pytest.mark.parametrize(("cls", "new", "where"), CASES)
def test_methods_added_to_a_class_are_one_definitions_step(cls: str, new: str, where: str) -> None:
    got = rewrites(*case(cls, new, where))
    assert [s.op for s in got.steps] == ["insert_definitions"], got
    keys = dict(got.steps[0].keys)
    assert keys.get("after", keys.get("before", "")).startswith("C."), keys
    payload = got.steps[0].payload or ""
    assert "return 1" not in payload and "x = 2" not in payload, payload  # no neighbour carried


@pytest.mark.wheel
def test_each_imported_method_applies_as_gnu_patch_gives(tmp_path: Path) -> None:
    cases = [case(*c) for c in CASES]
    assert_each_imported_as_gnu_patch(tmp_path, cases, CASES)

"""A statement the patch adds under a comment of its own, right after a one-line statement
(`logger = init_logger(__name__)` then `# why` and `LIMIT = 5`, kw38, issue 20), imported as a
`replace` of the line above by itself and the new lines, not as an `insert_after` anchored on it:
the importer still worked around the engine dropping the comment lines that open an insertion's
`code`, which it has written since (rewrite.patterns.parse_code). Now only blank lines the patch
adds above its comment, which `code` cannot carry, take the `replace`.

Generated: module level or a function's body x the statement above (an assignment, an annotated
one, a call, an assert) x the comment (one line, two) x what follows (nothing, a try block, a def,
an assignment). As data, one insert step and no `replace`; the step, run by the engine, gives the
patched file's bytes (what GNU patch gives for the diff) and undoes to the installed bytes; and the
whole batch through `radpatch import`, apply, `status --check` and revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.insert_statements import InsertStatements
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

ABOVE = ("logger = init_logger(__name__)", "limit: int = 4", "setup(logger)", "assert logger")
COMMENTS = (("# the limit",), ("# the limit,", "# in bytes"))
NEXT = ("", "try:\n    import y\nexcept ImportError:\n    y = None\n", "def f():\n    pass\n", "X = 1\n")
CASES = sample(list(itertools.product((False, True), ABOVE, COMMENTS, NEXT)))


def case(in_def: bool, above: str, comment: tuple[str, ...], after: str) -> tuple[str, str]:
    pad = "    " if in_def else ""
    head = "import os\n\nfrom x import init_logger, setup\n\n"
    opener = "def g():\n" if in_def else ""
    body_b = [f"{pad}{above}\n"]
    body_a = [*body_b, *(f"{pad}{c}\n" for c in comment), f"{pad}LIMIT = 5\n"]
    tail = "".join(f"{pad}{line}\n" if line else "\n" for line in after.splitlines())
    return head + opener + "".join(body_b) + tail, head + opener + "".join(body_a) + tail


@pytest.mark.parametrize(("in_def", "above", "comment", "after"), CASES)
def test_a_statement_under_its_own_comment_is_inserted(
    in_def: bool, above: str, comment: tuple[str, ...], after: str
) -> None:
    before, patched = case(in_def, above, comment, after)
    steps = rewrites(before, patched).steps
    assert [s.op for s in steps] in (["insert_after"], ["insert_before"]), steps
    keys = dict(steps[0].keys)
    assert keys["code"] == "".join(f"{c}\n" for c in comment) + "LIMIT = 5\n", keys
    side = "after" if steps[0].op == "insert_after" else "before"
    op = InsertStatements(str(keys["scope"]), str(keys["find"]), str(keys["code"]), side)  # type: ignore[arg-type]
    check(before, op, patched)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_statements_under_their_own_comment_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)

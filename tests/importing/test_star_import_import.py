"""A diff adding `from m import *` (attack39 L1): import wrote it as an `add_import`, which the
registry refuses for a star import ("star imports are not supported"), so the whole patch was
refused with a message about the registry file import itself wrote. Now the star import is a new
statement next to its neighbour (`insert_before`/`insert_after` of the one line, the narrowest
rewrite that says it), and apply's own proof decides: where it can read the star's module and that
module binds none of the module's names, the entry applies as GNU patch does; where it cannot tell
(a module it cannot read, `os.path`) or the star rebinds a name the module binds before it, import
refuses in one message that names the star import and says what to write instead (the names, as
`from m import NAME`).

Generated: the star's module (`json`, a package, and `textwrap`, a module, whose `__all__`
radpatch reads) x where the patch puts it (first, after the imports, after an
assignment, last) x the module's code (a constant, a function using it). As data and through the
rewrites the bytes the diff gives (and back), and the batch through `radpatch import`, apply, `status --check`
and revert against GNU patch; the refusals through `radpatch import`."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.errors import EXIT_REFUSED
from radpatch.importing.rewrites import rewrites
from radpatch.rewrite import runner
from radpatch.rewrite.ops.insert_statements import InsertStatements
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch, diff_imported_refused
from tests.lib.rewrites import patch_of

STARS = ("json", "textwrap")
WHERE = ("first", "after imports", "after assignment", "last")
CODES = {
    "constant": "import os\n\nX = 1\nY = [X]\n",
    "function": "import os\nimport sys\n\nX = 1\n\n\ndef f():\n    return X\n",
}


def patched(star: str, where: str, code: str) -> str:
    lines = CODES[code].splitlines(keepends=True)
    line = f"from {star} import *\n"
    at = {
        "first": 0,
        "after imports": max(i for i, ln in enumerate(lines) if ln.startswith("import ")) + 1,
        "after assignment": lines.index("X = 1\n") + 1,
        "last": len(lines),
    }[where]
    return "".join([*lines[:at], line, *lines[at:]])


CASES = sample(list(itertools.product(STARS, WHERE, CODES)))


def _ops(steps: tuple[object, ...]) -> tuple[InsertStatements, ...]:
    out = []
    for s in steps:
        k = dict(s.keys)  # type: ignore[attr-defined]
        side = "before" if s.op == "insert_before" else "after"  # type: ignore[attr-defined]
        out.append(InsertStatements(str(k["scope"]), str(k["find"]), str(k["code"]), side))
    return tuple(out)


@pytest.mark.parametrize(("star", "where", "code"), CASES)
def test_a_star_import_added_is_a_new_statement_not_an_add_import(star: str, where: str, code: str) -> None:
    before, after = CODES[code], patched(star, where, code)
    found = rewrites(before, after)
    assert [s.op for s in found.steps] in (["insert_before"], ["insert_after"]), found.steps
    assert dict(found.steps[0].keys)["code"] == f"from {star} import *\n"
    # the rewrites alone (the proof needs the star's module, which the installed tests read below)
    patch = patch_of(*_ops(found.steps))
    done = runner.forward(patch, patch.rewrites, before.encode(), "m.py")
    assert done.decode() == after
    assert runner.backward(patch, patch.rewrites, done, "m.py").decode() == before


@pytest.mark.wheel
def test_star_imports_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    batch = CASES[::2]
    assert_each_imported_as_gnu_patch(tmp_path, [(CODES[c], patched(s, w, c)) for s, w, c in batch], batch)


@pytest.mark.wheel
@pytest.mark.parametrize(
    ("star", "bound"),
    # radpatch cannot read os.path (posixpath), nor tell what `string` (no `__all__`) binds; json binds dumps
    [("os.path", "os"), ("string", "os"), ("json", "dumps")],
)
def test_a_star_import_apply_cannot_check_is_refused_saying_what_to_write(
    tmp_path: Path, star: str, bound: str
) -> None:
    before = f"import os\n{bound} = 1\n" if bound != "os" else "import os\nX = 1\n"
    after = before + f"from {star} import *\n"
    run, out = diff_imported_refused(tmp_path, before, after)
    assert run.returncode == EXIT_REFUSED, run.stderr
    assert f"`from {star} import *` at line 3" in run.stderr, run.stderr
    assert f"write the names the code needs instead, `from {star} import NAME, ...`" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert not list(out.glob("*.yaml"))

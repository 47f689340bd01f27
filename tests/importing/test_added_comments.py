"""Comments a patch adds survive `radpatch import`: a unified diff that adds comment lines (above
new statements, above a new definition, on a new import line, next to a changed statement) is
imported into a pip-installed toy distribution and applied by the real engine through its CLI; the
file must be AST-equal to what GNU patch makes of the same diff, byte-equal but for radpatch's own
markers where the comment can be carried, and `revert` gives RECORD's bytes back.

The module opens with unchanged header comments (vLLM's SPDX lines): a comment the diff does not
add is never written a second time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import gnu_diff, gnu_patch, pip_install, without_markers
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

DIST = "rpcomments"
REL = "rpcomments/mod.py"
MODULE = """\
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the toy project
\"\"\"A module with a header, imports, constants, functions and a class.\"\"\"

import os
import re

LIMIT = 8


def plan(spec, flag=False):
    size = len(spec)
    if size > LIMIT:
        size = LIMIT
    for item in spec:
        print(item)
    return size


def helper(x):
    return x * 2


class Engine:
    def __init__(self, name):
        self.name = name
        self.steps = []

    def run(self, data):
        out = []
        for d in data:
            out.append(re.sub("a", "b", d))
        return out
"""

LINES = MODULE.splitlines(keepends=True)


def _at(text: str) -> int:
    """0-based index of the line whose stripped text is `text` (once in MODULE)."""
    hits = [i for i, line in enumerate(LINES) if line.strip() == text]
    assert len(hits) == 1, text
    return hits[0]


def _insert(after: str, *new: str) -> str:
    """MODULE with `new` lines put after the line `after` (at its indentation plus the given one)."""
    i = _at(after) + 1
    return "".join([*LINES[:i], *(f"{n}\n" for n in new), *LINES[i:]])


def _change(line: str, to: str) -> str:
    i = _at(line)
    indent = LINES[i][: len(LINES[i]) - len(LINES[i].lstrip())]
    return "".join([*LINES[:i], f"{indent}{to}\n", *LINES[i + 1 :]])


# 1. comment lines added above new statements: positions x statement kinds
ABOVE_NEW_STATEMENTS = {
    "after-assignment-in-function": _insert("size = len(spec)", "    # clamp later", "    seen = set()"),
    "two-lines-above-a-call": _insert(
        "size = LIMIT", "        # why: upstream issue 123", "        # (twice)", "        print(size)"
    ),
    "above-an-if-block": _insert(
        "size = len(spec)", "    # reject empty specs", "    if not spec:", "        return 0"
    ),
    "in-a-loop": _insert("print(item)", "        # and count it", "        size += 0"),
    "in-a-method": _insert("self.steps = []", "        # a fresh cache", "        self.cache = {}"),
    "module-level-after-constant": _insert("LIMIT = 8", "# half of it", "HALF = LIMIT // 2"),
    "trailing-comment-too": _insert("size = len(spec)", "    # clamp later", "    seen = set()  # for items"),
}

# 2. a comment added on an import line, or on a statement that changes
ON_A_LINE = {
    "import": _insert("import re", "import json  # for dumps"),
    "from-import": _insert("import re", "from os import path as _p  # short name"),
    "trailing-on-changed": _change("size = len(spec)", "size = len(spec) + 1  # one for the header"),
    "trailing-on-changed-constant": _change("LIMIT = 8", "LIMIT = 16  # doubled"),
}

# 3. comment lines above a new definition (the payload's own lines, written with it)
ABOVE_NEW_DEFINITIONS = {
    "above-a-new-function": _insert(
        "return x * 2", "", "", "# the inverse of helper", "def unhelper(x):", "    return x // 2"
    ),
}

CASES = {**ABOVE_NEW_STATEMENTS, **ON_A_LINE, **ABOVE_NEW_DEFINITIONS}

# a blank line the patch adds above the comment of new statements: the `with` of the insertion
# (a replace of the statement above by itself and them) carries it
BLANK_ABOVE = {
    "blank-line-above-the-comment": _insert("size = len(spec)", "", "    # clamp later", "    seen = set()"),
}
CASES.update(BLANK_ABOVE)

# a comment line the patch adds above a statement whose expression changes: the entry replaces the
# expression (`[]`), the narrow rewrite; writing the comment would take a replace of the statement
# above too (comment lines that open a `with` are not written), which an upstream edit there breaks.
# The import leaves the comment out and says so.
ABOVE_CHANGED = _insert("self.name = name", "        # no steps yet").replace(
    "self.steps = []\n", "self.steps = [None]\n"
)

# a module whose header comments sit right above its first statement (vLLM's SPDX lines)
BARE_REL = "rpcomments/bare.py"
BARE = """\
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the toy project
import os
import re


def f():
    return os.sep, re.I
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {"rpcomments/__init__.py": "", REL: MODULE, BARE_REL: BARE}
    return build_wheel(tmp_path_factory.mktemp("wheel"), DIST, "1.0.0", files)


def _import_apply_compare(tmp_path: Path, wheel: Path, after: str, rel: str = REL) -> tuple[str, str, str]:
    """Import the diff of `rel` to `after`, apply it, check it AST-equal to GNU patch's, status
    --check, revert to the installed bytes; (radpatch's file, GNU patch's file, the entry)."""
    before = BARE if rel == BARE_REL else MODULE
    venv = pip_install(tmp_path / "venv", wheel)
    patch = tmp_path / "change.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", rel, before, after).stdout)
    gnu = tmp_path / "gnu"
    (gnu / rel).parent.mkdir(parents=True)
    (gnu / rel).write_text(before)
    done = gnu_patch(gnu, patch, 1)
    assert done.returncode == 0, done.stdout + done.stderr
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    entry = (reg / "change.yaml").read_text()
    applied = venv.radpatch("--registry", str(reg), "apply", "change")
    assert applied.returncode == 0, applied.stderr + entry
    mine, theirs = (venv.site / rel).read_text(), (gnu / rel).read_text()
    assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs)), entry
    assert venv.radpatch("--registry", str(reg), "status", "--check", "change").returncode == 0, entry
    reverted = venv.radpatch("--registry", str(reg), "revert", "change")
    assert reverted.returncode == 0, reverted.stderr
    assert (venv.site / rel).read_text() == before
    return mine, theirs, entry


@pytest.mark.parametrize("case", sorted(CASES))
def test_added_comments_are_written_as_gnu_patch_writes_them(tmp_path: Path, wheel: Path, case: str) -> None:
    mine, theirs, entry = _import_apply_compare(tmp_path, wheel, CASES[case])
    assert without_markers(mine) == theirs, entry
    assert mine.count("# SPDX-License-Identifier") == 1


def test_a_comment_above_a_changed_expression_is_left_out_and_the_import_says_so(tmp_path: Path, wheel: Path) -> None:
    mine, theirs, entry = _import_apply_compare(tmp_path, wheel, ABOVE_CHANGED)
    assert "# no steps yet" not in mine and without_markers(mine) == theirs.replace("        # no steps yet\n", "")
    said = yaml.safe_load(entry)
    assert [next(k for k in r if k not in ("id", "file")) for r in said["rewrites"]] == ["replace"], entry
    assert said["rewrites"][0]["replace"]["find"] == "[]", entry


def test_the_import_says_which_comment_it_leaves_out(tmp_path: Path, wheel: Path) -> None:
    venv = pip_install(tmp_path / "venv", wheel)
    patch = tmp_path / "change.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", REL, MODULE, ABOVE_CHANGED).stdout)
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert out.returncode == 0, out.stderr
    notes = [line for line in out.stdout.splitlines() if "the comment the patch adds above" in line]
    line = ABOVE_CHANGED.splitlines().index("        self.steps = [None]") + 1
    assert len(notes) == 1 and REL in notes[0] and f"line {line}" in notes[0], out.stdout


@pytest.mark.parametrize(
    "after",
    [
        BARE.replace("import os\n", "import sys\nimport os\n"),
        BARE.replace("import os\n", "# for argv\nimport sys\nimport os\n"),
        BARE.replace("import os\n", "import sys\nimport os\n").replace(
            "    return", "    # both\n    x = 1\n    return"
        ),
    ],
    ids=["plain", "own-comment", "and-a-comment-below"],
)
def test_the_header_comments_are_never_carried_into_an_entry(tmp_path: Path, wheel: Path, after: str) -> None:
    """A statement inserted right below the module's header comments (not where add_import puts an
    import): the header lines are context, not the patch's; the entry must not write them again."""
    mine, _, entry = _import_apply_compare(tmp_path, wheel, after, BARE_REL)
    assert "SPDX" not in entry
    assert mine.count("# SPDX-License-Identifier") == 1


def test_a_comment_added_above_new_statements_is_in_the_entry_once(tmp_path: Path, wheel: Path) -> None:
    mine, theirs, entry = _import_apply_compare(tmp_path, wheel, ABOVE_NEW_STATEMENTS["in-a-method"])
    assert yaml.dump(yaml.safe_load(entry)).count("a fresh cache") == 1
    assert "SPDX" not in entry
    assert without_markers(mine) == theirs

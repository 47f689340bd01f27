"""att59 F2/F3: a patch that takes every statement out of a module (an `__init__.py` whose one import
goes, a comment left or nothing) is imported, applied by the real engine AST-equal to what GNU patch
makes of it, reads applied and reverts to the installed bytes; before, `radpatch import` looped
without end. A patch that adds code to a module with no statement (empty, or comments only) is
imported as a `fill_module` and applied byte for byte as GNU patch gives (it was refused: no operation
could add code to a module with nothing to stand next to)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import imported_as_gnu_patch_gives

pytestmark = pytest.mark.wheel

EMPTIED = {  # before -> after: every statement of the module taken out
    "one-import-comment-left": ("from os import sep\n", "# import what you need from os yourself\n"),
    "two-statements-nothing-left": ("import os\nX = os.sep\n", ""),
    "docstring-and-code": ('"""Helpers."""\nimport os\n\nX = os.sep\n', "# gone\n"),
    "under-a-header": ("# header\nimport os\n", "# header\n"),
}


@pytest.mark.parametrize("case", list(EMPTIED))
def test_a_module_emptied_by_the_patch_is_imported_and_applied_as_gnu_patch_gives(tmp_path: Path, case: str) -> None:
    before, after = EMPTIED[case]
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)  # AST-equal to GNU, status --check, revert
    assert entry["rewrites"], entry


FILLED = {  # before (no statement) -> after
    "empty": ("", "from os import sep\n__all__ = ['sep']\n"),
    "comments-only": ("# nothing here yet\n", "# nothing here yet\nfrom os import sep\nX = sep\n"),
    "definitions": ("", "import os\n\n\ndef sep():\n    return os.sep\n\n\nclass C:\n    pass\n"),
    "licence-header-blank-line-code-trailing-comment": (  # vLLM's own shape (att64 F2: the blank line was lost)
        "# SPDX-License-Identifier: Apache-2.0\n# SPDX-FileCopyrightText: Copyright contributors\n",
        "# SPDX-License-Identifier: Apache-2.0\n# SPDX-FileCopyrightText: Copyright contributors\n\n"
        "from os import sep\n\n__all__ = ['sep']  # exported\n# trailing note\n",
    ),
    "licence-header-and-comment": (
        "# SPDX-License-Identifier: Apache-2.0\n",
        "# SPDX-License-Identifier: Apache-2.0\n# re-exported for plugins\nfrom os import sep as SEP\n",
    ),
}


@pytest.mark.parametrize("case", list(FILLED))
def test_code_added_to_a_module_with_no_statement_is_imported_and_applied_as_gnu_patch_gives(
    tmp_path: Path, case: str
) -> None:
    before, after = FILLED[case]
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)  # AST-equal to GNU, status --check, revert
    assert [next(iter(set(rw) - {"id"})) for rw in entry["rewrites"]] == ["fill_module"], entry  # type: ignore[union-attr]
    assert "1 of 1 file byte-identical" in str(entry["_stdout"]), entry[
        "_stdout"
    ]  # as GNU patch gives it, byte for byte

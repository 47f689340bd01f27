"""att59 F7: a patch that edits code a later definition replaces is refused by import's apply check
(the edit would have no effect), and the hint speaks of the patch, not of a payload definition the
user never wrote (an entry author's words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import diff_imported_refused

pytestmark = pytest.mark.wheel

SHADOWED = "def f(x):\n    return x + 1\n\n\ndef f(x):\n    return x + 2\n"


def test_an_edit_of_a_replaced_definition_is_refused_with_a_hint_about_the_patch(tmp_path: Path) -> None:
    run, reg = diff_imported_refused(tmp_path, SHADOWED, SHADOWED.replace("x + 1", "x + 10"))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    first, hint = run.stderr.splitlines()[:2]
    assert "which line 5 replaces" in first, first
    assert "payload" not in hint and "change the patch, or leave the file out with --exclude" in hint, hint
    assert not any(reg.glob("*.yaml"))

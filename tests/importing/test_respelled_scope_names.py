"""A definition the installed module spells in a form Python reads NFKC-normalised (att60 F03): `class Ｃ`
binds `C`, `def ﬁle` binds `file`. The importer reads names as Python does (ast), so an entry said
`scope: C.file`; apply found a definition by its spelling, and the import's dry run refused the entry as
"this version defines no function or class 'C'", blaming the version. Apply now finds a definition by
the name Python binds (rewrite.scopes.named), so every such change imports and applies as GNU patch
gives it, and reverts to the installed bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import Venv, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

SOURCE = (
    "class Ｃ:\n    def ﬁle(self):\n        x = 1\n        return x\n\n\n"
    "def 𝐡elper():\n    a = 1\n    return a\n\n\n"
    "def g():\n    return 𝐡elper() + Ｃ().ﬁle()\n"
)
EDITS = [  # (old line, new line)
    ("        x = 1\n", "        x = 2\n"),  # scope: C.file
    ("    a = 1\n", "    a = 5\n"),  # scope: helper
    ("    return 𝐡elper() + Ｃ().ﬁle()\n", "    return 𝐡elper() + Ｃ().ﬁle() + 1\n"),  # a call only
    ("    return a\n", "    return a\n\n\ndef added():\n    return 3\n"),  # after: helper
]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    root = tmp_path_factory.mktemp("respelled")
    wheel = build_wheel(root / "wheel", "rpspell", "1.0.0", {"rpspell/__init__.py": "", "rpspell/m.py": SOURCE})
    return pip_install(root / "venv", wheel)


@pytest.mark.parametrize("edit", EDITS, ids=["method of Ｃ", "function 𝐡elper", "a call only", "a def after 𝐡elper"])
def test_a_change_in_or_next_to_a_respelled_definition_imports_and_applies_as_gnu_patch_gives(
    venv: Venv, tmp_path: Path, edit: tuple[str, str]
) -> None:
    rel = "rpspell/m.py"
    after = SOURCE.replace(*edit)
    patch = tmp_path / "p.patch"
    added = "".join(f"+{line}" for line in edit[1].splitlines(keepends=True))
    body = "".join(f"-{edit[0]}{added}" if line == edit[0] else f" {line}" for line in SOURCE.splitlines(keepends=True))
    count = SOURCE.count("\n")
    patch.write_text(f"--- a/{rel}\n+++ b/{rel}\n@@ -1,{count} +1,{after.count(chr(10))} @@\n{body}")
    gnu = tmp_path / "gnu"
    (gnu / "rpspell").mkdir(parents=True)
    (gnu / rel).write_text(SOURCE)
    assert gnu_patch(gnu, patch, 1).returncode == 0
    assert (gnu / rel).read_text() == after
    out = venv.radpatch("import", "-p1", "--out", str(tmp_path / "reg"), str(patch))
    assert out.returncode == 0, out.stderr
    applied = venv.radpatch("--registry", str(tmp_path / "reg"), "apply", "p")
    assert applied.returncode == 0, applied.stderr
    assert (venv.site / rel).read_text() == after
    assert venv.radpatch("--registry", str(tmp_path / "reg"), "revert", "p").returncode == 0
    assert (venv.site / rel).read_text() == SOURCE

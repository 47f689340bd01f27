"""`radpatch import --name N` takes only an entry name, as the registry reads one (fix63 leftover): `..`, `-x`,
`.hidden`, `fix.yaml` passed (letters, digits, `_`, `-`, `.` only), and `--name ..` wrote `out/...yaml`,
a hidden file no registry lists, with the hint `apply ..` (a payload would have gone to `out/../`). Now it
is refused with the rule before anything is written (exit 2); a patch file named `fix.yaml.patch` gives
the entry `fix-yaml`."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.commands.importing import _names
from radpatch.errors import UsageError
from radpatch.registry.loader.nodes import ENTRY
from tests.lib.importing import Venv

BAD = ["..", ".", "-x", "--", ".hidden", "fix.yaml", "fix.yml", "a/b", "", "caf\u00e9"]
GOOD = ["fix_handshake", "0001-fix", "_x", "a.b-c"]


@pytest.mark.parametrize("name", BAD)
def test_a_name_that_is_no_entry_name_is_refused_with_the_rule(name: str) -> None:
    with pytest.raises(UsageError) as caught:
        _names(("p.patch",), name)
    assert caught.value.message.startswith(f"--name {name!r}: not an entry name"), caught.value.message
    assert "not ending in .yaml" in caught.value.message


@pytest.mark.parametrize("name", GOOD)
def test_an_entry_name_is_taken_as_given_or_as_each_prefix(name: str) -> None:
    assert _names(("p.patch",), name) == [name]
    assert _names(("a.patch", "b.patch"), name) == [f"{name}-a", f"{name}-b"]


def test_a_patch_file_name_always_gives_an_entry_name() -> None:
    names = _names(("fix.yaml.patch", "x.yml.diff", "-.patch", "..patch"), None)
    assert names == ["fix-yaml", "x-yml", "patch", "patch-2"]
    assert all(ENTRY.fullmatch(n) for n in names)


@pytest.mark.wheel
def test_the_refusal_comes_before_anything_is_written(venv: Venv, tmp_path: Path) -> None:
    patch = tmp_path / "p.patch"
    patch.write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n")
    out = venv.radpatch("import", "-p1", "--out", str(tmp_path / "reg"), "--name", "..", str(patch))
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.startswith("radpatch: error: --name '..': not an entry name"), out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "reg").exists()

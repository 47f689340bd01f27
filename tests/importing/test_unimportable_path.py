"""att59 F6: a .py file the patch changes under a directory that is not a Python name
(`toypkg/data-files/tool.py`) has no dotted module name an entry could give: import refuses it at
the patch, naming the file and why, with --exclude as the way out; before, it blamed a registry file
it had never written ("fix the registry file(s) above")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import gnu_diff, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel


@pytest.mark.parametrize("rel", ["rpodd/data-files/tool.py", "rpodd/2nd.py", "rpodd/sub/my tool.py"])
def test_a_module_no_entry_can_name_is_refused_naming_the_file(tmp_path: Path, rel: str) -> None:
    before, after = "X = 1\n", "X = 2\n"
    venv = pip_install(
        tmp_path / "venv", build_wheel(tmp_path / "wheel", "rpodd", "1.0", {"rpodd/__init__.py": "", rel: before})
    )
    patch = tmp_path / "odd.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", rel, before, after).stdout)
    gnu = tmp_path / "gnu"
    (gnu / rel).parent.mkdir(parents=True)
    (gnu / rel).write_text(before)
    assert gnu_patch(gnu, patch, 1).returncode == 0  # GNU patch takes it
    run = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    first, hint = run.stderr.splitlines()[:2]
    assert f"{rel} cannot be imported as a module" in first and "registry file" not in run.stderr, run.stderr
    assert f"--exclude '{rel}'" in hint, hint
    assert not (tmp_path / "reg").exists() or not any((tmp_path / "reg").iterdir())

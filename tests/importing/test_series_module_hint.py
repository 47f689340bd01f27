"""Issue 20 (att20 F6): one patch of a series imported alone, when it imports a module another patch
of the series creates (Emu3.5's vLLM 0.11.0 batch_scheduler.py.patch imports
vllm.v1.core.sched.batch_manager, which batch_manager.py.patch creates). The refusal said the module
"is not a module on the target's import path" and hinted to guard the import or declare a
`versions:` variant: nothing about the series. It now says the module is not in the installed
package and to give the patch that creates it to the same `radpatch import`; given together, the
import writes both, the importer requiring the creator. Generated: how the module is imported x
whether the importing patch creates its module or changes one; a module of another distribution
gets no such words."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import gnu_diff, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

FORMS = {
    "import": "import rpseries.helper\n\n\ndef use():\n    return rpseries.helper.VALUE\n",
    "from-import": "from rpseries.helper import VALUE\n\n\ndef use():\n    return VALUE\n",
    "nested-module": "from rpseries.sub.helper import VALUE\n\n\ndef use():\n    return VALUE\n",
}
USERS = ("creates", "changes")
EXISTING = "def use():\n    return 0\n"


def _patch(tmp: Path, name: str, rel: str, before: str | None, after: str) -> Path:
    diff = gnu_diff(tmp / f"d-{name}", rel, before or "", after).stdout.decode()
    if before is None:  # a new file, as git and diff -N write it
        diff = diff.replace(f"--- a/{rel}", "--- /dev/null", 1)
    path = tmp / f"{name}.patch"
    path.write_text(diff)
    return path


@pytest.mark.parametrize(("form", "user"), list(itertools.product(sorted(FORMS), USERS)))
def test_a_patch_needing_a_module_its_series_creates_is_told_to_import_them_together(
    tmp_path: Path, form: str, user: str
) -> None:
    files = {"rpseries/__init__.py": "", "rpseries/sub/__init__.py": "", "rpseries/user.py": EXISTING}
    venv = pip_install(tmp_path / "venv", build_wheel(tmp_path / "wheel", "rpseries", "1.0.0", files))
    helper = "rpseries/sub/helper.py" if form == "nested-module" else "rpseries/helper.py"
    creator = _patch(tmp_path, "0001-helper", helper, None, "VALUE = 42\n")
    rel = "rpseries/user.py" if user == "changes" else "rpseries/newuser.py"
    needer = _patch(tmp_path, "0002-user", rel, EXISTING if user == "changes" else None, FORMS[form])

    alone = venv.radpatch("import", str(needer), "-p1", "--out", str(tmp_path / "alone"))
    assert alone.returncode != 0 and "Traceback" not in alone.stderr, alone.stderr
    module = helper[:-3].replace("/", ".")
    assert f"`{module}` is not in the installed package" in alone.stderr, alone.stderr
    assert "give that patch file to the same `radpatch import`" in alone.stderr, alone.stderr
    assert not (tmp_path / "alone").exists()

    together = venv.radpatch("import", str(creator), str(needer), "-p1", "--out", str(tmp_path / "reg"))
    assert together.returncode == 0, together.stderr
    entry = yaml.safe_load((tmp_path / "reg" / "0002-user.yaml").read_text())
    assert entry["requires"] == ["0001-helper"], entry


def test_a_module_of_another_distribution_gets_no_series_words(tmp_path: Path) -> None:
    files = {"rpseries/__init__.py": "", "rpseries/user.py": EXISTING}
    venv = pip_install(tmp_path / "venv", build_wheel(tmp_path / "wheel", "rpseries", "1.0.0", files))
    needer = _patch(
        tmp_path, "0001-user", "rpseries/user.py", EXISTING, FORMS["import"].replace("rpseries.", "rpother.")
    )
    run = venv.radpatch("import", str(needer), "-p1", "--out", str(tmp_path / "reg"))
    assert run.returncode != 0 and "is not a module on the target's import path" in run.stderr, run.stderr
    assert "same `radpatch import`" not in run.stderr and "install it into the target environment" in run.stderr

"""`apply --import-check` when the target interpreter imports the patched module from another copy
(issue 21, impchk36): a checkout or a zip archive earlier on its import path (a .pth that inserts
it first, PYTHONPATH) shadows the install radpatch patches. Serving the patched file in its place
imported what never runs (a checkout's package with the install's patched module under it, or the
install's alone) and read "imports once patched"; the check now asks the target where each module
is found (state.imported, the probe `status` uses) and says inconclusive, naming the copy.

Generated: each way of shadowing (and a .pth that adds the copy after site-packages, which shadows
nothing: the control) times the module patched (a submodule, the package's __init__), in a real
bare venv whose interpreter reads its own .pth files.
"""

from __future__ import annotations

import itertools
import zipfile
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import import_check
from radpatch.prove.plan import PlannedFile
from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.venvs import make_venv, site_packages

FILES = {"icpkg/__init__.py": "", "icpkg/core.py": "LIMIT = 4\n"}
SHADOWS = {  # how the copy comes first (COPY: the checkout directory; ZIP: an archive of it); None: it does not
    "pth-inserts-checkout": ("icpkg_dev.pth", "import sys; sys.path.insert(0, COPY)\n", True),
    "pth-inserts-zip": ("icpkg_dev.pth", "import sys; sys.path.insert(0, ZIP)\n", True),
    "pythonpath": (None, "COPY", True),
    "pth-appends-checkout": ("icpkg_dev.pth", "PLAIN\n", False),
}
MODULES = {"submodule": ("icpkg.core", "icpkg/core.py"), "package": ("icpkg.__init__", "icpkg/__init__.py")}
CASES = sample(itertools.product(SHADOWS, MODULES))


@pytest.mark.parametrize(("shadow", "which"), CASES, ids=["-".join(c) for c in CASES])
def test_a_module_the_target_imports_from_another_copy_is_inconclusive_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shadow: str, which: str
) -> None:
    python = make_venv(tmp_path / "venv")
    sp = site_packages(tmp_path / "venv")
    Site(sp).install("icpkg", "1.0", FILES)
    copy = tmp_path / "checkout"
    Site(copy).install("icpkg", "1.0.dev0", FILES)
    archive = tmp_path / "checkout.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for rel, text in FILES.items():
            z.writestr(rel, text)
    pth, line, shadows = SHADOWS[shadow]
    line = line.replace("COPY", repr(str(copy))).replace("ZIP", repr(str(archive))).replace("PLAIN", str(copy))
    if pth is None:
        monkeypatch.setenv("PYTHONPATH", str(copy))
    else:
        (sp / pth).write_text(line)
    module, rel = MODULES[which]
    path = sp / rel

    (v,) = import_check.check(
        python_env(str(python)), [("p", PlannedFile(module, path, path.read_bytes(), b"LIMIT = 8\n"))], timeout=120
    )

    if not shadows:
        assert v.result is import_check.Result.OK, v
        return
    assert v.result is import_check.Result.INCONCLUSIVE, v
    where = f"the zip archive {archive}" if shadow == "pth-inserts-zip" else str(copy)
    assert f"would be imported from {where}" in v.reason, v.reason
    assert v.reason.endswith("the patch does not run, so importing the patched file says nothing of what runs")

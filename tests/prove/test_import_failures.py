"""Whose failure it is when the patched and the pristine module both fail to import
(radpatch/prove/import_failures.py), on a real wheel pip-installed into a temp venv.

The rule (issue 21): the pristine module importing and the patched one failing is a refusal,
whatever line raises; inconclusive is only for a failure both share. Two classes were said
inconclusive while the pristine module failed further down (an optional GPU module missing on
this image):
- F5: the patch changes a constant (or a flag) that an unchanged later line reads, and that line
  raises: the line the patch did not change decided it;
- F6: the patch's new import closes an import cycle back into the patched module; the sibling's
  ImportError ("partially initialized module") was filed under the carve-out for a module
  missing on this image, by its kind alone. The carve-out now asks the pristine install: the
  module the failure was raised in, imported on its own, must fail the same way.

Generated: each break (how the patch makes an unchanged or a new line raise) with and without the
pristine module's own late failure, plus controls (a harmless change, a module that really is
missing on this image). Every case is first checked to import as the case says, in a fresh
interpreter of the venv, so the expectation is not the check's own word."""

from __future__ import annotations

import itertools
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import import_check
from radpatch.prove.plan import PlannedFile
from tests.lib.generated import sample
from tests.lib.registry import entry_head, write_entry
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

DIST = "rpif"
LATE = "import rp_missing_gpu_ext_surely_absent\n"  # the pristine module's own failure on this image


@dataclass(frozen=True)
class Break:
    before: str  # the module's pristine text (without the late failure)
    after: str  # the patched text
    siblings: dict[str, str]  # other modules of the package ({name} is the module's own name)
    refused_when_both_fail: bool  # the expected verdict when the pristine module fails too


BREAKS = {
    # F5: a constant the patch changes, read by an unchanged line that then raises
    "constant-read-by-unchanged-import": Break(
        "import importlib\nNAME = 'json'\nM = importlib.import_module(NAME)\n",
        "import importlib\nNAME = 'rp_jsonx_absent'\nM = importlib.import_module(NAME)\n",
        {},
        True,
    ),
    "constant-read-by-unchanged-division": Break("DIV = 1\nR = 10 / DIV\n", "DIV = 0\nR = 10 / DIV\n", {}, True),
    "constant-read-by-unchanged-lookup": Break(
        "KEY = 'a'\nT = {'a': 1}[KEY]\n", "KEY = 'b'\nT = {'a': 1}[KEY]\n", {}, True
    ),
    "binding-removed-before-unchanged-read": Break("import os\nSEP = os.sep\n", "SEP = os.sep\n", {}, True),
    # F6: an import cycle back into the patched module, closed by a new line or an unchanged one
    "new-import-closes-cycle": Break(
        "X = 1\n", "import rpif.{name}_b\nX = 1\n", {"{name}_b": "from rpif.{name} import X\n"}, True
    ),
    "flag-makes-unchanged-import-close-cycle": Break(
        "USE_B = False\nif USE_B:\n    import rpif.{name}_b\nX = 1\n",
        "USE_B = True\nif USE_B:\n    import rpif.{name}_b\nX = 1\n",
        {"{name}_b": "from rpif.{name} import X\n"},
        True,
    ),
    # controls: a module this image lacks (the carve-out), and a change that imports
    "new-import-of-a-module-missing-here": Break(
        "X = 1\n",
        "import rpif.{name}_gpu\nX = 1\n",
        {"{name}_gpu": "raise ImportError('no CUDA kernels here')\n"},
        False,
    ),
    "harmless": Break("X = 1\n", "X = 2\n", {}, False),
}
TAILS = {"pristine-imports": "", "pristine-fails-late": LATE}
CASES = sample(itertools.product(sorted(BREAKS), sorted(TAILS)))


def _name(brk: str, tail: str) -> str:
    return f"m_{brk}_{tail}".replace("-", "_")


@dataclass(frozen=True)
class Target:
    env: PythonEnv
    site: Path


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    """One wheel holding every case's module, pip-installed (from the file, no index) into a bare venv."""
    base = tmp_path_factory.mktemp("rpif")
    files = {"rpif/__init__.py": ""}
    for brk, tail in itertools.product(BREAKS, TAILS):
        name = _name(brk, tail)
        files[f"rpif/{name}.py"] = BREAKS[brk].before.replace("{name}", name) + TAILS[tail]
        for sib, text in BREAKS[brk].siblings.items():
            files["rpif/" + sib.replace("{name}", name) + ".py"] = text.replace("{name}", name)
    wheel = build_wheel(base / "dist", DIST, "1.0", files)
    python = make_venv(base / "venv")
    pip(python, "install", "--no-deps", "--no-index", "--quiet", str(wheel))
    sp = site_packages(base / "venv")
    return Target(PythonEnv(str(python), (sp,), sp, (sys.version_info[0], sys.version_info[1])), sp)


def _imports(python: str, site: Path, module: str, text: str | None) -> bool:
    """Whether `module` imports in a fresh interpreter of the venv, its file holding `text` (a copy
    of the package when `text` is given: the installed file is never written)."""
    code = f"import {module}"
    if text is not None:
        origin = str(site / "rpif" / (module.split(".")[1] + ".py"))
        code = (
            "import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location({module!r}, {origin!r})\n"
            "mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod\n"
            f"exec(compile({text!r}, spec.origin, 'exec'), mod.__dict__)\n"
        )
    return subprocess.run([python, "-I", "-B", "-c", code], capture_output=True, timeout=120).returncode == 0


@pytest.mark.parametrize(("brk", "tail"), CASES)
def test_a_failure_the_pristine_module_does_not_share_is_refused_whatever_line_raises(
    target: Target, brk: str, tail: str
) -> None:
    name = _name(brk, tail)
    module = f"rpif.{name}"
    path = target.site / "rpif" / f"{name}.py"
    before = path.read_bytes()
    after = BREAKS[brk].after.replace("{name}", name) + TAILS[tail]
    # the case is what it says: pristine imports unless it has the late failure; patched fails unless harmless
    assert _imports(target.env.executable, target.site, module, None) == (tail == "pristine-imports")
    assert _imports(target.env.executable, target.site, module, after) == (brk == "harmless" and not TAILS[tail])

    (v,) = import_check.check(target.env, [("p", PlannedFile(module, path, before, after.encode()))], timeout=120)

    if brk == "harmless":
        expected = import_check.Result.OK if tail == "pristine-imports" else import_check.Result.INCONCLUSIVE
    elif tail == "pristine-imports" or BREAKS[brk].refused_when_both_fail:
        expected = import_check.Result.REFUSED
    else:
        expected = import_check.Result.INCONCLUSIVE
    assert v.result is expected, (brk, tail, v)
    if expected is import_check.Result.REFUSED and TAILS[tail]:
        assert "the unpatched module fails elsewhere (ModuleNotFoundError" in v.reason, v.reason
    assert path.read_bytes() == before  # nothing written


ENTRY = entry_head("import check failure", DIST, {"core": "rpif.NAME"}) + (
    '  - id: change\n    file: core\n    replace: {scope: <module>, find: "FIND", with: "WITH"}\n'
)


@pytest.mark.parametrize(
    ("brk", "find", "with_"),
    [
        ("constant-read-by-unchanged-import", "NAME = 'json'", "NAME = 'rp_jsonx_absent'"),
        ("flag-makes-unchanged-import-close-cycle", "USE_B = False", "USE_B = True"),
    ],
)
def test_apply_import_check_refuses_a_failure_only_the_patch_has_while_the_pristine_module_fails_late(
    target: Target, write_registry: Any, radpatch: Any, tmp_path: Path, brk: str, find: str, with_: str
) -> None:
    """Through `apply --import-check --python <venv>`: refused, nothing written (was inconclusive, applied)."""
    name = _name(brk, "pristine-fails-late")
    path = target.site / "rpif" / f"{name}.py"
    before = path.read_bytes()
    text = ENTRY.replace("NAME", name).replace("FIND", find).replace("WITH", with_)
    reg = write_entry(tmp_path / "reg", "ic", text).parent

    r = radpatch("--python", target.env.executable, "--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 1, r
    assert f"ic: import check: rpif.{name} does not import once patched: " in r.err, r.err
    assert "the unpatched module fails elsewhere (ModuleNotFoundError: No module named 'rp_missing_gpu" in r.err
    assert path.read_bytes() == before

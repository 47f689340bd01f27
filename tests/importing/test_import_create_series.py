"""A series that creates a package and then changes it, end to end: `radpatch import` writes one
entry per patch (`create_module` for the new files, a rewrite of the created module in the second,
which requires the first), the engine applies them through the CLI to a pip-installed wheel, the
files are what GNU patch makes of the same series, and revert leaves the install as pip wrote it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import PACKAGE, Venv, gnu_patch

pytestmark = pytest.mark.wheel

INIT = f"{PACKAGE}/newpkg/__init__.py"
CORE = f"{PACKAGE}/newpkg/core.py"
DEEP = f"{PACKAGE}/newpkg/deep/leaf.py"


def _diff(tmp: Path, files: dict[str, tuple[str | None, str | None]]) -> str:
    """`git diff --no-index` of each file (None: no file, /dev/null), concatenated as one patch."""
    out = []
    for i, (rel, (before, after)) in enumerate(files.items()):
        d = tmp / str(i)
        a, b = d / "a" / rel, d / "b" / rel
        for p, t in ((a, before), (b, after)):
            p.parent.mkdir(parents=True, exist_ok=True)
            if t is not None:
                p.write_text(t)
        left = f"a/{rel}" if before is not None else "/dev/null"
        right = f"b/{rel}" if after is not None else "/dev/null"
        run = subprocess.run(["git", "diff", "--no-index", left, right], cwd=d, capture_output=True, text=True)
        assert run.returncode == 1, run.stderr
        out.append(run.stdout.replace(f"a/a/{rel}", f"a/{rel}").replace(f"b/b/{rel}", f"b/{rel}"))
    return "".join(out)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_series_that_creates_a_package_then_changes_it_applies_and_reverts(venv: Venv, tmp_path: Path) -> None:
    init = '"""A package the series adds."""\n\nfrom .core import step\n'
    core1 = "def step(x):\n    return x + 1\n"
    core2 = "def step(x):\n    return x + 2\n"
    leaf = "LEAF = 'deep'\n"
    p1 = tmp_path / "0001-add-newpkg.patch"
    p1.write_text(
        "From x\nSubject: [PATCH 1/2] Add newpkg\n\n---\n"
        + _diff(tmp_path / "d1", {INIT: (None, init), CORE: (None, core1), DEEP: (None, leaf)})
    )
    p2 = tmp_path / "0002-step-by-two.patch"
    p2.write_text("Subject: [PATCH 2/2] Step by two\n\n---\n" + _diff(tmp_path / "d2", {CORE: (core1, core2)}))
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(p1), str(p2), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    first = yaml.safe_load((reg / "0001-add-newpkg.yaml").read_text())
    second = yaml.safe_load((reg / "0002-step-by-two.yaml").read_text())
    assert {next(iter(set(r) - {"id", "file"})) for r in first["rewrites"]} == {"create_module"}
    assert f"{PACKAGE}.newpkg" in first["modules"].values()  # a package by its import name, as documented
    assert second["requires"] == ["0001-add-newpkg"]

    pristine = _tree(venv.site / PACKAGE)
    gnu = tmp_path / "gnu"
    shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE)
    for p in (p1, p2):
        assert gnu_patch(gnu, p, 1).returncode == 0

    r = venv.radpatch("--registry", str(reg), "apply", "0002-step-by-two")

    assert r.returncode == 0, r.stderr
    assert "0001-add-newpkg: applied" in r.stdout and "0002-step-by-two: applied" in r.stdout, r.stdout
    for rel in (INIT, CORE, DEEP):
        assert (venv.site / rel).read_bytes() == (gnu / rel).read_bytes(), rel
    ran = subprocess.run(
        [
            str(venv.python),
            "-c",
            f"from {PACKAGE}.newpkg import step; from {PACKAGE}.newpkg.deep.leaf import LEAF; print(step(1), LEAF)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.stdout == "3 deep\n", ran.stderr
    status = venv.radpatch("--registry", str(reg), "status", "--check", "0001-add-newpkg", "0002-step-by-two")
    assert status.returncode == 0, status.stdout + status.stderr

    r = venv.radpatch("--registry", str(reg), "revert", "0001-add-newpkg", "0002-step-by-two")

    assert r.returncode == 0, r.stderr
    assert "removed" in r.stdout, r.stdout
    assert not (venv.site / PACKAGE / "newpkg").exists()
    assert {k: v for k, v in _tree(venv.site / PACKAGE).items() if "__pycache__" not in k} == {
        k: v for k, v in pristine.items() if "__pycache__" not in k
    }
    assert not (venv.site / ".radpatch").exists()

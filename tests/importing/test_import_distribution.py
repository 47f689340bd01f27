"""`radpatch import --distribution NAME`: a new module in a namespace directory two distributions share
(`ns/`, no `__init__.py`: rpns0 and rpns1, real wheels pip-installed into one venv) is NAME's, as
capture's `--distribution` says it. Without it the patch that only creates the module is refused
(no RECORD says whose it is) with the option to pass; with it, the entry names NAME, applies, gives
what GNU `patch -p1` gives, and reverts with the module gone. Generated: which of the two is named x
the module alone or beside a change of NAME's own file. The option's refusals: a name not installed,
an installed one that does not own the patch's files, one that is not among those sharing `ns/`."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.importing import Venv, gnu_diff, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

DISTS = ("rpns0", "rpns1")
NEW = "from ns import m0\n\n\ndef g():\n    return m0.f() + 9\n"
CASES = sample(list(itertools.product(DISTS, ("alone", "beside"))))


def _wheels(tmp: Path) -> list[Path]:
    """rpns0 and rpns1 sharing ns/ (ns/m0.py, ns/m1.py), and rpother with a package of its own."""
    out = [
        build_wheel(tmp / "w", d, "1.0", {f"ns/m{i}.py": f"def f():\n    return {i}\n"}) for i, d in enumerate(DISTS)
    ]
    return [*out, build_wheel(tmp / "w", "rpother", "2.0", {"other/__init__.py": "X = 1\n"})]


def _patch(tmp: Path, venv: Venv, edits: dict[str, str]) -> Path:
    """One patch file (paths under ns/, for -p1 -d ns): each file's installed text (none: new) -> text."""
    patch = tmp / "change.patch"
    parts = []
    for i, (rel, after) in enumerate(edits.items()):
        path = venv.site / "ns" / rel
        parts.append(gnu_diff(tmp / f"d{i}", rel, path.read_text() if path.exists() else "", after).stdout)
    patch.write_bytes(b"".join(parts))
    return patch


def _lines(err: str) -> list[str]:
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in err, err
    return lines


@pytest.mark.parametrize(("named", "form"), CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_a_new_module_in_a_shared_namespace_is_the_named_distributions(tmp_path: Path, named: str, form: str) -> None:
    wheels = _wheels(tmp_path)
    venv = pip_install(tmp_path / "venv", *wheels)
    own = f"m{DISTS.index(named)}.py"
    edits = {"new.py": NEW}
    if form == "beside":
        edits[own] = (venv.site / "ns" / own).read_text().replace("return", "return 10 +")
    patch = _patch(tmp_path, venv, edits)
    reg = tmp_path / "reg"
    if form == "alone":  # refused without the option, naming it
        run = venv.radpatch("import", str(patch), "-p1", "-d", "ns", "--out", str(reg))
        assert run.returncode == 1 and "--distribution DIST" in _lines(run.stderr)[1], run.stderr
    run = venv.radpatch("import", str(patch), "-p1", "-d", "ns", "--distribution", named, "--out", str(reg))
    assert run.returncode == 0, run.stderr
    assert yaml.safe_load((reg / "change.yaml").read_text())["distribution"] == named
    pristine = {rel: (venv.site / "ns" / rel).read_bytes() for rel in edits if (venv.site / "ns" / rel).exists()}
    applied = venv.radpatch("--registry", str(reg), "apply", "change")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    oracle = pip_install(tmp_path / "oracle", *wheels)
    gnu = gnu_patch(oracle.site / "ns", patch, 1)
    assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    for rel in edits:
        mine, want = (venv.site / "ns" / rel).read_text(), (oracle.site / "ns" / rel).read_text()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(want)), rel
    check = venv.radpatch("--registry", str(reg), "status", "--check", "change")
    assert check.returncode == 0, check.stdout + check.stderr
    reverted = venv.radpatch("--registry", str(reg), "revert", "change")
    assert reverted.returncode == 0, reverted.stderr
    assert not (venv.site / "ns" / "new.py").exists()
    assert {rel: (venv.site / "ns" / rel).read_bytes() for rel in pristine} == pristine


@pytest.mark.parametrize("case", ["not installed", "owns other files", "not sharing"])
def test_the_option_refuses_a_distribution_that_is_not_whose_the_files_are(tmp_path: Path, case: str) -> None:
    venv = pip_install(tmp_path / "venv", *_wheels(tmp_path))
    reg = tmp_path / "reg"
    if case == "owns other files":  # a change of rpns0's file, said to be rpns1's
        patch = _patch(tmp_path, venv, {"m0.py": "def f():\n    return 7\n", "new.py": NEW})
        run = venv.radpatch("import", str(patch), "-p1", "-d", "ns", "--distribution", "rpns1", "--out", str(reg))
        first, hint = _lines(run.stderr)
        assert run.returncode == 2 and "--distribution rpns1" in first and "rpns0" in first and "ns/m0.py" in first
        assert "leave --distribution out" in hint, run.stderr
    else:
        name = "rpnothere" if case == "not installed" else "rpother"
        patch = _patch(tmp_path, venv, {"new.py": NEW})
        run = venv.radpatch("import", str(patch), "-p1", "-d", "ns", "--distribution", name, "--out", str(reg))
        first, hint = _lines(run.stderr)
        assert f"--distribution {name}" in first, run.stderr
        if case == "not installed":
            assert run.returncode == 2 and "not installed" in first and "pip list" in hint, run.stderr
        else:
            assert run.returncode == 1 and all(d in first for d in DISTS) and "--distribution DIST" in hint
    assert not reg.exists()

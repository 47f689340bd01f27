"""att60 F09: a module in site-packages that no RECORD lists (`stray.py`, put there by hand) was refused
by `import` when a patch changed it alone ("no installed distribution owns stray.py"), but accepted
beside a change of the distribution's own file, and apply wrote it: a file pip never installed, which
`radpatch restore`, a reinstall and an uninstall never reach (the uninstall left it patched).

One rule now (docs/safety.md, "What is proved before a write"): radpatch patches the files a
distribution installed and the modules an entry creates. `import` refuses such a file alone and
beside the distribution's files alike, naming it and `--exclude` (apply's side:
tests/state/test_unlisted_module.py). On real wheels pip-installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import Venv, gnu_diff, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

MOD = "def f(x):\n    return x + 1\n"


def _venv(tmp: Path) -> Venv:
    venv = pip_install(
        tmp / "venv", build_wheel(tmp / "w", "rpunl", "1.0", {"rpunl/__init__.py": "", "rpunl/mod.py": MOD})
    )
    (venv.site / "stray.py").write_text("A = 1\n")
    return venv


def _patch(tmp: Path, beside: bool) -> Path:
    parts = [gnu_diff(tmp / "d0", "stray.py", "A = 1\n", "A = 2\n").stdout]
    if beside:
        parts.insert(0, gnu_diff(tmp / "d1", "rpunl/mod.py", MOD, MOD.replace("+ 1", "+ 2")).stdout)
    patch = tmp / "change.patch"
    patch.write_bytes(b"".join(parts))
    return patch


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside"])
def test_import_refuses_a_file_no_record_lists_alone_or_beside(tmp_path: Path, beside: bool) -> None:
    venv = _venv(tmp_path)
    patch = _patch(tmp_path, beside)
    reg = tmp_path / "reg"
    run = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 1 and len(lines) == 2 and "Traceback" not in run.stderr, run.stderr
    assert "stray.py is no installed distribution's file (no RECORD lists it)" in lines[0], run.stderr
    assert "--exclude 'stray.py'" in lines[1], run.stderr
    assert not reg.exists()
    if beside:  # the hint's way on: the distribution's own file imported alone
        run = venv.radpatch("import", str(patch), "-p1", "--exclude", "stray.py", "--out", str(reg))
        assert run.returncode == 0, run.stderr
        assert venv.radpatch("--registry", str(reg), "apply", "change").returncode == 0
    assert (venv.site / "stray.py").read_text() == "A = 1\n"

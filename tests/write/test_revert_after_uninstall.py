"""att60 F09 (issue 20/21): after `pip uninstall`, radpatch's record still names what pip left in
site-packages: the modules radpatch created (pip never installed them) and a patched file no RECORD
lists. `status` said "nothing is left to restore", and `revert` forgot the record and left them (a
created module kept the package importable as a namespace package; the patched file stayed patched
while its kept original was deleted), so after a reinstall `apply` was refused as drifted.

Now status names what is left, revert removes each created module and restores each patched file,
only where it is exactly as radpatch left it (else refused, naming it, and nothing is written), then
forgets; reinstalled, the entry applies again. On a real wheel pip-installed into a venv, and pip's
own uninstall.

A patched file no RECORD lists is what a record from before apply refused such files holds (the
att60 patch): it is made here by listing `stray.py` in RECORD for the apply and taking the row away
again before the uninstall (so pip leaves it, as it left the att60 one)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.lib.registry import entry_head, write_entry
from tests.lib.site import record_hash
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

FILES = {"rpgone/__init__.py": "", "rpgone/mod.py": "def f(x):\n    return x + 1\n"}
STRAY = b"A = 1\n"
RECORD = "rpgone-1.0.dist-info/RECORD"
Run = Callable[..., subprocess.CompletedProcess[str]]


def _entries(reg: Path) -> None:
    """`s`: changes rpgone/mod.py, creates rpgone/newm.py and top_hook.py; `t`: changes stray.py."""
    head = entry_head("s", "rpgone", {"m": "rpgone.mod", "n": "rpgone.newm", "h": "top_hook"})
    body = (
        "  - id: r\n    file: m\n    replace: {scope: f, find: x + 1, with: x + 2}\n"
        "  - id: n\n    file: n\n    create_module: {content: s/newm.py}\n"
        "  - id: h\n    file: h\n    create_module: {content: s/top_hook.py}\n"
    )
    write_entry(reg, "s", head + body, {"s/newm.py": "import os\n", "s/top_hook.py": "import sys\n"}, dedent=False)
    head = entry_head("t", "rpgone", {"st": "stray"})
    body = "  - id: a\n    file: st\n    set_constant: {name: A, from: '1', value: '2'}\n"
    write_entry(reg, "t", head + body, dedent=False)


def _installed(tmp_path: Path) -> tuple[Path, Path, Path, Run]:
    wheel = build_wheel(tmp_path / "wheels", "rpgone", "1.0", FILES)
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "--no-deps", "--no-index", str(wheel))
    site = site_packages(tmp_path / "venv")
    reg = tmp_path / "registry"
    _entries(reg)
    env = {k: v for k, v in os.environ.items() if k not in ("RADPATCH_REGISTRY", "RADPATCH_FAULT", "PYTHONPATH")}
    cmd = [sys.executable, "-m", "radpatch", "--python", str(python), "--registry", str(reg)]

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cmd, *argv], capture_output=True, text=True, env=env, timeout=120)

    return wheel, python, site, run


def _apply_then_uninstall(tmp_path: Path) -> tuple[Path, Path, Path, Run]:
    wheel, python, site, run = _installed(tmp_path)
    (site / "stray.py").write_bytes(STRAY)
    record = site / RECORD
    plain = record.read_text()
    record.write_text(plain + f"stray.py,sha256={record_hash(STRAY)},{len(STRAY)}\n")
    r = run("apply", "s", "t")
    assert r.returncode == 0, r.stderr
    record.write_text(plain)  # pip leaves stray.py: no RECORD lists it
    pip(python, "uninstall", "-y", "rpgone")
    assert (site / "rpgone/newm.py").is_file() and (site / "top_hook.py").is_file()
    assert (site / "stray.py").read_bytes() == b"A = 2\n"
    return wheel, python, site, run


def test_status_and_revert_after_uninstall_take_off_what_pip_left(tmp_path: Path) -> None:
    wheel, python, site, run = _apply_then_uninstall(tmp_path)
    out = run("status", "s", "t")
    assert "nothing is left to restore" not in out.stdout, out.stdout
    assert "rpgone/newm.py (a module radpatch created, exactly as it wrote it)" in out.stdout, out.stdout
    assert "top_hook.py (a module radpatch created, exactly as it wrote it)" in out.stdout, out.stdout
    assert "stray.py (a file the uninstall left, still patched exactly as radpatch wrote it)" in out.stdout
    check = run("status", "--check")
    assert check.returncode == 3, check.stderr
    assert "`radpatch revert s` removes rpgone/newm.py top_hook.py, then forgets the record" in check.stderr
    assert "`radpatch revert t` puts back the kept original of stray.py, then forgets the record" in check.stderr
    dry = run("revert", "--dry-run", "s", "t")
    assert dry.returncode == 0 and f"would remove {site / 'top_hook.py'} (a module the patch created)" in dry.stdout
    assert f"would restore {site / 'stray.py'} (its kept original; exactly as radpatch left it)" in dry.stdout
    assert (site / "top_hook.py").is_file() and (site / ".radpatch").is_dir()  # nothing written
    r = run("revert", "s", "t")
    assert r.returncode == 0, r.stderr
    assert "removed rpgone.newm, top_hook (radpatch created them)" in r.stdout, r.stdout
    assert "restored stray byte for byte" in r.stdout, r.stdout
    assert not (site / "rpgone").exists() and not (site / "top_hook.py").exists()
    assert (site / "stray.py").read_bytes() == STRAY
    assert not (site / ".radpatch").exists()
    gone = subprocess.run([str(python), "-c", "import rpgone"], capture_output=True, text=True, timeout=60)
    assert gone.returncode != 0 and "No module named 'rpgone'" in gone.stderr, gone  # no namespace package left
    pip(python, "install", "--no-deps", "--no-index", str(wheel))
    again = run("apply", "s")
    assert again.returncode == 0, again.stderr
    assert run("status", "--check", "s").returncode == 0


def test_revert_after_uninstall_refuses_a_created_module_edited_since(tmp_path: Path) -> None:
    _, _, site, run = _apply_then_uninstall(tmp_path)
    newm = site / "rpgone/newm.py"
    newm.write_text("import os\n# mine\n")
    out = run("status", "s")
    assert "rpgone/newm.py (a module radpatch created, changed since it wrote it)" in out.stdout, out.stdout
    assert "`radpatch revert s` refuses rpgone/newm.py until it is as radpatch left it" in out.stdout
    before = {p: p.read_bytes() for p in (newm, site / "top_hook.py", site / "stray.py")}
    r = run("revert", "s", "t")
    assert r.returncode == 1 and "rpgone/newm.py" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 2, r.stderr
    assert {p: p.read_bytes() for p in before} == before  # nothing written, nothing removed
    assert (site / ".radpatch/record.json").is_file()
    newm.write_text("import os\n")  # as radpatch wrote it: revert takes everything off
    assert run("revert", "s", "t").returncode == 0
    assert not (site / "rpgone").exists() and (site / "stray.py").read_bytes() == STRAY

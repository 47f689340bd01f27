"""att60 F09: apply wrote a module no RECORD lists (`stray.py`, put in site-packages by hand) beside
the distribution's own files: a file `radpatch restore`, a reinstall and an uninstall never reach.
The rule (docs/safety.md, "What is proved before a write"; import's side:
tests/importing/test_import_unlisted_file.py): `apply` and `status` read such an entry incompatible,
naming the file, and nothing is written. A module an entry creates stays allowed
(tests/write/test_create_module.py). On a real wheel pip-installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.importing import pip_install
from tests.lib.registry import entry_head, write_entry
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

MOD = "def f(x):\n    return x + 1\n"


def test_apply_and_status_refuse_an_entry_whose_module_no_record_lists(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "w", "rpunl", "1.0", {"rpunl/__init__.py": "", "rpunl/mod.py": MOD})
    venv = pip_install(tmp_path / "venv", wheel)
    (venv.site / "stray.py").write_text("A = 1\n")
    reg = tmp_path / "reg"
    head = entry_head("t", "rpunl", {"m": "rpunl.mod", "st": "stray"})
    body = (
        "  - id: r\n    file: m\n    replace: {scope: f, find: x + 1, with: x + 2}\n"
        "  - id: a\n    file: st\n    set_constant: {name: A, from: '1', value: '2'}\n"
    )
    write_entry(reg, "t", head + body, dedent=False)
    run = venv.radpatch("--registry", str(reg), "apply", "t")
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 1 and len(lines) == 2 and "Traceback" not in run.stderr, run.stderr
    assert "stray.py is no file of the distribution (its RECORD does not list it)" in lines[0], run.stderr
    assert "take it out of t" in lines[1], run.stderr
    assert (venv.site / "stray.py").read_text() == "A = 1\n" and (venv.site / "rpunl/mod.py").read_text() == MOD
    status = venv.radpatch("--registry", str(reg), "status", "t")
    assert "incompatible" in status.stdout and "stray.py is no file of the distribution" in status.stdout

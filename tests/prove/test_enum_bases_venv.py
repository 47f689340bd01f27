"""The enum-base refusal on a real wheel pip-installed into a venv, radpatch pointed at its
interpreter with --python (att55 F2's own shape): the base's module is read from that venv's
site-packages, never imported by radpatch. Oracle: the venv's interpreter imports the package
after the run: the enum's members are what they were, and a method the patch adds is there."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.lib.enum_bases import ENTRY, ITEMS, package
from tests.lib.generated import sample
from tests.lib.venvs import make_venv, pip
from tests.lib.wheels import build_wheel

CASES = sample(list(itertools.product(("absolute", "reexport", "two-levels", "not-enum"), ("plain", "method"))))


def _members(python: Path) -> list[str]:
    code = "import rpmodes.core as c; print(','.join(getattr(c.Mode, '__members__', ())))"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


@pytest.mark.wheel
@pytest.mark.parametrize(("where", "item"), CASES)
def test_a_constant_into_an_imported_enum_is_refused_in_a_venv(
    where: str, item: str, tmp_path: Path, write_registry: Any, radpatch: Any
) -> None:
    wheel = build_wheel(tmp_path / "wheels", "rpmodes", "1.0", package(where, "Enum"))
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "--no-index", "--quiet", str(wheel))
    had = _members(python)
    reg = write_registry("p", ENTRY, {"payload.py": ITEMS[item]("Enum")})
    r = radpatch("--registry", str(reg), "--python", str(python), "apply", "p")
    if item == "plain" and where != "not-enum":
        assert r.code == 1 and "would become a member" in r.err and "Traceback" not in r.err, (r.out, r.err)
    else:
        assert r.code == 0, (r.out, r.err)
    assert _members(python) == had

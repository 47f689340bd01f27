"""att60 F08: `capture a --out reg2` while radpatch's record has `a` applied (captured into reg1)
said "a would require a ... no registry given holds its entry", and following its hint (--registry
reg1) led to "reg1/a.yaml exists already": it never said the name was taken. Now it says so, and
its hint (another NAME, with the registry holding a.yaml) is followed here to a capture on top of a."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.lib.importing import pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

MOD = "def f(x):\n    return x + 1\n\n\ndef g():\n    return 2\n"


def test_a_name_applied_from_another_registry_is_said_taken_and_the_hint_captures_on_top(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "wheel", "rptaken", "1.0", {"rptaken/__init__.py": "", "rptaken/mod.py": MOD})
    venv = pip_install(tmp_path / "venv", wheel)
    mod = venv.site / "rptaken" / "mod.py"
    reg1, reg2 = tmp_path / "reg1", tmp_path / "reg2"

    def capture(name: str, out: Path, *registry: str) -> tuple[int, str, str]:
        run = venv.radpatch(
            *registry, "capture", name, "--distribution", "rptaken", "--wheel", str(wheel), "--out", str(out)
        )
        return run.returncode, run.stdout, run.stderr

    mod.write_text(MOD.replace("x + 1", "x + 5"))
    assert capture("a", reg1)[0] == 0
    mod.write_text(MOD.replace("x + 1", "x + 5").replace("return 2", "return 22"))
    code, _, err = capture("a", reg2)
    assert code == 1 and "Traceback" not in err, err
    first, hint = err.strip().splitlines()
    assert "the name a is taken" in first and "would require" not in first, err
    assert "rptaken/mod.py" in first, err
    assert "choose another NAME" in hint and "--registry DIR capture a_2" in hint and "a.yaml" in hint, err
    assert not (reg2 / "a.yaml").exists()
    code, out, err = capture("a_2", reg2, "--registry", str(reg1))  # the hint, DIR being reg1
    assert code == 0, err
    assert yaml.safe_load((reg2 / "a_2.yaml").read_text())["requires"] == ["a"], out

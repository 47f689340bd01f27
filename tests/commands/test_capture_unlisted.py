"""fix64 B: `radpatch capture` took a `.py` file no RECORD lists (a module made by hand, or a stray
file someone edited) as a module its entry creates; `apply` recorded radpatch as its creator, and
`revert` then deleted the user's file. capture now follows apply's rule for a file no RECORD lists
(docs/safety.md, `refuse_unlisted`): named, it is refused (file and the way to ship it, one error
and one hint line, nothing written); in a scan it is left out and said, the rest is captured, and
`revert` leaves it as it was. A module radpatch created and someone edited since is still captured
on top of it. On a real wheel pip-installed into a venv, radpatch its own process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import Venv, pip_install
from tests.lib.registry import write_entry
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

MOD = "def f(x):\n    return x + 1\n"
STRAY = "def helper():\n    return 42\n"  # a module the user wrote into the package by hand
REASON = "no RECORD lists it and radpatch did not create it"


def install(tmp_path: Path) -> tuple[Venv, Path]:
    wheel = build_wheel(tmp_path / "wheel", "rpunl", "1.0", {"rpunl/__init__.py": "", "rpunl/mod.py": MOD})
    return pip_install(tmp_path / "venv", wheel), wheel


def capture(venv: Venv, wheel: Path, out: Path, *paths: str) -> tuple[int, str, str]:
    run = venv.radpatch("capture", "t", *paths, "--distribution", "rpunl", "--wheel", str(wheel), "--out", str(out))
    return run.returncode, run.stdout, run.stderr


def tree(venv: Venv) -> dict[str, bytes]:
    return {
        p.relative_to(venv.site).as_posix(): p.read_bytes()
        for p in sorted(venv.site.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.mark.parametrize("edited", [False, True])
def test_a_named_file_no_record_lists_is_refused_and_nothing_is_written(tmp_path: Path, edited: bool) -> None:
    """Made by hand, or there before and edited by hand since: capture cannot tell the two apart,
    and has no bytes of it from before either way."""
    venv, wheel = install(tmp_path)
    stray = venv.site / "rpunl" / "stray.py"
    stray.write_text(STRAY)
    if edited:
        stray.write_text(STRAY.replace("42", "43"))
    before = tree(venv)

    code, out, err = capture(venv, wheel, tmp_path / "reg", "rpunl/stray.py")

    assert code == 1 and "Traceback" not in err, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    assert lines[0] == (
        f"radpatch: error: rpunl/stray.py is no installed distribution's file ({REASON}: recorded, `revert` would "
        "delete a file radpatch never wrote)"
    ), err
    assert "create_module" in lines[1] and "move it out of site-packages" in lines[1], err
    assert tree(venv) == before
    assert not (tmp_path / "reg").exists() or not list((tmp_path / "reg").iterdir())


def test_a_scan_leaves_it_out_says_so_and_revert_leaves_it_there(tmp_path: Path) -> None:
    """The report: capture, then revert, deleted the user's module. Now the scan captures the
    edit of the distribution's own file only, and revert puts that file back and the module stays."""
    venv, wheel = install(tmp_path)
    stray = venv.site / "rpunl" / "stray.py"
    stray.write_text(STRAY)
    (venv.site / "rpunl" / "mod.py").write_text(MOD.replace("x + 1", "x + 5"))
    reg = tmp_path / "reg"

    code, out, err = capture(venv, wheel, reg)

    assert code == 0, out + err
    assert f"left out rpunl/stray.py: {REASON}" in out, out
    entry = yaml.safe_load((reg / "t.yaml").read_text())
    assert "create_module" not in json.dumps(entry["rewrites"]) and "stray" not in json.dumps(entry), entry
    record = json.loads((venv.site / ".radpatch" / "record.json").read_text())["patches"]["t"]
    assert [f["path"] for f in record["files"]] == ["rpunl/mod.py"], record
    reverted = venv.radpatch("--registry", str(reg), "revert", "t")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    assert stray.read_text() == STRAY
    assert (venv.site / "rpunl" / "mod.py").read_text() == MOD


def test_a_scan_whose_edit_imports_it_is_refused_naming_the_import(tmp_path: Path) -> None:
    venv, wheel = install(tmp_path)
    (venv.site / "rpunl" / "stray.py").write_text(STRAY)
    (venv.site / "rpunl" / "mod.py").write_text("from rpunl.stray import helper\n\n\n" + MOD)
    before = tree(venv)

    code, out, err = capture(venv, wheel, tmp_path / "reg")

    assert code == 1 and "Traceback" not in err, out + err
    assert f"mod.py:1 imports rpunl.stray, which is rpunl/stray.py: left out ({REASON}" in err, err
    assert tree(venv) == before


def test_a_module_an_entry_created_and_edited_by_hand_since_is_captured_on_top(tmp_path: Path) -> None:
    """What capture still takes in beside RECORD's files: radpatch's own created module, edited."""
    venv, wheel = install(tmp_path)
    reg = tmp_path / "reg"
    entry = """\
        summary: n
        description: creates rpunl.made
        distribution: rpunl
        supported: ">=1.0,<2"
        modules:
          made: rpunl.made
        rewrites:
          - {id: create, file: made, create_module: {content: made.py}}
        """
    write_entry(reg, "n", entry, {"made.py": STRAY})
    assert venv.radpatch("--registry", str(reg), "apply", "n").returncode == 0
    made = venv.site / "rpunl" / "made.py"
    made.write_text(STRAY.replace("42", "43"))

    run = venv.radpatch("--registry", str(reg), "capture", "t", "--distribution", "rpunl", "--out", str(reg))

    assert run.returncode == 0, run.stdout + run.stderr
    captured = yaml.safe_load((reg / "t.yaml").read_text())
    assert captured["requires"] == ["n"] and "create_module" not in json.dumps(captured["rewrites"]), captured
    reverted = venv.radpatch("--registry", str(reg), "revert", "t")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    assert made.read_text() == STRAY

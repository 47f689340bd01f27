"""Records written before apply kept each link's result (att21c F8, before 90541a9) name the
result's sha256 but .radpatch/originals/ holds only the bytes from before each patch. Undo of such
an entry must still be right: the kept original when the file is exactly as radpatch left it, the
applied revision taken off (its result rebuilt from the original and the file, proven by the
recorded sha256: state.kept), the structural inverse proven to give the recorded original's code,
or a clear refusal with the command that fixes it; never a wrong file, and "byte for byte" only
when true.

The old record is built the honest way: apply with the current writer (the record format did not
change when results began to be kept), then remove from originals/ each link's kept result, which
an older radpatch never wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.lib.installed import Demo, Env, alpha_entry
from tests.lib.registry import write_entry

ALPHA = "rphard_demo/alpha.py"
FIND = "y = x + 1"
NOTE = "# a local note\n"


def _entry(n: int) -> str:
    return alpha_entry("insert_after", "compute", FIND, f"y = y + {n}")


def _patched(pristine: str, n: int | None, note: str) -> str:
    """The pristine file with the note at `note` ("top", or "after": right below the patch's
    line), and entry n's line after FIND (None: not applied)."""
    out = [NOTE] if note == "top" else []
    for line in pristine.splitlines(keepends=True):
        out.append(line)
        if line.strip() == FIND:
            out += [f"    y = y + {n}\n"] if n is not None else []
            out += [NOTE] if note == "after" else []
    return "".join(out)


def _as_old_radpatch_left_it(env: Env) -> None:
    """Drop each link's kept result from originals/ (its original stays, as older radpatch kept it)."""
    record = json.loads((env.state_dir / "record.json").read_text())
    for f in [f for r in record["patches"].values() for f in r["files"]]:
        result = env.state_dir / "originals" / f["patched_sha256"]
        assert result.is_file() and f["original_sha256"] != f["patched_sha256"]  # the current writer keeps it
        result.unlink()
        assert (env.state_dir / "originals" / f["original_sha256"]).is_file()


@pytest.fixture
def low(demo_env: Env, tmp_path: Path) -> tuple[Env, Path, str]:
    reg = tmp_path / "reg"
    write_entry(reg, "low", _entry(100))
    demo_env.registries = (*demo_env.registries, reg)
    pristine = demo_env.path(ALPHA).read_text()
    out = demo_env.run("apply", "low")
    assert out.returncode == 0, out.stdout + out.stderr
    assert demo_env.path(ALPHA).read_text() == _patched(pristine, 100, "")
    _as_old_radpatch_left_it(demo_env)
    return demo_env, reg, pristine


@pytest.mark.parametrize(
    ("note", "revised", "op"),
    [("", True, "revert"), ("top", False, "revert"), ("top", True, "revert"), ("top", True, "apply")],
)
def test_an_old_record_comes_off_right_with_the_truth_said(
    low: tuple[Env, Path, str], note: str, revised: bool, op: str
) -> None:
    """A comment line added above, the entry revised (or not): revert gives the pristine file with
    the comment, and a re-apply puts the current revision on it (before: with the entry revised,
    refused with 'the inserted statements are not after `find`'). "byte for byte" only without it."""
    env, reg, pristine = low
    path = env.path(ALPHA)
    path.write_text(_patched(pristine, 100, note))
    if revised:
        write_entry(reg, "low", _entry(400))
    out = env.run(op, "low")
    assert out.returncode == 0, out.stdout + out.stderr
    assert path.read_text() == _patched(pristine, 400 if op == "apply" else None, note)
    if op == "revert":
        assert ("restored byte for byte" in out.stdout) == (not note), out.stdout
        assert ("(comment and layout edits kept)" in out.stdout) == bool(note), out.stdout
    status = json.loads(env.run("status", "--json", "low").stdout)[0]
    assert status["state"] == ("applied" if op == "apply" else "not-applied"), status


def test_an_old_record_whose_change_cannot_be_told_from_the_comment_beside_it_is_refused_clearly(
    low: tuple[Env, Path, str], demo: Demo
) -> None:
    """The note right below the patch's line (one edit with it) and the entry revised: neither the
    applied revision (its result cannot be rebuilt) nor the current one takes the patch off.
    Refused, saying why, the file untouched; the command the hint gives gets past it."""
    env, reg, pristine = low
    path = env.path(ALPHA)
    path.write_text(_patched(pristine, 100, "after"))
    write_entry(reg, "low", _entry(400))
    for op in ("revert", "apply"):
        out = env.run(op, "low")
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stdout + out.stderr
        assert "kept no copy of what the applied revision wrote" in out.stderr, out.stderr
        assert f"radpatch restore {ALPHA}" in out.stderr, out.stderr
        assert path.read_text() == _patched(pristine, 100, "after")
    restored = env.run("restore", ALPHA, "--wheel", str(demo.wheel))  # offline here: the wheel it came from
    assert restored.returncode == 0, restored.stdout + restored.stderr
    out = env.run("apply", "low")
    assert out.returncode == 0, out.stdout + out.stderr
    assert path.read_text() == _patched(pristine, 400, "")

"""att20c F3: a patch whose hunks change nothing (`-class Counter:` / `+class Counter:`) is refused
at import, as a comments-only one is; before, import wrote an entry with `rewrites: []` that made
every later `status` on the directory fail. Generated: seeded lines of real modules, each turned
into a hunk that removes and re-adds it, imported by the real CLI into a registry that holds a
good entry already, whose `status` must still work afterwards."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from tests.lib.importing import PACKAGE, Venv

pytestmark = pytest.mark.wheel

MODULES = ("std_textwrap", "std_shlex", "vllm_0_33_0_core", "vllm_0_33_0_coordinator")


def _noop_hunk(rel: str, lines: list[str], at: int) -> str:
    """A unified hunk (one line of context each side) that removes line `at` (0-based) and adds it back."""
    lo, hi = max(at - 1, 0), min(at + 2, len(lines))
    body = [f" {line}" for line in lines[lo:at]] + [f"-{lines[at]}", f"+{lines[at]}"]
    body += [f" {line}" for line in lines[at + 1 : hi]]
    n = hi - lo
    return f"--- a/{rel}\n+++ b/{rel}\n@@ -{lo + 1},{n} +{lo + 1},{n} @@\n" + "".join(body)


@pytest.mark.parametrize("seed", range(2))
def test_a_hunk_that_changes_nothing_is_refused_and_the_registry_stays_readable(
    venv: Venv, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    reg = tmp_path / "reg"
    good_rel = f"{PACKAGE}/std_fnmatch.py"
    original = (venv.site / good_rel).read_text()
    changed = original.replace("import os\n", "import os\nRP_PROBE = 1\n", 1)
    assert changed != original
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.py").write_text(original)
    (tmp_path / "b.py").write_text(changed)
    diff = subprocess.run(
        [
            "diff",
            "-u",
            "--label",
            f"a/{good_rel}",
            "--label",
            f"b/{good_rel}",
            str(tmp_path / "a" / "f.py"),
            str(tmp_path / "b.py"),
        ],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    good = tmp_path / "good.patch"
    good.write_text(diff)
    assert venv.radpatch("import", str(good), "-p1", "--out", str(reg)).returncode == 0
    for k, module in enumerate(rng.sample(MODULES, 2)):
        rel = f"{PACKAGE}/{module}.py"
        lines = (venv.site / rel).read_text().splitlines(keepends=True)
        code = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
        patch = tmp_path / f"noop{k}.patch"
        patch.write_text(_noop_hunk(rel, lines, rng.choice(code)))
        out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
        assert out.returncode in (1, 2), out.stdout + out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr
        assert f"no code change in {rel}: nothing to import" in out.stderr, out.stderr
        assert not (reg / f"noop{k}.yaml").exists()
    status = venv.radpatch("--registry", str(reg), "status")
    assert status.returncode == 0, status.stderr

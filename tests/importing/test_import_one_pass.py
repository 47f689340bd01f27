"""Issue 20: `radpatch import` runs each entry's rewrites once per file. The byte-identical count
it prints is measured on the plan apply's dry run proves (importing.dry_run), not on a second run of
the rewrites (importing.replay), and it still says what applying the written entries gives.

Generated series on real modules of the corpus (tests/lib/importing.edit): one patch, two patches
stacked on one module, a patch that creates a module and one that then changes it; with and
without --supported. radpatch runs in this process (the CLI, on a pip-installed venv) with every
run of the rewrite runner counted: no entry runs forward twice on the same input of the same file
(the reverse proof's re-run on the undone bytes is another input). Then the written entries are
applied through the CLI and every file compared with what GNU patch made of the same series: the
count the import printed must be the one found there."""

from __future__ import annotations

import hashlib
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from radpatch.cli import cli
from radpatch.rewrite import runner
from tests.lib.generated import seeds
from tests.lib.importing import PACKAGE, Venv, corpus_files, edit, gnu_diff, gnu_patch

pytestmark = pytest.mark.wheel

MODULES = ("textwrap", "shlex", "fnmatch", "calendar")
SHAPES = ("one", "stacked", "created")


def _series(tmp: Path, seed: int, shape: str) -> tuple[list[Path], dict[str, str]]:
    """The patch files of a generated series, and every file it changes as the series leaves it."""
    rng = random.Random(seed)
    rel = f"{PACKAGE}/std_{rng.choice(MODULES)}.py"
    first = corpus_files()[rel].decode()
    second = edit(first, rng, seed * 10)
    steps: list[tuple[str, str | None, str]] = [(rel, first, second)]
    if shape == "stacked":
        steps.append((rel, second, edit(second, rng, seed * 10 + 1)))
    if shape == "created":
        new = f"{PACKAGE}/made_{seed}.py"
        steps.append((new, None, "def made():\n    return 1\n"))
        steps.append((new, "def made():\n    return 1\n", "def made():\n    return 2\n"))
    patches, result = [], {}
    for n, (path, before, after) in enumerate(steps):
        diff = gnu_diff(tmp / f"d{n}", path, before if before is not None else "", after).stdout
        if before is None:
            diff = re.sub(rb"^--- a/\S+.*$", b"--- /dev/null", diff, count=1, flags=re.MULTILINE)
        patch = tmp / f"{n:04d}-step.patch"
        patch.write_bytes(diff)
        patches.append(patch)
        result[path] = after
    return patches, result


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("supported", [None, ">=1"])
@pytest.mark.parametrize("seed", seeds(2))
def test_import_runs_each_entry_once_and_counts_what_apply_gives(
    venv: Venv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, supported: str | None, seed: int
) -> None:
    patches, _ = _series(tmp_path, seed, shape)
    runs: Counter[tuple[str, str, str]] = Counter()
    real = runner._run

    def counted(patch, order, src, filename, undo, applied):  # type: ignore[no-untyped-def]
        if not undo:
            runs[(patch.name, Path(filename).name, hashlib.sha256(src.text.encode()).hexdigest())] += 1
        return real(patch, order, src, filename, undo, applied)

    monkeypatch.setattr(runner, "_run", counted)
    reg = tmp_path / "reg"
    args = ["--python", str(venv.python), "import", *map(str, patches), "-p1", "--out", str(reg)]
    done = CliRunner().invoke(cli, [*args, *(["--supported", supported] if supported else [])], prog_name="radpatch")
    assert done.exit_code == 0, done.output
    assert runs, "the import ran no rewrite"
    twice = [k for k, n in runs.items() if n > 1]
    assert not twice, f"rewrites run more than once on one input: {twice}\n{done.output}"
    said = re.search(r"^(\d+) of (\d+) files? byte-identical to patch's result", done.output, re.MULTILINE)
    assert said, done.output

    gnu = tmp_path / "gnu"
    shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE)
    for p in patches:
        assert gnu_patch(gnu, p, 1).returncode == 0, p.read_text()
    names = [p.stem for p in patches if (reg / f"{p.stem}.yaml").exists()]
    if supported:  # written as asked; the installed 1.0.0 is in range, so the entries apply here
        assert all(f"supported: '{supported}'" in (reg / f"{n}.yaml").read_text() for n in names)
    applied = venv.radpatch("--registry", str(reg), "apply", *names)
    assert applied.returncode == 0, applied.stderr
    changed = {rel for p in patches for rel in re.findall(rf"^\+\+\+ b/({PACKAGE}/\S+)", p.read_text(), re.MULTILINE)}
    same = sum((venv.site / rel).read_bytes() == (gnu / rel).read_bytes() for rel in changed)
    assert (int(said[1]), int(said[2])) == (same, len(changed)), done.output

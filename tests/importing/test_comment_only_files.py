"""A file whose patch changes only comments or layout does not sink the patch's other files: it is
not imported (an entry rewrites code and cannot say it), the import says which file and why, and
the other files are imported, applied by the engine and compared with what GNU patch makes of the
same patch file. Generated: seeded comment-only edits (a trailing comment, a comment line, a blank
line) of real modules, next to seeded code edits of others; and as a series, a comment-only patch
before a code patch of the same file, which then requires nothing."""

from __future__ import annotations

import ast
import random
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import PACKAGE, Venv, edit, gnu_diff, gnu_patch

pytestmark = pytest.mark.wheel

MODULES = ("std_textwrap", "std_shlex", "std_fnmatch", "std_calendar", "vllm_0_33_0_core")


def _comment_only(text: str, rng: random.Random) -> str:
    """One comment-or-layout edit of a module's code line (its syntax tree unchanged)."""
    lines = text.split("\n")
    code = [i for i, ln in enumerate(lines) if re.fullmatch(r"\s*[A-Za-z_][\w.]* = [\w.]+", ln)]
    at = rng.choice(code)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    how = rng.choice(("trailing", "line", "blank"))
    if how == "trailing":
        lines[at] += "  # tuned by the team"
    elif how == "line":
        lines.insert(at, f"{indent}# the team's note")
    else:
        lines.insert(at, "")
    out = "\n".join(lines)
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(text)) and out != text
    return out


@pytest.mark.parametrize("seed", range(3))
def test_a_comment_only_file_is_said_and_the_others_are_imported(venv: Venv, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    quiet, *coded = rng.sample(MODULES, 3)
    rels = {m: f"{PACKAGE}/{m}.py" for m in (quiet, *coded)}
    pristine = {m: (venv.site / rels[m]).read_text() for m in rels}
    texts = {quiet: _comment_only(pristine[quiet], rng)}
    for m in coded:
        texts[m] = edit(pristine[m], rng, seed)
    order = rng.sample(list(rels), 3)  # the comment-only file anywhere in the patch
    patch = tmp_path / f"mixed{seed}.patch"
    patch.write_bytes(b"".join(gnu_diff(tmp_path / f"d{m}", rels[m], pristine[m], texts[m]).stdout for m in order))
    gnu = tmp_path / "gnu"
    shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    assert gnu_patch(gnu, patch, 1).returncode == 0

    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert f"not imported: {rels[quiet]}: the patch changes only comments or layout" in out.stdout, out.stdout
    entry = yaml.safe_load((reg / f"{patch.stem}.yaml").read_text())
    assert sorted(entry["modules"].values()) == sorted(rels[m][:-3].replace("/", ".") for m in coded)
    assert venv.radpatch("--registry", str(reg), "apply", patch.stem).returncode == 0
    for m in coded:  # what patch gives, as code
        mine, theirs = (venv.site / rels[m]).read_text(), (gnu / rels[m]).read_text()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs)), m
    # the comment-only file keeps its installed bytes; patch's differs from it only in comments or layout
    assert (venv.site / rels[quiet]).read_text() == pristine[quiet]
    assert (gnu / rels[quiet]).read_text() == texts[quiet]


def test_a_comment_only_patch_of_a_series_writes_no_entry_and_the_next_requires_nothing(
    venv: Venv, tmp_path: Path
) -> None:
    rng = random.Random(7)
    rel = f"{PACKAGE}/std_shlex.py"
    pristine = (venv.site / rel).read_text()
    commented = _comment_only(pristine, rng)
    coded = edit(commented, rng, 7)
    first, second = tmp_path / "0001-note.patch", tmp_path / "0002-code.patch"
    first.write_bytes(gnu_diff(tmp_path / "d1", rel, pristine, commented).stdout)
    second.write_bytes(gnu_diff(tmp_path / "d2", rel, commented, coded).stdout)
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(first), str(second), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert f"{first}: no entry" in out.stdout and "not imported" in out.stdout, out.stdout
    assert not (reg / "0001-note.yaml").exists()
    assert "requires" not in yaml.safe_load((reg / "0002-code.yaml").read_text())
    assert venv.radpatch("--registry", str(reg), "apply", "0002-code").returncode == 0
    gnu = tmp_path / "gnu"
    shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    (gnu / rel).write_text(pristine)
    for p in (first, second):
        assert gnu_patch(gnu, p, 1).returncode == 0
    mine, theirs = (venv.site / rel).read_text(), (gnu / rel).read_text()
    assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs))


def test_only_comment_only_files_is_refused_naming_the_first(venv: Venv, tmp_path: Path) -> None:
    rel = f"{PACKAGE}/std_fnmatch.py"
    pristine = (venv.site / rel).read_text()
    patch = tmp_path / "note.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", rel, pristine, _comment_only(pristine, random.Random(3))).stdout)
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert out.returncode == 1 and f"{rel}: the patch changes only comments or layout" in out.stderr
    assert f"--exclude '{rel}'" in out.stderr and not (tmp_path / "reg").exists()

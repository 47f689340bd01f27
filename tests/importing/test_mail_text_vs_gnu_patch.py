"""Text GNU patch skips or reads as a name line, which radpatch refused (issue 20): a `--- ` line with no
`+++ ` after it (a hunk under `--- a/m.py` alone, mail prose), a `+++ ` line alone, an undecodable byte
or a BOM before the first header, `*** ` / `--- ` prose (not a context diff: that is `***************`
then `*** N`), a normal diff's lines quoted before any header (GNU looks for one only after a header),
and a git combined diff (`@@@`, a merge's): GNU skips it and applies the file's other sections; alone,
GNU finds only garbage. Each case is checked against GNU patch on the same file: what radpatch reads
is what GNU applies, and where GNU applies nothing, radpatch refuses with file:line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from radpatch.importing import hunks, unified
from tests.lib.importing import PACKAGE, Venv, gnu_diff, plain_gnu_patch

OLD = {"m.py": "x = 1\ny = 2\nz = 3\n", "n.py": "a = 1\nb = 2\n"}
NEW = {"m.py": "x = 1\ny = 20\nz = 3\n", "n.py": "a = 10\nb = 2\n"}
M_HUNK = "@@ -1,3 +1,3 @@\n x = 1\n-y = 2\n+y = 20\n z = 3\n"
N_DIFF = "--- a/n.py\n+++ b/n.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 10\n b = 2\n"
COMBINED = (
    "diff --cc m.py\nindex 6dae10a,f3bed5b..b3cbae2\n--- a/m.py\n+++ b/m.py\n"
    "@@@ -1,3 -1,3 +1,3 @@@\n  x = 1\n- y = 20\n -y = 22\n++y = 222\n  z = 3\n"
)
CASES = {  # name -> (patch text, the files GNU patch changes)
    "minus line alone": ("--- a/m.py\n" + M_HUNK, {"m.py"}),
    "plus line alone": ("+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "prose minus line": ("Subject: x\n\nsee --- below\n--- a/m.py\nsome prose\n" + M_HUNK, {"m.py"}),
    "mail separator": ("Subject: x\n\n--- Original Message ---\nhi\n\n--- a/m.py\n+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "stars prose": ("Subject: x\n\n*** Important ***\n--- read on\n\n--- a/m.py\n+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "byte before": ("\udcff--- a/m.py\n+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "bom before": ("\ufeff--- a/m.py\n+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "quoted normal diff": ("Subject: x\n\nwas:\n10a11\n> quoted\n\n--- a/m.py\n+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "format-patch stat": ("Subject: x\n\n---\n m.py | 2 +-\n\n--- a/m.py\n+++ b/m.py\n" + M_HUNK, {"m.py"}),
    "combined then plain": ("Subject: merge\n\n" + COMBINED + N_DIFF, {"n.py"}),
    "combined alone": ("Subject: merge\n\n" + COMBINED, set()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_text_gnu_patch_skips_is_skipped_and_what_it_applies_is_read(tmp_path: Path, case: str) -> None:
    text, changed = CASES[case]
    data = text.encode("utf-8", "surrogateescape")
    (tmp_path / "p.patch").write_bytes(data)
    work = tmp_path / "gnu"
    work.mkdir()
    for name, content in OLD.items():
        (work / name).write_text(content)
    gnu = plain_gnu_patch(work, tmp_path / "p.patch")
    assert {n for n in OLD if (work / n).read_text() != OLD[n]} == changed, gnu.stdout + gnu.stderr
    if not changed:
        assert gnu.returncode == 2 and "Only garbage" in gnu.stderr, gnu.stdout + gnu.stderr
        with pytest.raises(unified.MalformedPatch) as caught:
            unified.parse("p.patch", data, 1)
        assert caught.value.message.startswith("p.patch:7: m.py: a combined diff"), caught.value.message
        assert "git diff M^1 M" in (caught.value.hint or "")
        return
    assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    parsed = unified.parse("p.patch", data, 1)
    got = {}
    for section in parsed.files:
        name = section.old_name or section.new_name
        assert name in OLD, section
        got[name] = hunks.apply(section, OLD[name]).text
    assert got == {n: (work / n).read_text() for n in changed}
    assert [line.split(": ")[1] for line in parsed.skipped] == (["m.py"] if "combined" in case else [])


def test_a_git_merge_diff_is_combined_as_git_writes_it(tmp_path: Path) -> None:
    """The `@@@` hunk header above is git's own: a merge of two edits of one line, shown by `git show`."""
    if shutil.which("git") is None:
        pytest.skip("no git")

    def git(*args: str) -> str:
        env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "PATH": "/usr/bin:/bin"}
        env["GIT_COMMITTER_EMAIL"] = "a@b"
        done = subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True, env=env, check=False)
        return done.stdout

    git("init", "-q", "-b", "main")
    (tmp_path / "m.py").write_text(OLD["m.py"])
    git("add", "m.py")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "side")
    (tmp_path / "m.py").write_text(OLD["m.py"].replace("y = 2", "y = 22"))
    git("commit", "-qam", "side")
    git("checkout", "-q", "main")
    (tmp_path / "m.py").write_text(NEW["m.py"])
    git("commit", "-qam", "main")
    git("merge", "-q", "side")
    (tmp_path / "m.py").write_text(OLD["m.py"].replace("y = 2", "y = 222"))
    git("commit", "-qam", "merge")
    shown = git("show", "--format=", "HEAD")
    assert shown.startswith("diff --cc m.py\n") and COMBINED.split("\n", 2)[2] in shown, shown


@pytest.mark.wheel
def test_import_says_the_combined_diff_it_skipped_and_imports_the_rest(venv: Venv, tmp_path: Path) -> None:
    rel = f"{PACKAGE}/std_textwrap.py"
    original = (venv.site / rel).read_text()
    after = original.replace("        self.width = width\n", "        self.width = width + 0\n", 1)
    merged = COMBINED.replace("m.py", f"{PACKAGE}/std_shlex.py")
    patch = tmp_path / "merge.patch"
    patch.write_bytes(b"Subject: merge\n\n" + merged.encode() + gnu_diff(tmp_path / "d", rel, original, after).stdout)
    out = venv.radpatch("import", "-p1", "--out", str(tmp_path / "reg"), str(patch))
    assert out.returncode == 0, out.stderr
    said = [line.strip() for line in out.stdout.splitlines() if "combined diff" in line]
    assert said == [
        f"{patch}:7: {PACKAGE}/std_shlex.py: a combined diff (`@@@`, git's diff of a merge against its parents), "
        "which GNU patch does not apply: skipped; to import the merge's change, give its diff against one parent: "
        "git diff M^1 M (git show -m --first-parent M)"
    ], out.stdout
    assert venv.radpatch("--registry", str(tmp_path / "reg"), "apply", "merge").returncode == 0
    assert (venv.site / rel).read_text() == after

"""A patch file holding, beside a unified section, a section in a form GNU patch applies and radpatch does
not read (att60 F02): a normal diff (`diff`), an ed script (`diff -e`), a unified diff indented as a mail
quotes it. radpatch skipped it as preamble, imported the unified section alone and said "1 of 1 file
byte-identical", while GNU patch changed both files. Now the reader refuses at the section's first line,
naming the form. Checked against GNU patch on the same file (it does change the second file), with
controls: prose a commit message may hold (`3d`, `12a` with no `.`, an indented `--- ` with no `+++ `)
is not taken for a section.

And a `\\ No newline at end of file` line followed by more lines of the side it ended (att60 F11): GNU
patch stops with "malformed patch" and changes nothing; radpatch applied the hunk. It refuses now too."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from radpatch.importing import unified
from tests.lib.generated import seeds
from tests.lib.importing import plain_gnu_patch

FORMS = {  # form -> (diff's flags, how the section is written into the patch file)
    "normal": (["--normal"], "Index: b/m2.py\n{diff}"),
    "ed": (["-e"], "Index: b/m2.py\n{diff}"),
    "indented": (["-u"], "{indented}"),
}


def _diff(tmp: Path, flags: list[str], name: str) -> str:
    done = subprocess.run(["diff", *flags, f"a/{name}", f"b/{name}"], cwd=tmp, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    return done.stdout


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("seed", seeds(3))
def test_a_section_gnu_patch_applies_in_another_form_is_refused_not_skipped(
    tmp_path: Path, form: str, seed: int
) -> None:
    rng = random.Random(seed)
    for name in ("m1.py", "m2.py"):
        old = [f"v{i} = {i}\n" for i in range(rng.randint(4, 12))]
        new = list(old)
        new[rng.randrange(len(new))] = f"changed_{name[:2]} = True\n"
        for side, lines in (("a", old), ("b", new)):
            (tmp_path / side).mkdir(exist_ok=True)
            (tmp_path / side / name).write_text("".join(lines))
    flags, shape = FORMS[form]
    first = _diff(tmp_path, ["-u"], "m1.py")
    second = _diff(tmp_path, flags, "m2.py")
    indented = "".join("  " + line for line in second.splitlines(keepends=True))
    text = first + shape.format(diff=second, indented=indented)
    (tmp_path / "p.patch").write_text(text)
    work = tmp_path / "gnu"
    shutil.copytree(tmp_path / "a", work)
    if form != "ed" or shutil.which("ed"):  # GNU patch runs ed for an ed script
        assert plain_gnu_patch(work, tmp_path / "p.patch").returncode == 0, text
        assert (work / "m2.py").read_text() == (tmp_path / "b" / "m2.py").read_text()  # GNU changes the file
    with pytest.raises(unified.MalformedPatch) as caught:
        unified.parse("p.patch", text.encode(), 1)
    line = len(first.splitlines()) + (1 if form == "indented" else 2)
    assert caught.value.message.startswith(f"p.patch:{line}: "), (caught.value.message, text)
    assert {"normal": "a normal diff", "ed": "an ed script", "indented": "indented"}[form] in caught.value.message
    assert "diff -u" in (caught.value.hint or "")


@pytest.mark.parametrize(
    "prose",
    ["3d\n", "12a\nmore text\n", "  --- a quoted line\n", "1,2c3,4\nnot a normal diff line\n", "5c\nno end\n"],
)
def test_prose_that_looks_like_a_command_is_preamble(prose: str) -> None:
    text = f"Subject: [PATCH] x\n\n{prose}\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    assert [f.new_name for f in unified.parse("p.patch", text.encode(), 1).files] == ["m.py"]


@pytest.mark.parametrize("seed", seeds(8))
def test_lines_after_a_no_newline_marker_are_malformed_as_gnu_patch_says(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = [" a = 1\n", "-b = 2\n", "+b = 3\n", " c = 4\n", " d = 5\n"]
    at = rng.randrange(len(lines) - 1)  # the marker after a line a context line (both sides) follows
    body = [*lines[: at + 1], "\\ No newline at end of file\n", *lines[at + 1 :]]
    text = "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n" + "".join(body)
    (tmp_path / "m.py").write_text("a = 1\nb = 2\nc = 4\nd = 5\n")
    before = (tmp_path / "m.py").read_bytes()
    (tmp_path / "p.patch").write_text(text)
    gnu = plain_gnu_patch(tmp_path, tmp_path / "p.patch")
    assert gnu.returncode == 2 and "malformed patch" in gnu.stderr + gnu.stdout, (gnu.stdout, gnu.stderr, text)
    assert (tmp_path / "m.py").read_bytes() == before
    with pytest.raises(unified.MalformedPatch, match="malformed patch"):
        unified.parse("p.patch", text.encode(), 1)

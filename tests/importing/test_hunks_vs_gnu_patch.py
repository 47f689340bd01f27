"""Hunk application and diff reading compared with /usr/bin/patch on generated files and diffs:
offsets, fuzz, failed hunks (their "Hunk #N FAILED at L." lines), missing newlines at the end,
GNU diff and git headers, a patch the file already carries. GNU patch runs as a Dockerfile runs it:
`patch -p1`, not forced, with no terminal. Seeded, so a failure is reproducible."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from radpatch.importing import header_names, hunks, unified
from tests.lib.generated import seeds
from tests.lib.importing import gnu_patch, plain_gnu_patch

WORDS = ["alpha", "beta", "gamma", "delta", "x = 1", "y = 2", "return x", "pass", ""]
# characters str.splitlines ends a line at and patch does not (att47 #3): a form feed, "\r" alone, U+2028
ODD = ["\x0c", "# page\x0cbreak", "t = '\u2028'", "z = 3\r# cr", "\x1c\x85"]


def _generate(rng: random.Random) -> tuple[str, str, str]:
    """(before, after, the installed file): the installed file differs from `before` by shifted,
    removed and changed lines, so hunks land at offsets, with fuzz, or fail."""
    words = WORDS + ODD if rng.random() < 0.3 else WORDS
    base = [rng.choice(words) + "\n" for _ in range(rng.randint(0, 40))]
    after = list(base)
    for _ in range(rng.randint(1, 4)):
        r, i = rng.random(), rng.randint(0, len(after))
        if r < 0.4:
            after.insert(i, f"new{rng.randint(0, 99)}\n")
        elif r < 0.7 and after:
            after.pop(min(i, len(after) - 1))
        elif after:
            after[min(i, len(after) - 1)] = f"chg{rng.randint(0, 99)}\n"
    a, b = "".join(base), "".join(after)
    if rng.random() < 0.2 and a:
        a = a[:-1]
    if rng.random() < 0.2 and b:
        b = b[:-1]
    return a, b, _generate_target(rng, a, 3)


def _out_of_order(diff: str, rng: random.Random) -> str:
    """The diff with its hunks shuffled, or one of them given twice: hunks that patch finds above an
    earlier hunk's change ("misordered hunks! output would be garbled"; att47 #1)."""
    head, *rest = diff.split("\n@@ ")
    blocks = ["@@ " + b if b.endswith("\n") else "@@ " + b + "\n" for b in rest]
    if len(blocks) > 1 and rng.random() < 0.6:
        rng.shuffle(blocks)
    else:
        blocks.insert(rng.randint(0, len(blocks)), rng.choice(blocks))
    return head + "\n" + "".join(blocks)


@pytest.mark.parametrize("seed", seeds(6))  # a seeded family: a share per interpreter (tests/lib/generated.py)
def test_hunks_land_where_gnu_patch_puts_them(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    compared = failed = misordered = 0
    for trial in range(150):
        before, after, installed = _generate(rng)
        d = tmp_path / str(trial)
        for side, text in (("a", before), ("b", after)):
            (d / side).mkdir(parents=True)
            (d / side / "f.py").write_text(text)
        git = rng.random() < 0.5
        if git:
            diff = subprocess.run(
                ["git", "diff", "--no-index", "--no-prefix", f"-U{rng.choice([0, 1, 3])}", "a/f.py", "b/f.py"],
                cwd=d,
                capture_output=True,
                check=False,
            ).stdout.decode()  # bytes: text=True would read a lone "\r" as a newline
        else:
            diff = subprocess.run(
                ["diff", f"-U{rng.choice([0, 1, 2, 3])}", "a/f.py", "b/f.py"],
                cwd=d,
                capture_output=True,
                check=False,
            ).stdout.decode()  # bytes: text=True would read a lone "\r" as a newline
        if not diff:
            continue
        if rng.random() < 0.25 and "\\ No newline" not in diff:  # only a file's last hunk may say that (patch aborts)
            diff = _out_of_order(diff, rng)
        (d / "w").mkdir()
        (d / "w" / "f.py").write_text(installed)
        (d / "p.diff").write_text(diff)
        gnu = plain_gnu_patch(d / "w", d / "p.diff", 1)
        said = [ln for ln in gnu.stdout.splitlines() if ln.startswith("Hunk")]
        section = unified.parse("p.diff", diff.encode(), 1).files[0]
        outcome = hunks.apply(section, installed)
        if "Skipping patch" in gnu.stdout:  # its first hunk applies reversed: previously applied
            assert outcome.skipped and len(outcome.failed) == len(outcome.results), (diff, installed)
            continue
        assert not outcome.skipped, (diff, installed, gnu.stdout)
        assert [r.report() for r in outcome.results if r.report()] == said, (diff, installed)
        if not outcome.failed:
            assert outcome.text == (d / "w" / "f.py").read_bytes().decode(), (diff, installed)
        compared += 1
        failed += bool(outcome.failed)
        misordered += "misordered hunks" in gnu.stdout
    assert compared > 100 and 0 < failed < compared  # both kinds were exercised
    assert misordered  # and hunks out of order


def test_new_and_deleted_files_and_git_headers() -> None:
    text = (
        b"From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 2/5] Add a helper\n\nWhy it matters.\n---\n"
        b" x.py | 1 +\n\ndiff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\nindex 0000000..e69de29\n"
        b"--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n\\ No newline at end of file\n"
        b"diff --git a/pkg/old.py b/pkg/old.py\ndeleted file mode 100644\n"
        b"--- a/pkg/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-X = 1\n"
        b"--- a/pkg/plain.py\n+++ b/pkg/plain.py\n@@ -0,0 +1 @@\n+Y = 1\n-- \n2.43.0\n"
    )
    pf = unified.parse("s.patch", text, 1)
    assert pf.subject == "Add a helper"
    new, old, plain = pf.files
    assert (new.new_name, new.old_missing, new.new_missing) == ("pkg/new.py", 2, 0)
    assert hunks.apply(new, None).text == "A = 1\nB = 2"
    assert (old.old_name, old.new_missing) == ("pkg/old.py", 2)
    assert hunks.apply(old, "X = 1\n").text == ""
    assert (plain.old_name, plain.old_missing) == ("pkg/plain.py", 1)  # `--- a/x` with @@ -0,0: created when missing


def test_strip_as_patch_does() -> None:
    assert header_names.strip_name("a/b/c.py", 1) == "b/c.py"
    assert header_names.strip_name("a//b/c.py", 2) == "c.py"
    assert header_names.strip_name("a/b/c.py", 0) == "a/b/c.py"
    assert header_names.strip_name("a/b/c.py", None) == "c.py"
    assert header_names.strip_name("a/b/c.py", 3) is None


def test_a_context_diff_is_refused_by_name() -> None:
    with pytest.raises(unified.MalformedPatch, match="context diff"):
        unified.parse("c.diff", b"*** a/x.py\n--- b/x.py\n***************\n*** 1 ****\n! a\n--- 1 ----\n! b\n", 1)


@pytest.mark.parametrize("seed", seeds(4))
def test_a_context_diff_gnu_patch_applies_is_refused_without_blaming_it(tmp_path: Path, seed: int) -> None:
    """GNU patch applies a context diff (`diff -c`); radpatch refuses it, naming the form and how to
    make the unified one, and never says that GNU patch would reject it (att49 #4)."""
    rng = random.Random(seed)
    old = [f"v{i} = {i}\n" for i in range(rng.randint(3, 12))]
    new = list(old)
    new[rng.randrange(len(new))] = "changed = True\n"
    for side, lines in (("a", old), ("b", new)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "m.py").write_text("".join(lines))
    diff = subprocess.run(["diff", "-c", "a/m.py", "b/m.py"], cwd=tmp_path, capture_output=True, check=False)
    assert diff.returncode == 1 and diff.stdout.startswith(b"*** a/m.py")
    (tmp_path / "c.diff").write_bytes(diff.stdout)
    assert gnu_patch(tmp_path / "a", tmp_path / "c.diff", 1).returncode == 0  # GNU patch takes it
    assert (tmp_path / "a" / "m.py").read_text() == "".join(new)
    with pytest.raises(unified.MalformedPatch) as caught:
        unified.parse("c.diff", diff.stdout, 1)
    assert caught.value.message.startswith("c.diff:1: a context diff"), caught.value.message
    assert "diff -u" in caught.value.message + (caught.value.hint or "")
    assert "GNU patch would reject" not in (caught.value.hint or ""), caught.value.hint


@pytest.mark.parametrize("seed", seeds(4))
def test_a_change_the_file_already_has_is_skipped_as_gnu_patch_skips_it(tmp_path: Path, seed: int) -> None:
    """att59 F1: the installed file already carries the patch's change (upstream merged it, or a series
    carries it twice), shifted or fuzzed: plain `patch -p1` detects a reversed (previously applied) patch
    on a file's first hunk at each fuzz level before fuzzing further, and skips the file; radpatch must
    not apply it again with fuzz."""
    rng = random.Random(seed)
    skipped = applied = 0
    for trial in range(120):
        before, after, _ = _generate(rng)
        base = after if rng.random() < 0.7 else before  # mostly: already applied
        installed = _generate_target(rng, base)
        d = tmp_path / str(trial)
        for side, text in (("a", before), ("b", after)):
            (d / side).mkdir(parents=True)
            (d / side / "f.py").write_text(text)
        diff = subprocess.run(
            ["diff", f"-U{rng.choice([1, 2, 3])}", "a/f.py", "b/f.py"], cwd=d, capture_output=True, check=False
        ).stdout.decode()
        if not diff:
            continue
        (d / "w" / "x").mkdir(parents=True)
        (d / "w" / "x" / "f.py").write_text(installed)
        (d / "p.diff").write_text(diff.replace("--- a/f.py", "--- a/x/f.py").replace("+++ b/f.py", "+++ b/x/f.py"))
        gnu = plain_gnu_patch(d / "w", d / "p.diff")
        section = unified.parse("p.diff", diff.encode(), 1).files[0]
        outcome = hunks.apply(section, installed)
        if "Skipping patch" in gnu.stdout:
            assert outcome.skipped and len(outcome.failed) == len(outcome.results), (diff, installed, gnu.stdout)
            skipped += 1
            continue
        assert not outcome.skipped, (diff, installed, gnu.stdout)
        said = [ln for ln in gnu.stdout.splitlines() if ln.startswith("Hunk")]
        assert [r.report() for r in outcome.results if r.report()] == said, (diff, installed, gnu.stdout)
        if not outcome.failed:
            assert outcome.text == (d / "w" / "x" / "f.py").read_bytes().decode(), (diff, installed)
            applied += 1
    assert skipped and applied  # both kinds were exercised


def _generate_target(rng: random.Random, text: str, most: int = 2) -> str:
    """`text` with up to `most` lines shifted in, taken out or changed: an installed file near it."""
    target = text.splitlines(keepends=True)
    for _ in range(rng.randint(0, most)):
        r, i = rng.random(), rng.randint(0, len(target))
        if r < 0.5:
            target.insert(i, "extra\n")
        elif r < 0.8 and target:
            target.pop(min(i, len(target) - 1))
        elif target:
            target[min(i, len(target) - 1)] = "fuzzed\n"
    return "".join(target)

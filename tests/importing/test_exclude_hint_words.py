"""att60 F04: the `--exclude` a refusal's hint gives is pasted into a shell as it is. Before, it was
`--exclude '{name}'`: a `'` in the name broke the shell's quoting, `[x].py` was read back as an
fnmatch class (the hint's glob did not match the name, so following it gave the same refusal), and a
name that is not UTF-8 showed as `\\udcff`. Now it is one shell word matching exactly that file
(importing.exclude_word): each hint is run here by bash, as a user pasting it would."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.importing import exclude_word
from tests.lib.importing import clean_env, pip_install
from tests.lib.wheels import build_wheel

NAMES = ["it's.py", "my tool.py", "[x].py", "st*r.py", "q?.py", "a]b.py", "\udcff.py", "caf\udce9 x.py"]
# also words for names GNU diff writes quoted, or that Python can import (no refusal to follow here)
WORDS_ONLY = ["tab\there.py", "cafe\u0301.py"]


def _argv_bytes(word: str) -> bytes:
    """What bash hands a program for the word `word` (one argument, as bytes)."""
    out = subprocess.run(["bash", "-c", f"printf '%s' {word}"], capture_output=True, check=True)
    return out.stdout


@pytest.mark.parametrize("name", NAMES + WORDS_ONLY)
def test_the_word_is_the_exact_glob_of_the_name_once_the_shell_has_read_it(name: str) -> None:
    word = exclude_word.shell_word(exclude_word.glob(f"pkg/{name}"))
    assert word.isascii() or name.isprintable() and not any(0xD800 <= ord(c) <= 0xDFFF for c in name), word
    glob = os.fsdecode(_argv_bytes(word))  # as Python decodes radpatch's argv
    assert glob == exclude_word.glob(f"pkg/{name}")
    assert fnmatch.fnmatchcase(f"pkg/{name}", glob)
    for other in ("pkg/x.py", "pkg/q.py", "pkg/qq.py", "pkg/str.py", "pkg/stXr.py", "pkg/[x].pyc", "pkg/it.py"):
        assert other == f"pkg/{name}" or not fnmatch.fnmatchcase(other, glob), (other, glob)


def _hint_words(stderr: str) -> str:
    hint = next(line for line in stderr.splitlines() if line.lstrip().startswith("hint:"))
    found = re.search(r"leave (?:it|them) out with (--exclude .*?) \(and ", hint)
    assert found, hint
    return found.group(1)


def _import_through_bash(venv_python: Path, patch: Path, reg: Path, words: str) -> subprocess.CompletedProcess[bytes]:
    command = f"'{sys.executable}' -m radpatch --python '{venv_python}' import -p1 --out '{reg}' {words} '{patch}'"
    return subprocess.run(["bash", "-c", command], capture_output=True, env=clean_env(), timeout=600, check=False)


_EDIT = b"--- a/rpexcl/mod.py\n+++ b/rpexcl/mod.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n"


def _creating(name: str) -> bytes:
    path = f"rpexcl/{name}".encode("utf-8", "surrogateescape")
    return b"--- /dev/null\n+++ b/" + path + b"\n@@ -0,0 +1 @@\n+X = 1\n"


@pytest.mark.wheel
def test_following_each_hint_as_a_shell_reads_it_leaves_out_exactly_that_file(tmp_path: Path) -> None:
    wheel = build_wheel(
        tmp_path / "wheel",
        "rpexcl",
        "1.0",
        {"rpexcl/__init__.py": "", "rpexcl/mod.py": "def f(x):\n    return x + 1\n"},
    )
    venv = pip_install(tmp_path / "venv", wheel)
    cases = [[n] for n in NAMES] + [NAMES]  # each, then all at once
    for k, names in enumerate(cases):
        patch = tmp_path / f"p{k}.patch"
        patch.write_bytes(_EDIT + b"".join(_creating(n) for n in names))
        reg = tmp_path / f"reg{k}"
        refused = _import_through_bash(venv.python, patch, reg, "")
        stderr = refused.stderr.decode("utf-8", "backslashreplace")
        assert refused.returncode == 1 and "Traceback" not in stderr, stderr
        words = _hint_words(stderr)
        assert words.count("--exclude") == len(names), words
        followed = _import_through_bash(venv.python, patch, reg, words)
        out = (followed.stdout + followed.stderr).decode("utf-8", "backslashreplace")
        assert followed.returncode == 0, (names, words, out)
        assert (reg / f"p{k}.yaml").is_file(), out
        assert out.count("left out:") == len(names), out

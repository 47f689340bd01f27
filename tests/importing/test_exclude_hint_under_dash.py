"""A refusal's `--exclude $'...'` (a name that is not UTF-8) pasted into a POSIX sh script (dash: a
Dockerfile's RUN) (fix63 leftover): dash has no `$'...'` quoting and passes `$pkg/\\xff.py` on, which
matched nothing, so following the hint gave the same refusal again. Import now reads such a glob as bash
reads the word, and says so in one line on stderr; under bash nothing changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.importing import exclude_word
from tests.lib.importing import clean_env, pip_install
from tests.lib.wheels import build_wheel

NAMES = ["\udcff.py", "caf\udce9 x.py", "a'\udce9.txt"]
_EDIT = b"--- a/rpdash/mod.py\n+++ b/rpdash/mod.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n"


@pytest.mark.parametrize("name", [*NAMES, "pkg/x\udcc3\udca9.py", "back\\\\slash\udcff.py"])
def test_the_word_dash_passes_on_is_read_back_as_bash_reads_it(name: str) -> None:
    word = exclude_word.shell_word(exclude_word.glob(name))
    dash = subprocess.run(["dash", "-c", f"printf '%s' {word}"], capture_output=True, check=True).stdout
    bash = subprocess.run(["bash", "-c", f"printf '%s' {word}"], capture_output=True, check=True).stdout
    assert exclude_word.as_bash_reads(dash.decode("utf-8", "surrogateescape")) == bash.decode(
        "utf-8", "surrogateescape"
    )
    assert exclude_word.as_bash_reads(bash.decode("utf-8", "surrogateescape")) is None  # bash's own: as given


def _creating(name: str) -> bytes:
    return b"--- /dev/null\n+++ b/rpdash/" + name.encode("utf-8", "surrogateescape") + b"\n@@ -0,0 +1 @@\n+X = 1\n"


@pytest.mark.wheel
def test_following_the_hint_in_a_dash_script_leaves_the_file_out(tmp_path: Path) -> None:
    files = {"rpdash/__init__.py": "", "rpdash/mod.py": "def f(x):\n    return x + 1\n"}
    venv = pip_install(tmp_path / "venv", build_wheel(tmp_path / "wheel", "rpdash", "1.0", files))
    patch = tmp_path / "p.patch"
    patch.write_bytes(_EDIT + b"".join(_creating(n) for n in NAMES))
    base = f"'{sys.executable}' -m radpatch --python '{venv.python}' import -p1 --out '{tmp_path / 'reg'}' '{patch}'"

    def run(shell: str, words: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([shell, "-c", f"{base} {words}"], capture_output=True, env=clean_env(), check=False)

    refused = run("dash", "")
    stderr = refused.stderr.decode("utf-8", "backslashreplace")
    assert refused.returncode == 1, stderr
    hint = next(line for line in stderr.splitlines() if line.lstrip().startswith("hint:"))
    words = hint.split("leave them out with ", 1)[1].split(" (and ", 1)[0]
    assert words.count("--exclude $'") == len(NAMES), words
    followed = run("dash", words)
    out = (followed.stdout + followed.stderr).decode("utf-8", "backslashreplace")
    assert followed.returncode == 0, out
    assert out.count("left out:") == len(NAMES) and out.count("read as bash reads") == len(NAMES), out
    assert (tmp_path / "reg" / "p.yaml").is_file()

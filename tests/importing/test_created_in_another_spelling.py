"""att60 F07: a patch made on macOS creates `café.py` spelled in NFD ("e" + U+0301) where the install
has `café.py` in NFC. Python imports both as one module (it reads names as NFKC), and GNU patch
creates a second file no import finds. import refused it through apply's dry run as "drifted ...
someone else changed the file; put the files back (radpatch restore ...)", though nobody changed
anything. It now says what is true, at the patch's line, and its --exclude (pasted into bash, as
the hint is given) leaves out that file."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from radpatch.importing.series_files import SeriesFiles, other_spelling
from tests.lib.importing import clean_env, pip_install
from tests.lib.wheels import build_wheel

NFC, NFD = "caf\u00e9", "cafe\u0301"
EDIT = b"--- a/rpnfd/mod.py\n+++ b/rpnfd/mod.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n"


@pytest.mark.parametrize(
    ("installed", "created", "other"),
    [
        ("p/caf\u00e9.py", "p/cafe\u0301.py", True),
        ("p/cafe\u0301.py", "p/caf\u00e9.py", True),
        ("p\u00e9/m.py", "pe\u0301/m.py", True),  # the directory in another form
        ("p/fix.py", "p/\ufb01x.py", True),  # a ligature: Python reads `\ufb01x` as `fix`
        ("p/cafe.py", "p/caf\u00e9.py", False),
        ("p/caf\u00e9.py", "p/caf\u00e9.py", False),  # the same file: not another spelling
    ],
)
def test_the_other_spelling_is_found_on_disk_and_in_the_series(
    tmp_path: Path, installed: str, created: str, other: bool
) -> None:
    (tmp_path / installed).parent.mkdir(parents=True)
    (tmp_path / installed).write_text("X = 0\n")
    files = SeriesFiles(tmp_path)
    assert other_spelling(files, created) == (installed if other else None)
    files.text[installed] = None  # the series deleted it: nothing is in the way
    assert other_spelling(files, created) is None
    files.text["p/made\u00e9.py"] = "Y = 1\n"  # created earlier in the series
    assert other_spelling(files, "p/made" + "e\u0301.py") == "p/made\u00e9.py"


@pytest.mark.wheel
@pytest.mark.parametrize(("installed", "created"), [(NFC, NFD), (NFD, NFC)])
def test_a_new_module_spelled_as_an_installed_one_is_refused_for_what_it_is(
    tmp_path: Path, installed: str, created: str
) -> None:
    files = {
        "rpnfd/__init__.py": "",
        "rpnfd/mod.py": "def f(x):\n    return x + 1\n",
        f"rpnfd/{installed}.py": "X = 0\n",
    }
    venv = pip_install(tmp_path / "venv", build_wheel(tmp_path / "wheel", "rpnfd", "1.0", files))
    assert (venv.site / "rpnfd" / f"{installed}.py").is_file()
    patch = tmp_path / "c.patch"
    name = f"rpnfd/{created}.py".encode()
    patch.write_bytes(EDIT + b"diff --git a/" + name + b" b/" + name + b"\nnew file mode 100644\n--- /dev/null\n+++ b/")
    patch.write_bytes(patch.read_bytes() + name + b"\n@@ -0,0 +1,1 @@\n+X = 1\n")
    reg = tmp_path / "reg"

    def run(words: str) -> subprocess.CompletedProcess[bytes]:
        command = f"'{sys.executable}' -m radpatch --python '{venv.python}' import -p1 --out '{reg}' {words} '{patch}'"
        return subprocess.run(["bash", "-c", command], capture_output=True, env=clean_env(), timeout=600, check=False)

    refused = run("")
    err = refused.stderr.decode()
    assert refused.returncode == 1 and "Traceback" not in err, err
    first, hint = err.strip().splitlines()
    assert "c.patch:7: the patch creates" in first and "another Unicode form" in first, err
    form = "NFD" if unicodedata.is_normalized("NFD", created) else "NFC"
    assert f"the patch's in {form}" in first and "Python imports both as one module" in first, err
    assert "drifted" not in err and "someone else changed" not in err and "restore" not in err, err
    words = hint.partition("leave this file out with ")[2]
    assert words.startswith("--exclude "), hint
    followed = run(words)
    out = (followed.stdout + followed.stderr).decode()
    assert followed.returncode == 0, out
    assert out.count("left out:") == 1 and (reg / "c.yaml").is_file(), out

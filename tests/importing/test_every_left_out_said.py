"""A git patch whose sections include several of kinds no entry can say (a file that is not Python,
a rename, a binary patch, a symbolic link, a mode change) beside a Python change: one `radpatch
import` run names every one of them, and its hint's --exclude options, passed as given, let the next
run import the Python change (att47 #9: one refusal per run, one --exclude per retry). Generated
over every pair and triple of those kinds."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import PACKAGE, Venv, pip_install

pytestmark = pytest.mark.wheel

PY = (
    f"diff --git a/{PACKAGE}/std_shlex.py b/{PACKAGE}/std_shlex.py\n"
    f"--- a/{PACKAGE}/std_shlex.py\n+++ b/{PACKAGE}/std_shlex.py\n"
    "@@ -1 +1 @@\n"
)
KINDS = {
    "text": (
        f"diff --git a/{PACKAGE}/data.txt b/{PACKAGE}/data.txt\n--- a/{PACKAGE}/data.txt\n+++ b/{PACKAGE}/data.txt\n"
        "@@ -1 +1 @@\n-not python\n+still not python\n"
    ),
    "rename": (
        f"diff --git a/{PACKAGE}/std_fnmatch.py b/{PACKAGE}/renamed.py\nsimilarity index 100%\n"
        f"rename from {PACKAGE}/std_fnmatch.py\nrename to {PACKAGE}/renamed.py\n"
    ),
    "binary": (
        f"diff --git a/{PACKAGE}/blob.bin b/{PACKAGE}/blob.bin\nnew file mode 100644\nindex 0000000..e69de29\n"
        f"Binary files /dev/null and b/{PACKAGE}/blob.bin differ\n"
    ),
    "link": (
        f"diff --git a/{PACKAGE}/link.py b/{PACKAGE}/link.py\nnew file mode 120000\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{PACKAGE}/link.py\n@@ -0,0 +1 @@\n+std_shlex.py\n\\ No newline at end of file\n"
    ),
    "mode": (f"diff --git a/{PACKAGE}/std_difflib.py b/{PACKAGE}/std_difflib.py\nold mode 100644\nnew mode 100755\n"),
}
CASES = sample([c for n in (2, 3) for c in itertools.combinations(sorted(KINDS), n)])


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, corpus_wheel: Path) -> Venv:
    return pip_install(tmp_path_factory.mktemp("leftout") / "venv", corpus_wheel)  # import writes nothing there


@pytest.mark.parametrize("kinds", CASES, ids="+".join)
def test_one_run_names_every_section_and_its_hint_is_enough(venv: Venv, tmp_path: Path, kinds: tuple[str, ...]) -> None:
    python = PY + "-        self.debug = 0\n+        self.debug = 1\n"  # no context: found where it is
    patch = tmp_path / "mixed.patch"
    patch.write_text("".join(KINDS[k] for k in kinds) + python)

    refused = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr
    hint = next(line for line in refused.stderr.splitlines() if "hint:" in line)
    excludes = re.findall(r"--exclude '([^']*)'", hint)
    assert len(excludes) == len(kinds), refused.stderr  # every section named at once
    assert len(refused.stderr.strip().splitlines()) <= 2, refused.stderr

    options = shlex.split(hint.partition("leave them out with ")[2].partition(" (and")[0])
    again = venv.radpatch("import", str(patch), "-p1", *options, "--out", str(tmp_path / "reg"))
    assert again.returncode == 0, again.stderr
    assert "std_shlex" in "".join(p.read_text() for p in (tmp_path / "reg").glob("*.yaml"))

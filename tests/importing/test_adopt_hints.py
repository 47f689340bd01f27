"""An image ran a whole imported series with `patch -p1` (s1 changes a module and creates one, s2
changes s1's line, s3 edits the created module, s4 changes another line of s2's module). Whatever
part of the series a user names first, `apply ... --wheel W` either adopts it or says in its hint
which entries to name; following the hints adopts the whole series, every hint a new command (no
circle: att47 #5, where the hints went 0001 0003 -> 0001 0002 0004 -> 0001 0003), and status then
reads every entry applied. GNU patch made the image; the hint is taken as the user would take it."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import PACKAGE, Venv, gnu_diff, gnu_patch, pip_install

pytestmark = pytest.mark.wheel

TEXTWRAP = f"{PACKAGE}/std_textwrap.py"
MADE = f"{PACKAGE}/rp_made.py"
WIDTH = "        self.width = width\n"
TABSIZE = "        self.tabsize = tabsize\n"
# (file, before, after) per patch of the series, each on the files as the earlier ones left them
SERIES = {
    "s1": [(TEXTWRAP, WIDTH, "        self.width = width + 0\n"), (MADE, None, "VALUE = 1\n")],
    "s2": [(TEXTWRAP, "        self.width = width + 0\n", "        self.width = width + 1\n")],
    "s3": [(MADE, "VALUE = 1\n", "VALUE = 2\n")],
    "s4": [(TEXTWRAP, TABSIZE, "        self.tabsize = tabsize + 0\n")],
}
HINT = re.compile(r"`radpatch apply ([^`]+)`")
STARTS = sample([c for n in range(1, 5) for c in itertools.combinations(sorted(SERIES), n)])


def _series(venv: Venv, work: Path) -> list[Path]:
    """The series' patch files, each a GNU diff of the files as the earlier patches left them."""
    texts: dict[str, str | None] = {TEXTWRAP: (venv.site / TEXTWRAP).read_text(), MADE: None}
    out = []
    for name, changes in SERIES.items():
        diff = b""
        for rel, old, new in changes:
            before = texts[rel]
            after = new if old is None else (before or "").replace(old, new, 1)
            assert old is None or old in (before or "")
            # a new file as `--- a/path` with `@@ -0,0 +1,N @@` (real series use it)
            diff += gnu_diff(work / name / rel.replace("/", "_"), rel, before or "", after).stdout
            texts[rel] = after
        patch = work / f"{name}.patch"
        patch.write_bytes(diff)
        out.append(patch)
    return out


@pytest.mark.parametrize("start", STARTS, ids="-".join)
def test_following_the_hints_adopts_the_whole_series(
    tmp_path: Path, corpus_wheel: Path, start: tuple[str, ...]
) -> None:
    venv = pip_install(tmp_path / "venv", corpus_wheel)
    patches = _series(venv, tmp_path / "diffs")
    reg = tmp_path / "reg"
    imported = venv.radpatch("import", *map(str, patches), "-p1", "--out", str(reg))
    assert imported.returncode == 0, imported.stderr
    names = {p.stem.split("-")[-1]: p.stem for p in reg.glob("*.yaml")}
    assert sorted(names) == sorted(SERIES), names
    for patch in patches:
        gnu = gnu_patch(venv.site, patch, 1)
        assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    command = [names[s] for s in start]
    tried: list[list[str]] = []
    for _ in range(len(SERIES)):  # bounded: each hint names more of the series, or the run ends
        tried.append(command)
        out = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), *command)
        assert "Traceback" not in out.stderr
        if out.returncode == 0:
            break
        hint = HINT.search(out.stderr)
        assert hint, out.stderr
        command = hint.group(1).split()
        assert command not in tried, (tried, out.stderr)
    else:
        pytest.fail(f"no hint led to an apply that succeeds: {tried}")
    check = venv.radpatch("--registry", str(reg), "status", "--check", *names.values())
    assert check.returncode == 0, check.stdout + check.stderr

"""att60 F10: a directory link inside a package (`pkg/lnk -> /elsewhere`, in no RECORD) took import and
apply outside the install: the module under it was patched where the link points, a new one created
there, and status said applied. A file under a directory link to outside the install, or a file that is
a link, is refused by import (naming the link, with --exclude) and by apply's planning (install.environment);
a link that stays inside the install, or one the distribution was installed through (its RECORD lists files
under it: tests/plugin's symlinked package directory), is followed as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.install.environment import linked_directory
from tests.lib.importing import PACKAGE, Venv


def test_a_directory_link_to_outside_the_root_is_found(tmp_path: Path) -> None:
    root, outside = tmp_path / "site", tmp_path / "elsewhere"
    (root / "pkg" / "real").mkdir(parents=True)
    (outside / "deep").mkdir(parents=True)
    (root / "pkg" / "out").symlink_to(outside)
    (root / "pkg" / "in").symlink_to(root / "pkg" / "real")
    assert linked_directory(root, "pkg/out/deep/m.py", lambda: []) == root / "pkg" / "out"
    assert linked_directory(root, "pkg/out/m.py", lambda: ["pkg/m.py", "pkg/outer.py"]) == root / "pkg" / "out"
    assert linked_directory(root, "pkg/in/m.py", lambda: []) is None  # inside the install
    assert linked_directory(root, "pkg/real/m.py", lambda: []) is None
    assert linked_directory(root, "pkg/m.py", lambda: []) is None
    # a package directory the wheel was installed through: its files are in RECORD
    assert linked_directory(root, "pkg/out/new.py", lambda: ["pkg/out/deep/m.py"]) is None


@pytest.mark.wheel
@pytest.mark.parametrize("link", ["directory", "file"])
def test_import_refuses_a_module_reached_through_a_link_and_writes_nothing(
    venv: Venv, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "mod.py").write_text("def f(x):\n    return x + 1\n")
    if link == "directory":
        (venv.site / PACKAGE / "lnk").symlink_to(outside)
        rel = f"{PACKAGE}/lnk/mod.py"
    else:
        (venv.site / PACKAGE / "lnk.py").symlink_to(outside / "mod.py")
        rel = f"{PACKAGE}/lnk.py"
    diff = f"--- a/{rel}\n+++ b/{rel}\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n"
    (tmp_path / "d.patch").write_text(diff)
    done = venv.radpatch("import", str(tmp_path / "d.patch"), "-p1", "--out", str(tmp_path / "reg"))
    assert done.returncode != 0 and "radpatch does not write through links" in done.stderr, done.stderr
    assert "--exclude" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "reg").exists()
    assert (outside / "mod.py").read_text() == "def f(x):\n    return x + 1\n"

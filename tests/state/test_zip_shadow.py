"""A zip archive (or zipped egg) on the import path that holds the patched package shadows the
install as a checkout does (zipimport): `status --check` fails naming the archive, and the
engine-start self-check reads the module the engine imported from the archive (not "unreadable
(Not a directory)"). On a real wheel pip-installed into a venv (tests/lib/installed.py's demo)."""

from __future__ import annotations

import json
import os
import sys
import types
import zipfile
from pathlib import Path

import pytest

from radpatch import plugin
from radpatch.plugin import Seen
from tests.lib.installed import DEMO_FILES, DEMO_PATCH, DEMO_TARGETS, Env


def _zip_of_the_package(dest: Path) -> Path:
    """The demo package as upstream ships it, zipped (what `zip -r app.zip rphard_demo` makes)."""
    with zipfile.ZipFile(dest, "w") as z:
        for rel, text in DEMO_FILES.items():
            z.writestr(rel, text)
    return dest


@pytest.mark.parametrize("name", ["app.zip", "rphard_demo-1.0.0-py3.11.egg"])
def test_a_zip_on_the_import_path_fails_status_check(demo_env: Env, tmp_path: Path, name: str) -> None:
    assert demo_env.run("apply", DEMO_PATCH).returncode == 0
    assert demo_env.run("status", "--check").returncode == 0
    archive = _zip_of_the_package(tmp_path / name)
    pythonpath = os.pathsep.join(p for p in (str(archive), os.environ.get("PYTHONPATH", "")) if p)
    check = demo_env.run("status", "--check", PYTHONPATH=pythonpath)
    assert check.returncode == 3, check.stdout + check.stderr
    assert f"zip archive {archive}" in check.stderr and "the patch does not run" in check.stderr, check.stderr
    out = demo_env.run("status", "--json", DEMO_PATCH, PYTHONPATH=pythonpath)
    (st,) = json.loads(out.stdout)
    assert [f["imported_from"] for f in st["files"]] == [str(archive / rel) for rel in DEMO_TARGETS], st
    ran = demo_env.run("status", "--check")  # without the archive on the path the patch runs again
    assert ran.returncode == 0, ran.stderr


def test_the_engine_start_check_reads_the_module_imported_from_a_zip(
    demo_env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert demo_env.run("apply", DEMO_PATCH).returncode == 0
    archive = _zip_of_the_package(tmp_path / "app.zip")
    for rel in DEMO_TARGETS:  # what the engine's process imported: the archive's copies
        module = types.ModuleType(rel[: -len(".py")].replace("/", "."))
        module.__file__ = str(archive / rel)
        monkeypatch.setitem(sys.modules, module.__name__, module)
    (check,) = plugin.check(demo_env.site)
    assert check.state is Seen.NOT_APPLIED, check.describe()
    assert f"zip archive {archive}" in check.detail and "is the pristine file" in check.detail, check.detail
    assert "Not a directory" not in check.detail

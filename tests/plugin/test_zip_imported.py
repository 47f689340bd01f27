"""vLLM imported from a zip archive on the import path (a copy zipped onto PYTHONPATH or inserted by a
.pth line) runs none of the patches radpatch applied to the installed site-packages (att56 F2): the
self-check blamed an unreadable `<archive>/.radpatch/record.json` and said to restore or remove it.
It now says where vLLM is imported from and what to do, and RADPATCH_REQUIRE refuses saying the same.
Generated: the archive's layout (the package at its top, or under a folder inside it) x RADPATCH_REQUIRE
set or not. Oracle: the archive a real zipimport of the package loads it from (in a subprocess)."""

from __future__ import annotations

import itertools
import logging
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from radpatch import plugin
from tests.lib.generated import sample

LAYOUTS = ["top", "folder"]


@pytest.mark.parametrize(("layout", "required"), sample(itertools.product(LAYOUTS, [False, True])))
def test_a_vllm_imported_from_a_zip_archive_is_said_so_not_an_unreadable_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, layout: str, required: bool
) -> None:
    archive = tmp_path / "copy.zip"
    inner = "vllm" if layout == "top" else "lib/vllm"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"{inner}/__init__.py", "LIMIT = 5\n")
    entry = str(archive) if layout == "top" else f"{archive}/lib"
    code = "import sys; sys.path.insert(0, sys.argv[1]); import vllm; print(vllm.__file__)"
    loaded = subprocess.run([sys.executable, "-c", code, entry], capture_output=True, text=True, check=True).stdout
    module = types.ModuleType("vllm")
    module.__file__ = loaded.strip()  # what zipimport sets: a path through the archive
    monkeypatch.setitem(sys.modules, "vllm", module)
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    if required:
        monkeypatch.setenv(plugin.REQUIRE_ENV, "kv_group_size")
        with pytest.raises(plugin.RequiredPatchMissing) as refused:
            plugin.register()
        said = str(refused.value)
    else:
        monkeypatch.delenv(plugin.REQUIRE_ENV, raising=False)
        plugin.register()
        said = " ".join(r.getMessage() for r in caplog.records if r.name == plugin.LOGGER)
    assert f"imported from the zip archive {archive}" in said, said
    assert "take" in said and "off the import path" in said, said
    assert "record.json" not in said, said

"""Options several commands share are checked the same way, before anything is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.lib.site import Site


@pytest.mark.parametrize("command", ["import", "capture"])
def test_a_supported_that_is_no_version_range_is_a_usage_error_before_anything_is_read(
    command: str, site: Site, radpatch: Any, tmp_path: Path
) -> None:
    args = [str(tmp_path / "missing.patch")] if command == "import" else ["fix_it"]
    r = radpatch(command, *args, "--supported", "0.32 or later", "--out", str(tmp_path / "out"))
    assert r.code == 2, r
    assert r.err.splitlines() == [
        "radpatch: error: --supported '0.32 or later' is not a PEP 440 version range",
        "  hint: e.g. --supported '>=0.32,<0.34'",
    ]
    assert not (tmp_path / "out").exists()

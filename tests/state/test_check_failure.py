"""`status --check`'s error line says what is wrong with each patch it fails: a patch whose files
carry its code with no record of radpatch's reads applied in the table, but the error line says it
is not recorded (never "is applied", which reads as no error at all), and how to adopt it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.lib.site import Site
from tests.lib.toy import PATCHED_CORE, PATCHED_UTIL, TOY_FILES, TOY_PATCH


def test_applied_by_its_code_without_a_record_is_said_as_not_recorded(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    site.install("toypkg", "1.0", {k: textwrap.dedent(v) for k, v in TOY_FILES.items()})
    registry: Path = write_registry("toy", TOY_PATCH)
    (site.root / "toypkg/core.py").write_text(PATCHED_CORE)  # a hand edit equal to the result
    (site.root / "toypkg/util.py").write_text(PATCHED_UTIL)

    check = radpatch("--registry", str(registry), "status", "--check", "toy")

    assert check.code == 3, check
    error = next(ln for ln in check.err.splitlines() if ln.startswith("radpatch: error: "))
    assert error.startswith("radpatch: error: toy is not recorded as applied (carries the patch's code"), error
    assert "is applied" not in error, error
    assert "radpatch apply toy" in check.err, check.err

"""att63 F11: where radpatch cannot keep a file's original (`.radpatch/originals` a plain file, a full disk),
the error said what failed but not what to do. It now says both, in two lines, and nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.lib.site import Site
from tests.lib.toy import ORIGINAL, TOY_FILES, TOY_PATCH


def test_originals_that_cannot_be_kept_say_what_to_do(
    site: Site, radpatch: Any, write_registry: Callable[..., Path]
) -> None:
    site.install("toypkg", "1.0", TOY_FILES)
    reg = write_registry("toy", TOY_PATCH)
    (site.root / ".radpatch").mkdir(exist_ok=True)
    (site.root / ".radpatch" / "originals").write_text("in the way\n")
    r = radpatch("--registry", str(reg), "apply", "toy")
    assert r.code == 4, r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 2 and "cannot keep the original" in lines[0] and lines[1].lstrip().startswith("hint:"), r.err
    assert "directory radpatch may write" in lines[1]
    assert all((site.root / rel).read_bytes() == data for rel, data in ORIGINAL.items())

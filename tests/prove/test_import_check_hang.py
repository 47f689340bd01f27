"""The import check: an import that hangs only once patched (att21c F12) is the patch's own failure:
after the patched import is killed at the time limit, the pristine module is imported with the same
limit, and when it imports the patch is refused. Each way of hanging, on a real interpreter."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.registry import entry_head
from tests.lib.site import Site

ENTRY = entry_head("import check hang", "icpkg", {"core": "icpkg.core"}) + (
    '  - id: hang\n    file: core\n    insert_after: {scope: <module>, find: X = 1, code: "CODE"}\n'
)
CORE = "X = 1\n\n\ndef f():\n    return X\n"

HANGS = {
    "sleep": "_t = __import__('time').sleep(3600)",
    "event": "_e = __import__('threading').Event().wait()",
    "lock": "_l = __import__('threading').Lock(); _l.acquire(); _l.acquire()",
}


@pytest.mark.processes  # waits out the check's own timeout
@pytest.mark.parametrize("code", HANGS.values(), ids=HANGS.keys())
def test_a_hang_only_the_patched_import_has_is_refused(
    site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch, code: str
) -> None:
    site.install("icpkg", "1.0", {"icpkg/__init__.py": "", "icpkg/core.py": CORE})
    before = (site.root / "icpkg" / "core.py").read_bytes()
    reg = write_registry("ic", ENTRY.replace("CODE", code))
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK_TIMEOUT", "6")  # long enough for a loaded machine's pristine import

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 1, r
    first = r.err.splitlines()[0]
    assert first.startswith("radpatch: error: ic: import check: icpkg.core does not import once patched: "), r.err
    assert "did not finish within 6 s (killed), and the unpatched module imports within that time" in first, r.err
    assert (site.root / "icpkg" / "core.py").read_bytes() == before

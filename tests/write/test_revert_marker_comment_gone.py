"""att60 F06: after apply, taking away by hand only the `# radpatch: added import` comment an add_import wrote
leaves the code as patched (status --check passes), but the undo finds the import it added by that comment, and
revert refused saying "the file's code was edited since it was patched", which was false. It now names the
comment that is gone and says to put it back; put back, revert gives the installed bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lib.registry import entry_head, write_entry
from tests.lib.site import Site

SOURCE = "import os\n\n\ndef f(x):\n    return os.sep + str(x)\n"


def test_a_marker_comment_taken_away_is_named_and_putting_it_back_reverts(
    site: Site, radpatch: Any, tmp_path: Path
) -> None:
    site.install("rpmark", "1.0", {"rpmark/__init__.py": "", "rpmark/mod.py": SOURCE})
    reg = tmp_path / "registry"
    rewrites = "  - id: i\n    file: m\n    add_import: {import: import json}\n"
    write_entry(reg, "p", entry_head("s", "rpmark", {"m": "rpmark.mod"}) + rewrites, dedent=False)
    assert radpatch("--registry", str(reg), "apply", "p").code == 0
    path = site.root / "rpmark" / "mod.py"
    patched = path.read_text()
    marked = [line for line in patched.splitlines() if "# radpatch: added import" in line]
    assert len(marked) == 1, patched
    path.write_text(patched.replace(marked[0], marked[0].split("  #")[0]))
    assert radpatch("--registry", str(reg), "status", "--check", "p").code == 0  # the code is as patched
    r = radpatch("--registry", str(reg), "revert", "p")
    assert r.code != 0 and "`# radpatch: added import` comment radpatch wrote is gone" in r.err, r.err
    assert "put the comment back" in r.err and "code was edited" not in r.err, r.err
    path.write_text(patched)
    assert radpatch("--registry", str(reg), "revert", "p").code == 0
    assert path.read_text() == SOURCE

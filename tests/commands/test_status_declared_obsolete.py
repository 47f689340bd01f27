"""status on a release the entry declares obsolete (`obsolete:`; att23c (c)): the detail says the
entry declares it, and that apply does nothing there; it does not say the installed files contain
the change, which nothing read."""

from __future__ import annotations

from typing import Any

from tests.lib.overlaps import HEAD
from tests.lib.site import Site

SRC = "def stop():\n    return 0\n"


def test_status_says_the_entry_declares_it_obsolete(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    body = '  - insert_before: {scope: stop, find: "return 0", code: "x = 1"}\n'
    reg = write_registry("obs", 'obsolete: ">=1.0"\n' + HEAD.format(supported=">=0.9") + body)
    r = radpatch("--registry", str(reg), "status")
    assert r.code == 0, r.out + r.err
    (line,) = (x for x in r.out.splitlines() if x.startswith("obs "))
    assert "obsolete" in line and "declared obsolete for toypkg 1.0 by the entry (`obsolete: >=1.0`)" in line, r.out
    assert "apply does nothing here" in line and "already contains" not in r.out, r.out
    assert (site.root / "toypkg/core.py").read_text() == SRC


def test_an_applied_entry_declared_obsolete_since_says_so_too(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    body = '  - insert_before: {scope: stop, find: "return 0", code: "x = 1"}\n'
    reg = write_registry("obs", HEAD.format(supported=">=0.9") + body)
    assert radpatch("--registry", str(reg), "apply", "obs").code == 0
    write_registry("obs", 'obsolete: ">=1.0"\n' + HEAD.format(supported=">=0.9") + body)  # declared after apply
    r = radpatch("--registry", str(reg), "status")
    (line,) = (x for x in r.out.splitlines() if x.startswith("obs "))
    assert "applied" in line and "declared obsolete for toypkg 1.0 by the entry" in line, r.out
    assert "still applied" in line and "already contains" not in r.out, r.out

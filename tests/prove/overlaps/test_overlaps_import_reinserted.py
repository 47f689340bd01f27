"""att23d F6: an `add_import: import json` and an `insert_after {find: import sys, code: import json}`
(the last import) go into one gap and bind one name: list and verify report the pair, apply refuses
it unordered naming both, and with the insertion ordered after the import it refuses naming the
entry that adds the import (not upstream: the installed file has no `import json`), in one run and
after the import was applied in an earlier run."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.site import Site

CORE = "import os\nimport sys\n\n\ndef where():\n    return sys.platform\n"
HEAD = 'summary: t\ndescription: t\ndistribution: toypkg\nsupported: ">=1.0"\nmodules:\n  m: toypkg.core\nrewrites:\n'
IMPORT = "  - id: imp\n    add_import: {import: import json}\n"
INSERT = '  - id: ins\n    insert_after: {scope: <module>, find: "import sys", code: "import json"}\n'


def _install(site: Site) -> bytes:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    return (site.root / "toypkg/core.py").read_bytes()


def test_list_reports_and_apply_refuses_the_unordered_pair(site: Site, radpatch: Any, write_registry: Any) -> None:
    before = _install(site)
    write_registry("ija", HEAD + IMPORT)
    reg = write_registry("ijq", HEAD + INSERT)
    r = radpatch("--registry", str(reg), "list")
    assert "overlap: ija (imp) and ijq (ins) both bind the same module-level name `json`" in r.out, r.out
    r = radpatch("--registry", str(reg), "apply", "ija", "ijq")
    assert r.code == 1 and "ija and ijq overlap" in r.err, r.out + r.err
    assert (site.root / "toypkg/core.py").read_bytes() == before


@pytest.mark.parametrize("stages", [False, True])
def test_the_insertion_after_the_import_is_refused_naming_it(
    site: Site, radpatch: Any, write_registry: Any, stages: bool
) -> None:
    _install(site)
    write_registry("ija", HEAD + IMPORT)
    reg = write_registry("ijq", "requires: [ija]\n" + HEAD + INSERT)
    if stages:
        assert radpatch("--registry", str(reg), "apply", "ija").code == 0
    applied = (site.root / "toypkg/core.py").read_bytes()
    r = radpatch("--registry", str(reg), "apply", *(("ijq",) if stages else ("ija", "ijq")))
    assert r.code == 1, r.out + r.err
    assert "ijq: rewrite 'ins' inserts `import json`, which ija" in r.err and "upstream" not in r.err, r.err
    assert (site.root / "toypkg/core.py").read_bytes() == (applied if stages else CORE.encode())

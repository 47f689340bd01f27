"""`apply --import-check` when the target finds a module only on its import path as radpatch
resolved it, beyond its site-packages (issue 21, impchk36): a PYTHONPATH directory
(in a Dockerfile's ENV, which radpatch's run and the engine share) holding a dependency the patch
imports. The check's interpreter runs `-I`, which drops PYTHONPATH: the patched import failed with
ModuleNotFoundError, the pristine one imported, and a patch that works on the target was refused.
The directories of the resolved import path (`PythonEnv.import_path`) are now on the check's path
too, after the interpreter's own.

Generated: what the dependency is there (a package, a namespace package) times how the patch imports it (a
plain import, a from-import, a dotted submodule of a package there).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

DEPENDENCY = {"rp_path_only/__init__.py": "VALUE = 7\n", "rp_path_only/fast.py": "def dumps(x):\n    return str(x)\n"}
WHERE = ("directory", "namespace")  # a zip archive: the names proof refuses first (not this check)
IMPORTS = {
    "import": "import rp_path_only",
    "from-import": "from rp_path_only import fast",
    "dotted": "import rp_path_only.fast",
}
CASES = sample(itertools.product(WHERE, IMPORTS))


@pytest.mark.parametrize(("where", "how"), CASES, ids=["-".join(c) for c in CASES])
def test_a_dependency_only_on_the_resolved_import_path_imports(
    site: Site,
    write_registry: Any,
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    where: str,
    how: str,
) -> None:
    if where == "directory":
        entry = tmp_path / "extra"
        Site(entry).install("rp-path-only", "1.0", DEPENDENCY)
    else:  # rp_path_only a namespace package (no __init__.py) there
        entry = tmp_path / "extra"
        Site(entry).install("rp-path-only", "1.0", {k: v for k, v in DEPENDENCY.items() if "__init__" not in k})
    monkeypatch.syspath_prepend(str(entry))  # as PYTHONPATH puts it on radpatch's (and the engine's) path
    site.install("icpp", "1.0", {"icpp/__init__.py": "", "icpp/core.py": "import os\n\nLIMIT = 4\n"})
    reg = write_registry(
        "ip",
        entry_head("import path", "icpp", {"core": "icpp.core"})
        + f'  - id: r\n    file: core\n    add_import: {{import: "{IMPORTS[how]}"}}\n',
    )

    r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "ip")

    assert r.code == 0, r
    assert r.out.splitlines()[0].startswith("ip: import check: icpp.core imports once patched ("), r.out

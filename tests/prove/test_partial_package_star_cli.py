"""A payload that takes a name from its parent package, whose `__init__` star-imports the patched
module before binding that name (`from .si_star import *` then `EXTRA = 5`), is refused through
the CLI like the `from .mod import VALUE` spelling (att21c F6); the truth is the target importing it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lib.fresh_runs import fresh_run
from tests.lib.registry import entry_head
from tests.lib.site import Site

ENTRY = entry_head("star parent", "toyq", {"m": "toyq.si_star"}, ">=0") + (
    "  - id: r\n    file: m\n    insert_definitions: {payload: payload.py, before: f}\n"
)
PAYLOAD = "from toyq import EXTRA\n\n\ndef g():\n    return EXTRA\n"
INITS = {
    "star-relative": "from .si_star import *\nEXTRA = 5\n",
    "star-absolute": "from toyq.si_star import *\nEXTRA = 5\n",
    "star-bound-before": "EXTRA = 5\nfrom .si_star import *\n",
}


MODULE = "VALUE = 1\n\n\ndef f():\n    return VALUE\n"


def _patched_imports(root: Path, init: str) -> bool:
    """The truth: the package with the payload put before f, imported by this interpreter."""
    (root / "toyq").mkdir(parents=True)
    (root / "toyq" / "__init__.py").write_text(init)
    (root / "toyq" / "si_star.py").write_text(MODULE.replace("def f", PAYLOAD + "\n\ndef f"))
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import toyq.si_star"
    return fresh_run(sys.executable, code, (), ("-I", "-B")).returncode == 0


@pytest.mark.parametrize("init", INITS.values(), ids=INITS.keys())
def test_a_payload_taking_a_name_a_star_importing_init_binds_later(
    site: Site, write_registry: Any, radpatch: Any, init: str, tmp_path: Path
) -> None:
    site.install("toyq", "1.0", {"toyq/__init__.py": init, "toyq/si_star.py": MODULE})
    before = site.snapshot()
    reg = write_registry("r", ENTRY, {"payload.py": PAYLOAD})

    r = radpatch("--registry", str(reg), "apply", "r")

    truth = _patched_imports(tmp_path / "truth", init)
    assert (r.code == 0) == truth, (r, truth)
    if r.code:
        assert "`EXTRA` (line 1, at module level) is taken from package toyq while its __init__" in r.err, r.err
        assert site.snapshot() == before

"""The import check: a failure raised anywhere below a line the patch added (in an unchanged module
of the package, in the standard library) is the patch's failure, not only one whose innermost
frame is in the changed file (att21c F11, the full rule); the target reports its traceback frames
as data. A module imported from there failing in its own body with an ImportError stays the
image's (a missing GPU build), and so does a failure the unpatched import has the same way."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.registry import entry_head
from tests.lib.site import Site

ENTRY = entry_head("import check any frame", "icpkg", {"core": "icpkg.core"}) + (
    "  - id: kern\n    file: core\n    insert_after: {scope: <module>, find: X = 1, code: 'CODE'}\n"
)

# The pristine module fails at its last line on this image (a GPU-only extension is missing).
CORE = "import importlib\nimport icpkg.util\n\nX = 1\n\nTAIL\n"
MISSING_EXT = "import rp_gpu_only_ext_surely_missing"
UTIL = """\
def helper():
    from typing import NoSuchThing
    return NoSuchThing


def gpu():
    import icpkg.gpu_only
    return icpkg.gpu_only


def table():
    return {}["absent"]
"""

REFUSED = {
    "unchanged-module-import-error": "Y = icpkg.util.helper()",
    "stdlib-module-not-found": 'Y = importlib.import_module("rp_surely_missing_mod")',
}


def _install(site: Site, tail: str) -> bytes:
    site.install(
        "icpkg",
        "1.0",
        {
            "icpkg/__init__.py": "",
            "icpkg/core.py": CORE.replace("TAIL", tail),
            "icpkg/util.py": UTIL,
            "icpkg/gpu_only.py": "raise ImportError('this build has no CUDA kernels')\n",
        },
    )
    return (site.root / "icpkg" / "core.py").read_bytes()


@pytest.mark.parametrize("code", REFUSED.values(), ids=REFUSED.keys())
def test_a_failure_raised_outside_the_changed_file_below_a_patch_line_is_refused(
    site: Site, write_registry: Any, radpatch: Any, code: str
) -> None:
    before = _install(site, MISSING_EXT)
    reg = write_registry("ic", ENTRY.replace("CODE", code))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 1, r
    first = r.err.splitlines()[0]
    assert "ic: import check: icpkg.core does not import once patched: " in first, r.err
    assert "in code called from icpkg.core line 5, a line the patch added" in first, r.err
    assert (site.root / "icpkg" / "core.py").read_bytes() == before  # nothing written


@pytest.mark.parametrize(
    ("code", "tail"),
    [("Y = icpkg.util.gpu()", MISSING_EXT), ("Y = icpkg.util.table()", "Z = icpkg.util.table()")],
    ids=["module-body-import-error", "same-failure-as-unpatched"],
)
def test_the_image_own_failure_stays_inconclusive(
    site: Site, write_registry: Any, radpatch: Any, code: str, tail: str
) -> None:
    _install(site, tail)
    reg = write_registry("ic", ENTRY.replace("CODE", code))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 0, r
    assert "ic: import check inconclusive for icpkg.core" in r.out, r.out

"""The import check: a failure raised in the patched file by unchanged code that a line the patch
added calls (`Y = helper()`, helper's own `from typing import NoSuchThing`), before the pristine
module's own failure further down, is the patch's failure (att21c F11), whatever the spelling of
the call; a module the added line's call imports failing in its own body stays the image's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.registry import entry_head
from tests.lib.site import Site

ENTRY = entry_head("import check called line", "icpkg", {"core": "icpkg.core"}) + (
    "  - id: kern\n    file: core\n    insert_after: {scope: <module>, find: X = 1, code: 'CODE'}\n"
)

# The pristine module fails at its last line on this image (a GPU-only extension is missing).
CORE = """\
def helper():
    from typing import NoSuchThing
    return NoSuchThing


def helper_missing():
    import rp_other_module_surely_missing
    return rp_other_module_surely_missing


def outer():
    return helper()


def gpu():
    import icpkg.gpu_only
    return icpkg.gpu_only


X = 1


import rp_gpu_only_ext_surely_missing
"""

REFUSED = {
    "direct": "Y = helper()",
    "module-not-found": "Y = helper_missing()",
    "through-another": "Y = outer()",
    "comprehension": "Y = [helper() for _ in range(1)]",
    "lambda": "Y = (lambda: outer())()",
    "default": "def k(a=helper()): return a",
    "class-body": "class K: v = helper()",
}


def _install(site: Site) -> bytes:
    site.install(
        "icpkg",
        "1.0",
        {
            "icpkg/__init__.py": "",
            "icpkg/core.py": CORE,
            "icpkg/gpu_only.py": "raise ImportError('this build has no CUDA kernels')\n",
        },
    )
    return (site.root / "icpkg" / "core.py").read_bytes()


@pytest.mark.parametrize("code", REFUSED.values(), ids=REFUSED.keys())
def test_a_failure_in_code_a_patch_line_calls_is_refused(
    site: Site, write_registry: Any, radpatch: Any, code: str
) -> None:
    before = _install(site)
    reg = write_registry("ic", ENTRY.replace("CODE", code))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 1, r
    first = r.err.splitlines()[0]
    assert "ic: import check: icpkg.core does not import once patched: " in first, r.err
    added = CORE.splitlines().index("X = 1") + 2
    assert f"in code called from icpkg.core line {added}, a line the patch added" in first, r.err
    assert (site.root / "icpkg" / "core.py").read_bytes() == before  # nothing written


def test_a_module_a_called_helper_imports_failing_inside_itself_stays_inconclusive(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    _install(site)
    reg = write_registry("ic", ENTRY.replace("CODE", "Y = gpu()"))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 0, r
    assert "ic: import check inconclusive for icpkg.core" in r.out, r.out

"""The import check: an ImportError raised by a line the patch added, before the pristine module's
own failure further down, is the patch's failure (att21 N6), not the image's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.registry import entry_head
from tests.lib.site import Site

ENTRY = entry_head("import check own line", "icpkg", {"core": "icpkg.core"}) + (
    '  - id: kern\n    file: core\n    insert_after: {scope: <module>, find: X = 1, code: "CODE"}\n'
)

# The pristine module fails at its last line on this image (a GPU-only extension is missing).
CORE = "X = 1\n\n\ndef f():\n    return 1\n\n\nimport rp_gpu_only_ext_surely_missing\n"
# A module __getattr__ that raises AttributeError: the static names check lets `from icpkg.dyn import x` pass.
DYN = "def __getattr__(n):\n    raise AttributeError(n)\n"


def _install(site: Site) -> bytes:
    site.install(
        "icpkg",
        "1.0",
        {
            "icpkg/__init__.py": "",
            "icpkg/core.py": CORE,
            "icpkg/dyn.py": DYN,
            "icpkg/gpu_only.py": "raise ImportError('this build has no CUDA kernels')\n",
        },
    )
    return (site.root / "icpkg" / "core.py").read_bytes()


def test_an_import_error_raised_at_the_patch_own_line_is_refused(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    before = _install(site)
    reg = write_registry("ic", ENTRY.replace("CODE", "from icpkg.dyn import fast_kernel"))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 1, r
    first = r.err.splitlines()[0]
    assert "ic: import check: icpkg.core does not import once patched: ImportError: cannot import name" in first, r.err
    assert "raised at icpkg.core line 2" in first and "a line the patch added" in first, r.err
    assert (site.root / "icpkg" / "core.py").read_bytes() == before  # nothing written


def test_a_module_the_patch_imports_failing_inside_itself_stays_inconclusive(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    """The patch's line imports a module that raises ImportError in its own body (no CUDA on this
    image): the failure is the image's, as the pristine one is; not a refusal."""
    _install(site)
    reg = write_registry("ic", ENTRY.replace("CODE", "import icpkg.gpu_only"))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 0, r
    assert "ic: import check inconclusive for icpkg.core" in r.out, r.out
    assert b"import icpkg.gpu_only" in (site.root / "icpkg" / "core.py").read_bytes()


@pytest.mark.parametrize(
    "raises",
    [
        "class NoKernels(ImportError):\n    pass\n\n\nraise NoKernels('this build has no CUDA kernels')\n",
        "e = ImportError('this build has no CUDA kernels')\ne.__notes__ = ['hint: install the cuda extra']\nraise e\n",
    ],
    ids=["import-error-subclass", "import-error-with-a-note"],
)
def test_a_missing_module_is_told_by_the_exception_type_not_its_text(
    site: Site, write_registry: Any, radpatch: Any, raises: str
) -> None:
    """An ImportError subclass, or an ImportError carrying a note (add_note: the note's line comes
    after the exception's in its text), raised inside a module the patch imports, is still a
    missing module on this image: inconclusive, and the words shown are the exception's own."""
    _install(site)
    (site.root / "icpkg" / "gpu_only.py").write_text(raises)
    reg = write_registry("ic", ENTRY.replace("CODE", "import icpkg.gpu_only"))

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 0, r
    assert "ic: import check inconclusive for icpkg.core" in r.out, r.out
    assert "this build has no CUDA kernels" in r.out and "hint: install" not in r.out, r.out

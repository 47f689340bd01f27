"""What the import check's subprocess sees of a served module, in a real venv (bare, no pip): the
planned bytes even when the interpreter's start-up imports the package (.pth files, sitecustomize),
and the planned source for whatever reads it through linecache (inspect.getsource at import)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import import_check
from radpatch.prove.plan import PlannedFile
from tests.lib.site import Site
from tests.lib.venvs import make_venv, site_packages

CORE = "LIMIT = 4\n"
TWICE = "from icpkg.core import LIMIT\n\nDOUBLE = LIMIT * 2\n"


def _venv(tmp_path: Path, files: dict[str, str]) -> tuple[PythonEnv, Path]:
    python = make_venv(tmp_path / "venv")
    sp = site_packages(tmp_path / "venv")
    Site(sp).install("icpkg", "1.0", {"icpkg/__init__.py": "", "icpkg/core.py": CORE, "icpkg/twice.py": TWICE, **files})
    return PythonEnv(str(python), (sp,), sp, (sys.version_info[0], sys.version_info[1])), sp


def _verdict(env: PythonEnv, path: Path, module: str, after: bytes) -> import_check.ImportCheckVerdict:
    (v,) = import_check.check(env, [("p", PlannedFile(module, path, path.read_bytes(), after))], timeout=120)
    return v


# What imports the package while the interpreter starts: a .pth line, one that imports a sibling
# that imports the module, sitecustomize (run by site), a .pth of another distribution's name.
PRELOADS = {
    "pth": {"icpkg_boot.pth": "import icpkg.core\n"},
    "pth-through-sibling": {"icpkg_boot.pth": "import icpkg.twice\n"},
    "sitecustomize": {"sitecustomize.py": "import icpkg.core\n"},
    "other-pth": {"zz_vendor_hook.pth": "import icpkg\n", "icpkg/__init__.py": "from icpkg import core\n"},
}


@pytest.mark.parametrize("preload", sorted(PRELOADS))
def test_a_module_imported_at_interpreter_start_is_checked_patched(tmp_path: Path, preload: str) -> None:
    env, sp = _venv(tmp_path, PRELOADS[preload])
    core = sp / "icpkg" / "core.py"

    broken = _verdict(env, core, "icpkg.core", b"LIMIT = 1 / 0\n")
    fine = _verdict(env, core, "icpkg.core", b"LIMIT = 8\n")

    assert broken.result is import_check.Result.REFUSED, broken
    assert broken.reason.startswith("ZeroDivisionError: division by zero"), broken
    assert fine.result is import_check.Result.OK, fine
    assert core.read_bytes() == CORE.encode()  # nothing written


KERNEL = textwrap.dedent("""\
    import inspect


    def kernel(fn):
        source = inspect.getsource(fn)
        if "print(" in source:
            raise SyntaxError(f"kernel {fn.__name__}: print() is not supported in a kernel")
        if str(fn()) not in source:
            raise SyntaxError(f"kernel {fn.__name__}: the source read is not the code that runs")
        return fn


    @kernel
    def add():
        return 1
    """)


def test_source_read_at_import_is_the_planned_source(tmp_path: Path) -> None:
    """A decorator that parses its function's source at import (a kernel DSL) reads the served text."""
    env, sp = _venv(tmp_path, {"icpkg/kern.py": KERNEL})
    kern = sp / "icpkg" / "kern.py"

    refused = _verdict(env, kern, "icpkg.kern", KERNEL.replace("    return 1", "    print(1)\n    return 1").encode())
    changed = _verdict(env, kern, "icpkg.kern", KERNEL.replace("return 1", "return 22").encode())

    assert refused.result is import_check.Result.REFUSED, refused
    assert "print() is not supported" in refused.reason
    assert changed.result is import_check.Result.OK, changed  # the source it reads is the code that runs

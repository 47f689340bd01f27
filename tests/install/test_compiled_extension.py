"""A compiled extension module beside a module's `.py` is what Python imports (the path finder tries
the extension suffixes first): install/extensions.py refuses to patch the `.py`, naming what shadows
what, that patching it would have no effect, and what to do; apply writes nothing, and diff and
status read the same reason. A package directory beats a same-named extension file, and another
interpreter's extension (`cpython-399`) is not imported: those apply.

The distribution is installed from a wheel built by tests/lib/wheels.py (an extension's file name is
all the locator reads: the `.so` holds no machine code, nothing imports it in these tests).
"""

from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

from radpatch.install.extensions import extension_suffixes
from tests.lib.site import Site
from tests.lib.wheels import build_wheel

ENTRY = textwrap.dedent("""\
    summary: change f
    description: changes {module}
    distribution: rpext
    supported: ">=1.0,<2"
    modules:
      m: {module}
    rewrites:
      - {{id: ten, file: m, replace: {{scope: f, find: return 1, with: return 10}}}}
    """)
CODE = "def f():\n    return 1\n"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # e.g. .cpython-311-x86_64-linux-gnu.so

SHADOWED = {  # case: (the module, its .py, the extension file beside it)
    "full-suffix": ("rpext.m", "rpext/m.py", f"rpext/m{SUFFIX}"),
    "abi3": ("rpext.m", "rpext/m.py", "rpext/m.abi3.so"),
    "bare-so": ("rpext.m", "rpext/m.py", "rpext/m.so"),
    "package-init": ("rpext.sub", "rpext/sub/__init__.py", f"rpext/sub/__init__{SUFFIX}"),
}
NOT_SHADOWED = {  # case: (the module, its .py, a file that is not what the target imports)
    "package-beats-extension": ("rpext.sub", "rpext/sub/__init__.py", f"rpext/sub{SUFFIX}"),
    "other-interpreter": ("rpext.m", "rpext/m.py", "rpext/m.cpython-399-x86_64-linux-gnu.so"),
    "other-module": ("rpext.m", "rpext/m.py", f"rpext/mm{SUFFIX}"),
}


def install(site: Site, tmp_path: Path, py: str, ext: str) -> None:
    files: dict[str, str | bytes] = {"rpext/__init__.py": "", py: CODE, ext: b"\x7fELF not really an extension\n"}
    with zipfile.ZipFile(build_wheel(tmp_path / "wheels", "rpext", "1.0", files)) as zf:
        zf.extractall(site.root)


@pytest.mark.parametrize("case", list(SHADOWED))
def test_a_module_an_extension_shadows_is_refused_by_apply_diff_and_status(
    case: str, site: Site, tmp_path: Path, write_registry: Any, radpatch: Any
) -> None:
    module, py, ext = SHADOWED[case]
    install(site, tmp_path, py, ext)
    reg = write_registry("ext", ENTRY.format(module=module))
    before = site.snapshot()
    says = f"{module} is imported from the compiled extension {ext}, not from {py} beside it"
    r = radpatch("--registry", str(reg), "apply", "ext")
    assert r.code == 1, r
    first, hint = r.err.strip().splitlines()
    assert first.startswith("radpatch: error: ext: cannot apply: ") and says in first, first
    assert "patching the .py would have no effect" in first
    assert hint.startswith("  hint: patch a source install of rpext") and f"remove {ext}" in hint, hint
    assert site.snapshot() == before
    d = radpatch("--registry", str(reg), "diff", "ext")
    assert d.code == 1 and says in d.err, d
    s = radpatch("--registry", str(reg), "status")
    assert "incompatible" in s.out and says in s.out.replace("\n", " ") + s.err, s
    assert site.snapshot() == before


@pytest.mark.parametrize("case", list(NOT_SHADOWED))
def test_what_the_target_does_not_import_does_not_stop_the_patch(
    case: str, site: Site, tmp_path: Path, write_registry: Any, radpatch: Any
) -> None:
    module, py, ext = NOT_SHADOWED[case]
    install(site, tmp_path, py, ext)
    reg = write_registry("ext", ENTRY.format(module=module))
    r = radpatch("--registry", str(reg), "apply", "ext")
    assert r.code == 0, r.err
    assert "return 10" in (site.root / py).read_text()
    assert radpatch("--registry", str(reg), "status", "--check").code == 0
    assert radpatch("--registry", str(reg), "revert", "ext").code == 0
    assert (site.root / py).read_text() == CODE


def test_an_extension_that_appears_after_apply_fails_the_check(
    site: Site, tmp_path: Path, write_registry: Any, radpatch: Any
) -> None:
    install(site, tmp_path, "rpext/m.py", "rpext/other.txt")
    reg = write_registry("ext", ENTRY.format(module="rpext.m"))
    assert radpatch("--registry", str(reg), "apply", "ext").code == 0
    (site.root / f"rpext/m{SUFFIX}").write_bytes(b"")
    check = radpatch("--registry", str(reg), "status", "--check")
    assert check.code != 0, check
    assert f"m{SUFFIX}" in check.out + check.err


def test_the_suffixes_are_the_target_interpreters() -> None:
    other = next(
        (p for p in sorted(Path("/root/.pyenv/versions").glob("3.1[0-3].*/bin/python3.1?")) if p.is_file()), None
    )
    if other is None:
        other = Path(sys.executable)
    asked = subprocess.run(
        [str(other), "-c", "import importlib.machinery as m, json; print(json.dumps(m.EXTENSION_SUFFIXES))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert extension_suffixes(str(other)) == tuple(json.loads(asked.stdout))
    assert extension_suffixes(sys.executable) == tuple(importlib.machinery.EXTENSION_SUFFIXES)
    assert extension_suffixes(str(Path("/nonexistent/python"))) is None

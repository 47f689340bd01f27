"""An empty module an entry creates (a new package's `__init__.py`) is in its diff, in `radpatch diff` and
the SBOM: as git's extended header (`new file mode`), after the other files, so GNU `patch -p1` on the
pristine files creates it. No hunk can say an empty new file, so the diff left it out and the replayed
series had the package's module without its `__init__.py`.

Generated: which modules the entry creates (empty packages, a module with code, in which order) × the
BOM made with the registry or from the record alone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.sbom import bom_of
from tests.lib.site import Site

PATCH = "/usr/bin/patch"
HEAD = """\
summary: New
description: Creates modules.
distribution: codpkg
supported: "==1.0"
modules:
"""
# module -> its content: empty packages, and modules with code
MODULES = {
    "codpkg.sub.__init__": "",
    "codpkg.sub.mod": "X = 1\n",
    "codpkg.other.__init__": "",
    "codpkg.plain": "Y = 2\n",
    "codpkg.empty": "",
}
SETS = [
    ("codpkg.sub.__init__",),
    ("codpkg.sub.__init__", "codpkg.sub.mod"),
    ("codpkg.sub.mod", "codpkg.sub.__init__"),
    ("codpkg.sub.__init__", "codpkg.other.__init__", "codpkg.plain"),
    ("codpkg.empty", "codpkg.plain"),
]


def _entry(modules: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    text = HEAD + "".join(f"  m{i}: {m}\n" for i, m in enumerate(modules)) + "rewrites:\n"
    text += "".join(f"  - file: m{i}\n    create_module: {{content: c{i}.py}}\n" for i in range(len(modules)))
    return text, {f"c{i}.py": MODULES[m] for i, m in enumerate(modules)}


@pytest.mark.skipif(shutil.which(PATCH) is None, reason="GNU patch is not installed")
@pytest.mark.parametrize(("modules", "loaded"), sample([(s, lo) for s in SETS for lo in (True, False)]))
def test_an_empty_created_module_is_in_the_diff(
    modules: tuple[str, ...], loaded: bool, site: Site, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    site.install("codpkg", "1.0", {"codpkg/__init__.py": ""})
    pristine = tmp_path / "pristine"
    shutil.copytree(site.root / "codpkg", pristine / "codpkg")
    text, payloads = _entry(modules)
    reg = write_registry("new", text, payloads)
    assert radpatch("--registry", str(reg), "apply", "new").code == 0
    diff = radpatch("--registry", str(reg), "diff", "new").out
    r = radpatch(*(("--registry", str(reg)) if loaded else ()), "status", "--format", "cyclonedx")
    assert r.code == 0, r.err
    (component,) = bom_of(r.out)["components"]
    (patch,) = component["pedigree"]["patches"]
    assert patch["diff"]["text"]["content"] == diff
    done = subprocess.run(
        [PATCH, "-p1", "--binary", "--batch", "--forward", "--no-backup-if-mismatch", "--fuzz=0"],
        input=diff.encode(),
        cwd=pristine,
        capture_output=True,
    )
    assert done.returncode == 0, (diff, done.stdout.decode())
    for m in modules:
        rel = m.replace(".", "/") + ".py"
        assert (pristine / rel).read_bytes() == (site.root / rel).read_bytes(), (rel, diff)
    files = sorted(str(p.relative_to(pristine)) for p in pristine.rglob("*.py"))
    assert files == sorted(str(p.relative_to(site.root)) for p in (site.root / "codpkg").rglob("*.py"))

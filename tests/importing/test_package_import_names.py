"""Issue 20: `radpatch import` wrote a package's `__init__.py` as `modules: {x: pkg.sub.__init__}`,
where the registry documents the import name (`vllm.reasoning` is `vllm/reasoning/__init__.py`,
docs/registry.md) and users are told to write that. Now the import writes the import name, for a
package it changes and for one it creates.

Generated: the package's depth (the distribution's top package, a subpackage, one deeper) x what
the patch does to its `__init__.py` (changes a constant, adds a keyword to a call, creates the
package); each imported, `modules:` holding the import name, applied by the real engine as GNU
patch gives, `status --check` 0, reverted to the installed files (a created package gone).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.importing import gnu_diff, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

DEPTHS = ("rpkg", "rpkg.sub", "rpkg.sub.deeper")
BEFORE = "import os\n\nLIMIT = 1\n\n\ndef run(path):\n    return open(path)\n"
CHANGES = {
    "constant": BEFORE.replace("LIMIT = 1", "LIMIT = 2"),
    "keyword": BEFORE.replace("open(path)", 'open(path, encoding="utf-8")'),
    "create": BEFORE,
}


@pytest.mark.parametrize(("package", "change"), sample([(p, c) for p in DEPTHS for c in CHANGES]))
def test_a_package_is_named_by_its_import_name(tmp_path: Path, package: str, change: str) -> None:
    parts = package.split(".")
    rel = "/".join(parts) + "/__init__.py"
    files = {"/".join(parts[:k]) + "/__init__.py": "" for k in range(1, len(parts) + 1)}
    files["rpkg/other.py"] = "X = 1\n"
    if change == "create":
        del files[rel]
    else:
        files[rel] = BEFORE
    venv = pip_install(tmp_path / "venv", build_wheel(tmp_path / "wheel", "rpkg", "1.0.0", files))
    before = None if change == "create" else BEFORE
    patch = tmp_path / "change.patch"
    diff = gnu_diff(tmp_path / "d", rel, before or "", CHANGES[change]).stdout
    if before is None:  # a new file: `--- /dev/null`, as git and diff -N write it
        diff = diff.replace(f"--- a/{rel}".encode(), b"--- /dev/null", 1)
    patch.write_bytes(diff)
    gnu = tmp_path / "gnu"
    for r, text in files.items():
        (gnu / r).parent.mkdir(parents=True, exist_ok=True)
        (gnu / r).write_text(text)
    assert gnu_patch(gnu, patch, 1).returncode == 0
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    entry = yaml.safe_load((reg / "change.yaml").read_text())
    assert list(entry["modules"].values()) == [package], entry
    assert venv.radpatch("--registry", str(reg), "apply", "change").returncode == 0
    mine = (venv.site / rel).read_text()
    assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse((gnu / rel).read_text()))
    assert venv.radpatch("--registry", str(reg), "status", "--check", "change").returncode == 0
    assert venv.radpatch("--registry", str(reg), "revert", "change").returncode == 0
    if change == "create":
        assert not (venv.site / rel).exists()
    else:
        assert (venv.site / rel).read_text() == BEFORE

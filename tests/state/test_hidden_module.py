"""A package made beside a module radpatch patched (`toypkg/core/__init__.py` beside
`toypkg/core.py`) hides it: Python imports the package. status said of the patched module "an
earlier revision of the entry patched it, and it changed since" and revert's hint said to restore
it and to remove the package as "the module the patch creates" (att45 #6), none of it true. Now the
reason says the module carries the patch and which file hides it, and the hint says to remove that
file; following it, the entry reads applied again, with the bytes radpatch wrote.

Generated over the module hidden and what the hiding package holds; the oracle for "which file
Python imports" is the interpreter itself (importlib.util.find_spec in a child process)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy import ORIGINAL, TOY_FILES, TOY_PATCH

HOLDS = {"empty": "", "other code": "X = 1\n", "the module's code": None}
CASES = sample(itertools.product(["core", "util"], HOLDS))


def _imported_from(site: Site, module: str) -> str:
    code = (
        f"import importlib.util, sys; sys.path.insert(0, {str(site.root)!r}); "
        f"print(importlib.util.find_spec({module!r}).origin)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return str(Path(out.stdout.strip()).relative_to(site.root))


@pytest.mark.parametrize(("hidden", "holds"), CASES)
def test_a_package_that_hides_a_patched_module_is_named_and_the_hint_brings_it_back(
    site: Site, write_registry: Callable[..., Path], radpatch: Any, hidden: str, holds: str
) -> None:
    site.install("toypkg", "1.0", TOY_FILES)
    reg = write_registry("toy", TOY_PATCH)
    assert radpatch("--registry", str(reg), "apply", "toy").code == 0
    patched = site.root / f"toypkg/{hidden}.py"
    written = patched.read_bytes()
    hider = site.root / f"toypkg/{hidden}/__init__.py"
    hider.parent.mkdir()
    hider.write_bytes(written if HOLDS[holds] is None else HOLDS[holds].encode())
    rel, hider_rel = f"toypkg/{hidden}.py", f"toypkg/{hidden}/__init__.py"
    assert _imported_from(site, f"toypkg.{hidden}") == hider_rel  # Python's word: the package hides it

    (st,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "toy").out)
    assert st["state"] != "applied", st
    said = f"{rel} carries the patch as radpatch wrote it, but toypkg.{hidden} is now imported from {hider_rel}"
    assert said in st["reason"] and "an earlier revision" not in st["reason"], st["reason"]
    assert radpatch("--registry", str(reg), "status", "--check", "toy").code == 3
    out = radpatch("--registry", str(reg), "revert", "toy")
    assert out.code == 1 and patched.read_bytes() == written, out
    hint = out.err.split("hint:", 1)[1]
    assert f"remove {hider_rel} (the wheel does not install it; it hides {rel})" in hint, out.err
    assert "the module the patch creates" not in hint and "radpatch restore" not in hint, out.err

    hider.unlink()  # as the hint says
    hider.parent.rmdir()
    assert _imported_from(site, f"toypkg.{hidden}") == rel
    (st,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "toy").out)
    assert st["state"] == "applied", st
    assert radpatch("--registry", str(reg), "revert", "toy").code == 0
    assert {r: (site.root / r).read_bytes() for r in ORIGINAL} == ORIGINAL

"""Reading an attribute of the parent package while its `__init__` is still running is refused like
`from pp import EXTRA` (att21 N5): `pp/__init__.py` imports `pp.mod` before it binds EXTRA, and
the patch makes `pp/mod.py` do `import pp` and `LIMIT = pp.EXTRA * 2` at import time. Reading
`pp.mod` itself in pp/mod.py fails whatever the `__init__` does: the import system binds the
attribute only after the module has run (refused as the self-import it is).

Generated: the package `__init__` shapes of test_partial_package times how the patch reads the
attribute (module level, through an alias, a class body, a default, a decorator, or only inside a
function). Each patched package is imported by this interpreter: the proof refuses exactly those
that fail.
"""

from __future__ import annotations

import itertools
import sys
import sysconfig
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import names_check, refusal
from tests.lib import partial_package
from tests.lib.generated import sample
from tests.lib.partial_package import INITS, ORIGINAL, fails

READS = {
    "module-level": "import pp\n\nLIMIT = pp.EXTRA * 2\n",
    "alias": "import pp as _pkg\n\nLIMIT = _pkg.EXTRA\n",
    "class-body": "import pp\n\n\nclass C:\n    L = pp.EXTRA\n",
    "default": "import pp\n\n\ndef g(x=pp.EXTRA):\n    return x\n",
    "decorator": "import pp\n\n\n@(pp.EXTRA and (lambda fn: fn))\ndef g():\n    return 1\n",
    "longer-chain": "import pp\n\nLIMIT = pp.EXTRA.real\n",
    "in-function": "import pp\n\n\ndef g():\n    return pp.EXTRA\n",
    "in-lambda": "import pp\n\nG = lambda: pp.EXTRA\n",
    # this very module as its parent's attribute: bound on pp only after pp.mod has run
    "own-module": "import pp\n\nLIMIT = pp.mod.VALUE\n",
    "own-module-alias": "import pp as _pkg\n\nM = _pkg.mod\n",
    "own-module-dotted-import": "import pp.mod\n\nsetattr(pp.mod, 'LIMIT', 2)\n",
    "own-module-in-function": "import pp\n\n\ndef g():\n    return pp.mod.VALUE\n",
}
CASES = sample(itertools.product(INITS, READS))


def build(root: Path, init: str, read: str | None) -> Path:
    return partial_package.build(root, init, ORIGINAL + ("\n" + READS[read] if read else ""))


@pytest.mark.parametrize(("init", "read"), CASES, ids=[f"{i}-{r}" for i, r in CASES])
def test_an_attribute_of_a_parent_package_still_being_imported_is_refused(init: str, read: str, tmp_path: Path) -> None:
    root = tmp_path / "site"
    env = PythonEnv(sys.executable, (root, Path(sysconfig.get_paths()["stdlib"])), root, sys.version_info[:2])
    mod = build(root, init, None)
    before = mod.read_bytes()
    assert not fails(root)
    build(root, init, read)
    after = mod.read_bytes()
    truth = fails(root)
    mod.write_bytes(before)  # the proof reads the package as installed, before the patch is written
    refused = names_check.names_refusal(before, after, str(mod), env, "pp.mod")
    assert (refused is not None) == truth, (init, read, refused)
    if refused is not None and read.startswith("own-module"):  # `pp.mod`, or `import pp.mod`, in pp/mod.py itself
        assert "comes from the module itself" in refused.why and refused.hint == refusal.SELF_IMPORT_HINT, refused
        assert read.endswith("dotted-import") or "(as pp.mod, an attribute pp gets only after" in refused.why
    elif refused is not None:
        assert "`EXTRA` (line " in refused.why and "is taken from package pp while its __init__" in refused.why
        assert refused.hint == refusal.PARTIAL_PACKAGE_HINT


def test_both_outcomes_are_generated() -> None:
    assert "from-module" in INITS and "bound-before" in INITS and "in-function" in READS
